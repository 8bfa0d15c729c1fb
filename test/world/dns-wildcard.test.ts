import { Resolver } from 'node:dns/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorldDns, type WorldDns } from './dns-server.js';

// Wildcard names of the world's nameserver (RFC 4592), asked through Node's own resolver over UDP:
// the benchmarks give each attacker a zone in which every random name resolves (or never does).

interface Ctx {
  dns: WorldDns;
  resolver: Resolver;
}
const test = suite<Ctx>('wildcard names of the world nameserver');

test.before.each((ctx) => {
  return startWorldDns().then((dns) => {
    ctx.dns = dns;
    ctx.resolver = new Resolver({ timeout: 300, tries: 1 });
    ctx.resolver.setServers([dns.server]);
  });
});

test.after.each(async (ctx) => {
  await ctx.dns.close();
});

/** The error code of a failed lookup, or the addresses of a successful one. */
const lookup = (resolver: Resolver, name: string) => resolver.resolve4(name).catch((err: NodeJS.ErrnoException) => err.code);

test('a wildcard answers every name below its zone, at any depth', async ({ dns, resolver }) => {
  dns.set('*.attacker-1', { A: ['127.0.0.9'] });
  assert.equal(await lookup(resolver, 'x7f3.attacker-1'), ['127.0.0.9']);
  assert.equal(await lookup(resolver, 'a.b.attacker-1'), ['127.0.0.9']);
});

test('a name of its own wins over the wildcard, and the zone itself is not covered', async ({ dns, resolver }) => {
  dns.set('*.attacker-2', { A: ['127.0.0.9'] });
  dns.set('www.attacker-2', { A: ['127.0.0.10'] });
  assert.equal(await lookup(resolver, 'www.attacker-2'), ['127.0.0.10']);
  assert.is(await lookup(resolver, 'attacker-2'), 'ENOTFOUND');
});

test('the nearest wildcard above a name is the one that answers', async ({ dns, resolver }) => {
  dns.set('*.zone', { A: ['127.0.0.9'] });
  dns.set('*.deep.zone', { A: ['127.0.0.11'] });
  assert.equal(await lookup(resolver, 'a.deep.zone'), ['127.0.0.11']);
  assert.equal(await lookup(resolver, 'a.other.zone'), ['127.0.0.9']);
});

test('a silent wildcard never answers any name below it', async ({ dns, resolver }) => {
  dns.set('*.hang-1', { silent: true });
  assert.is(await lookup(resolver, 'r1.hang-1'), 'ETIMEOUT');
  assert.is(dns.queries('r1.hang-1', 'A'), 1);
});

test.run();
