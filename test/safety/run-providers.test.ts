// The runner: providers in parallel, their union in enum order, and a failing or slow
// provider contributes nothing while its failure is reported once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SafetyTag } from '../../generated/types.gen.js';
import type { SafetyProvider } from '../../src/safety/provider.js';
import { ProviderTimedOut, runProviders } from '../../src/safety/run-providers.js';

const test = suite('runProviders');
const input = { url: new URL('https://example.com/'), tags: null };

const answers = (name: string, tags: SafetyTag[], delayMs = 0): SafetyProvider => ({
  name,
  check: () => new Promise((resolve) => setTimeout(() => resolve(tags), delayMs)),
});
const throwsAtOnce = (name: string): SafetyProvider => ({
  name,
  check: () => {
    throw new Error(`${name} broke`);
  },
});
const rejects = (name: string): SafetyProvider => ({ name, check: async () => Promise.reject(new Error(`${name} rejected`)) });
/** Ignores the signal on purpose: the runner must stop waiting by itself. */
const never = (name: string): SafetyProvider => ({ name, check: () => new Promise(() => {}) });

function recorder() {
  const failures: { provider: string; err: unknown }[] = [];
  return { failures, onFailure: (provider: string, err: unknown) => failures.push({ provider, err }) };
}

test('the union of all providers, de-duplicated, in enum order', async () => {
  const { failures, onFailure } = recorder();
  const tags = await runProviders(
    [answers('a', ['suspicious_domain', 'adult']), answers('b', ['security_threat', 'suspicious_domain'], 5), answers('c', ['adult']), answers('d', [])],
    input,
    new AbortController().signal,
    onFailure,
  );
  assert.equal(tags, ['adult', 'security_threat', 'suspicious_domain']);
  assert.equal(failures, []);
});

test('providers run in parallel, not one after another', async () => {
  const started = Date.now();
  await runProviders([answers('a', [], 100), answers('b', [], 100), answers('c', [], 100)], input, new AbortController().signal, () => {});
  const took = Date.now() - started;
  assert.ok(took < 250, `took ${took} ms`);
});

test('a provider that throws or rejects contributes nothing; the others still count', async () => {
  const { failures, onFailure } = recorder();
  const tags = await runProviders([throwsAtOnce('sync'), rejects('async'), answers('ok', ['adult'])], input, new AbortController().signal, onFailure);
  assert.equal(tags, ['adult']);
  assert.equal(failures.map((f) => f.provider).sort(), ['async', 'sync']);
  assert.match(String((failures.find((f) => f.provider === 'sync')!.err as Error).message), /sync broke/);
});

test('at the abort, check resolves with what finished; the slow provider is reported as timed out', async () => {
  const { failures, onFailure } = recorder();
  const started = Date.now();
  const tags = await runProviders(
    [answers('fast', ['adult'], 5), never('stuck'), answers('late', ['security_threat'], 400)],
    input,
    AbortSignal.timeout(100),
    onFailure,
  );
  const took = Date.now() - started;
  assert.equal(tags, ['adult']);
  assert.ok(took >= 95 && took < 300, `took ${took} ms`);
  assert.equal(failures.map((f) => f.provider).sort(), ['late', 'stuck']);
  assert.instance(failures[0]!.err, ProviderTimedOut);
});

test('a provider that rejects because of the abort is counted once, as timed out', async () => {
  const { failures, onFailure } = recorder();
  const listensToSignal: SafetyProvider = {
    name: 'polite',
    check: (_input, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
  };
  const controller = new AbortController();
  const pending = runProviders([listensToSignal], input, controller.signal, onFailure);
  setTimeout(() => controller.abort(), 20);
  assert.equal(await pending, []);
  assert.is(failures.length, 1);
  assert.is(failures[0]!.provider, 'polite');
  assert.instance(failures[0]!.err, ProviderTimedOut);
});

test('an already aborted signal answers [] at once and counts every provider', async () => {
  const { failures, onFailure } = recorder();
  const tags = await runProviders([answers('a', ['adult']), answers('b', [])], input, AbortSignal.abort(), onFailure);
  assert.equal(tags, []);
  assert.equal(
    failures.map((f) => f.provider),
    ['a', 'b'],
  );
});

test('a failure handler that throws does not break the check', async () => {
  const tags = await runProviders([rejects('x'), answers('ok', ['adult'])], input, new AbortController().signal, () => {
    throw new Error('counter broken');
  });
  assert.equal(tags, ['adult']);
});

test('no providers: no tags', async () => {
  assert.equal(await runProviders([], input, new AbortController().signal, () => {}), []);
});

test.run();
