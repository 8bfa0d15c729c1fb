// createSafetyCheck end to end: the providers the settings enable, run together on one
// URL and head, with real list files and a local Safe Browsing server. Every signal, their union
// in enum order, a page that triggers none, and providers that fail or are too slow.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createSafetyCheck, providersFor, type SafetyCheck } from '../../src/safety/index.js';
import { ProviderTimedOut } from '../../src/safety/run-providers.js';
import { SafeBrowsingFailed } from '../../src/safety/safe-browsing.js';
import { head, meta, ordinaryArticle } from '../fixtures/safety/heads.js';
import { startSafeBrowsingServer, type SafeBrowsingServer } from './safe-browsing-server.js';
import { until } from '../helpers/until.js';

const test = suite('createSafetyCheck');

let sb: SafeBrowsingServer;
let dir: string;
let adultList: string;
let threatList: string;
const checks: SafetyCheck[] = [];
let failures: { provider: string; err: unknown }[] = [];
let warnings: { obj: object; msg?: string }[] = [];

test.before(async () => {
  sb = await startSafeBrowsingServer('sb-key');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpeek-safety-'));
  adultList = path.join(dir, 'adult.txt');
  threatList = path.join(dir, 'threats.hosts');
});
test.after(async () => {
  await sb.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
test.before.each(() => {
  fs.writeFileSync(adultList, '# adult\nadult-site.example\n');
  fs.writeFileSync(threatList, '127.0.0.1 localhost\n0.0.0.0 phish.example\n');
  sb.behaviour = { kind: 'api' };
  sb.listed.clear();
  sb.requests.length = 0;
  failures = [];
  warnings = [];
});
test.after.each(() => {
  for (const check of checks.splice(0)) check.close();
});

/** A check built from environment-style settings, as src/main.ts will build it. */
function safety(env: Record<string, string> = {}): SafetyCheck {
  const config = loadConfig({
    SAFETY_ADULT_LIST: adultList,
    SAFETY_THREAT_LIST: threatList,
    SAFE_BROWSING_API_KEY: 'sb-key',
    SAFE_BROWSING_URL: sb.endpoint,
    ...env,
  });
  const check = createSafetyCheck(config, {
    logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    onProviderFailure: (provider, err) => failures.push({ provider, err }),
    listPollIntervalMs: 20,
  });
  checks.push(check);
  return check;
}

const budget = (ms = 2_000) => AbortSignal.timeout(ms);
const at = (href: string, tags = ordinaryArticle) => ({ url: new URL(href), tags });

test('an ordinary page on an ordinary host: no tags, no failures, one Safe Browsing lookup', async () => {
  assert.equal(await safety().check(at('https://news.example.com/story'), budget()), []);
  assert.equal(failures, []);
  assert.is(sb.requests.length, 1);
  assert.equal((sb.requests[0]!.body as { threatInfo: { threatEntries: unknown } }).threatInfo.threatEntries, [{ url: 'https://news.example.com/story' }]);
});

test('the settings choose the providers', () => {
  const base = { safetyAdultList: null, safetyThreatList: null, safeBrowsingApiKey: null, safeBrowsingUrl: sb.endpoint };
  assert.equal(
    providersFor(base).map((p) => p.name),
    ['ip-host', 'machine-made-domain', 'parking-page', 'adult-self-label'],
  );
  const all = providersFor({ safetyAdultList: adultList, safetyThreatList: threatList, safeBrowsingApiKey: 'k', safeBrowsingUrl: sb.endpoint });
  assert.equal(
    all.map((p) => p.name),
    ['ip-host', 'machine-made-domain', 'parking-page', 'adult-self-label', 'adult-list', 'threat-list', 'safe-browsing'],
  );
  for (const p of all) p.close?.();
});

test('without an API key Safe Browsing is never called', async () => {
  const check = safety({ SAFE_BROWSING_API_KEY: '' });
  assert.equal(await check.check(at('https://news.example.com/'), budget()), []);
  assert.is(sb.requests.length, 0);
});

test('suspicious_domain: an IP address as host', async () => {
  assert.equal(await safety().check(at('http://93.184.215.14/'), budget()), ['suspicious_domain']);
});

test('suspicious_domain: a machine-made registrable domain', async () => {
  assert.equal(await safety().check(at('https://www.k3x9q2m7v8wz.com/'), budget()), ['suspicious_domain']);
});

test('suspicious_domain: a parked page', async () => {
  const parked = head({ title: 'parked-example.com', scriptSrcs: ['//www.google.com/adsense/domains/caf.js'] });
  assert.equal(await safety().check(at('https://parked-example.com/', parked), budget()), ['suspicious_domain']);
});

test('adult: the page labels itself', async () => {
  const labelled = head({ metas: [meta({ name: 'rating', content: 'RTA-5042-1996-1400-1577-RTA' })] });
  assert.equal(await safety().check(at('https://club.example/', labelled), budget()), ['adult']);
});

test('adult: the host or a parent domain is in the adult list', async () => {
  const check = safety();
  assert.equal(await check.check(at('https://adult-site.example/'), budget()), ['adult']);
  assert.equal(await check.check(at('https://cdn.videos.adult-site.example/'), budget()), ['adult']);
  assert.equal(await check.check(at('https://notadult-site.example/'), budget()), []);
});

test('security_threat: the host or a parent domain is in the threat list (hosts format)', async () => {
  const check = safety();
  assert.equal(await check.check(at('https://login.phish.example/account'), budget()), ['security_threat']);
  assert.equal(await check.check(at('http://localhost/'), budget()), []);
});

test('security_threat: a Safe Browsing match', async () => {
  sb.listed.set('https://flagged.example/download', [{ threatType: 'MALWARE', cacheDuration: '300s' }]);
  assert.equal(await safety().check(at('https://flagged.example/download'), budget()), ['security_threat']);
});

test('every signal at once: the union, de-duplicated, in enum order', async () => {
  fs.writeFileSync(adultList, '93.184.215.14.example\nk3x9q2m7v8wz.com\n');
  fs.writeFileSync(threatList, 'k3x9q2m7v8wz.com\n');
  const url = 'https://www.k3x9q2m7v8wz.com/';
  sb.listed.set(url, [{ threatType: 'SOCIAL_ENGINEERING' }]);
  const tags = head({
    title: 'This domain is for sale',
    metas: [meta({ name: 'rating', content: 'adult' })],
  });
  assert.equal(await safety().check(at(url, tags), budget()), ['adult', 'security_threat', 'suspicious_domain']);
  assert.equal(failures, []);
});

test('a non-HTML target (no head): host signals still answer, head signals are silent', async () => {
  const check = safety();
  assert.equal(await check.check({ url: new URL('https://adult-site.example/photo.jpg'), tags: null }, budget()), ['adult']);
  assert.equal(await check.check({ url: new URL('https://images.example.com/photo.jpg'), tags: null }, budget()), []);
});

for (const status of [400, 403, 429, 500]) {
  test(`Safe Browsing answering ${status}: the others still count; the failure is logged and counted`, async () => {
    sb.behaviour = { kind: 'status', status };
    const tags = await safety().check(at('https://login.phish.example/'), budget());
    assert.equal(tags, ['security_threat']); // from the threat list
    assert.equal(
      failures.map((f) => f.provider),
      ['safe-browsing'],
    );
    assert.instance(failures[0]!.err, SafeBrowsingFailed);
    assert.is((failures[0]!.err as SafeBrowsingFailed).status, status);
    assert.equal(
      warnings.map((w) => (w.obj as { provider?: string }).provider),
      ['safe-browsing'],
    );
  });
}

test('Safe Browsing answering malformed JSON: no tag from it, failure counted', async () => {
  sb.behaviour = { kind: 'malformed' };
  assert.equal(await safety().check(at('http://93.184.215.14/'), budget()), ['suspicious_domain']);
  assert.equal(
    failures.map((f) => f.provider),
    ['safe-browsing'],
  );
});

test('Safe Browsing too slow: check resolves at the budget with the rest; the timeout is counted', async () => {
  sb.behaviour = { kind: 'hang' };
  const started = Date.now();
  const tags = await safety().check(at('https://adult-site.example/'), budget(200));
  const took = Date.now() - started;
  assert.equal(tags, ['adult']);
  assert.ok(took >= 190 && took < 1_000, `took ${took} ms`);
  assert.equal(
    failures.map((f) => f.provider),
    ['safe-browsing'],
  );
  assert.instance(failures[0]!.err, ProviderTimedOut);
});

test('Safe Browsing unreachable (connection refused): failure counted, never a rejection', async () => {
  const closed = await startSafeBrowsingServer('sb-key');
  const endpoint = closed.endpoint;
  await closed.close();
  const tags = await safety({ SAFE_BROWSING_URL: endpoint }).check(at('https://news.example.com/'), budget());
  assert.equal(tags, []);
  assert.equal(
    failures.map((f) => f.provider),
    ['safe-browsing'],
  );
});

test('a list file that changes is picked up by the running check', async () => {
  const check = safety();
  assert.equal(await check.check(at('https://new-threat.example/'), budget()), []);
  fs.writeFileSync(threatList, '0.0.0.0 phish.example\n0.0.0.0 new-threat.example\n');
  let tags: string[] = [];
  await until(async () => (tags = await check.check(at('https://new-threat.example/'), budget())).length > 0, 'the new list to be read', 2_000);
  assert.equal(tags, ['security_threat']);
});

test('a list named by a setting but missing: warned, no tag, and the check still answers', async () => {
  const check = safety({ SAFETY_ADULT_LIST: path.join(dir, 'absent.txt') });
  assert.equal(await check.check(at('https://adult-site.example/'), budget()), []);
  assert.ok(warnings.some((w) => (w.obj as { list?: string }).list?.endsWith('absent.txt')));
});

test.run();
