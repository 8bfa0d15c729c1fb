import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig, SETTINGS, type SettingName } from '../src/config.js';
import { configFromOptions } from '../src/engine/options.js';

// Every setting of the table (src/config.ts SETTINGS), not a hand-picked few: each is given the
// same bad values, and what it refuses is refused with one line naming it, in-process (the
// environment and the library's options alike) and by the service, which exits with 2.

/** Values that are wrong for most kinds of setting: a word, a sign, a fraction, too large, a control character. */
const CANDIDATES = ['x', '-1', '1.5', '99999999999999999999', 'http://', 'a b', 'a\u0001b'];

/** Settings any text is a value of: a name, a key or a path to watch (a list may appear later). */
const FREE_TEXT: ReadonlySet<SettingName> = new Set(['redisSentinelMaster', 'safetyAdultList', 'safetyThreatList', 'safeBrowsingApiKey']);

const names = Object.keys(SETTINGS) as SettingName[];

/** The candidates `name` refuses from the environment, each with its message. */
function refusals(name: SettingName): Array<{ value: string; message: string }> {
  const env = SETTINGS[name].env;
  const out: Array<{ value: string; message: string }> = [];
  for (const value of CANDIDATES) {
    try {
      loadConfig({ [env]: value });
    } catch (err) {
      assert.instance(err, ConfigError, `${env}=${JSON.stringify(value)}`);
      assert.is((err as ConfigError).setting, env, `${env}=${JSON.stringify(value)} names another setting`);
      out.push({ value, message: (err as Error).message });
    }
  }
  return out;
}

test('every setting but the free-text ones refuses some bad value, each time with one line naming it', () => {
  for (const name of names) {
    const refused = refusals(name);
    if (FREE_TEXT.has(name)) {
      assert.equal(refused, [], `${SETTINGS[name].env} takes any text`);
      continue;
    }
    assert.ok(refused.length > 0, `${SETTINGS[name].env} refuses none of ${JSON.stringify(CANDIDATES)}`);
    for (const { message } of refused) {
      assert.ok(message.startsWith(`Invalid setting ${SETTINGS[name].env}: `), message);
      assert.not.match(message, /\n/);
    }
  }
});

test("every option of the library refuses what its setting refuses, naming the option in the caller's words", () => {
  for (const name of names) {
    if ('service' in SETTINGS[name] || FREE_TEXT.has(name)) continue;
    for (const { value } of refusals(name)) {
      const asNumber = Number(value);
      for (const option of [value, ...(Number.isFinite(asNumber) ? [asNumber] : [])]) {
        try {
          configFromOptions({ [name]: name === 'dnsServers' ? [option] : option });
          assert.unreachable(`${name}: ${JSON.stringify(option)} was taken`);
        } catch (err) {
          assert.instance(err, ConfigError, `${name}: ${JSON.stringify(option)}`);
          assert.is((err as ConfigError).setting, name);
          assert.ok((err as Error).message.startsWith(`Invalid setting ${name}: `), (err as Error).message);
          // Another setting is named as the caller names it, never by its environment variable.
          assert.not.match((err as Error).message, /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/, (err as Error).message);
        }
      }
    }
  }
});

/** Runs src/main.ts with one setting; nothing is ever asked of the system resolver. */
function runMain(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DNS_SERVERS: '127.0.0.1:53', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A service that started instead of refusing is stopped, and fails the test by its status.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

test('the service refuses a bad value of every setting with its one line on stderr and exit code 2', async () => {
  const cases = names
    .filter((name) => !FREE_TEXT.has(name))
    .map((name) => {
      const env = SETTINGS[name].env;
      // DNS_SERVERS is set for every run (no lookup may reach the system's resolver): its own case replaces it.
      const { value, message } = refusals(name)[0]!;
      return { env, value, message };
    });
  // A few at a time: each is a process of its own.
  const pending = [...cases];
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
        const run = await runMain({ [next.env]: next.value });
        if (run.status !== 2 || run.stderr !== `${next.message}\n` || run.stdout !== '')
          failures.push(`${next.env}=${JSON.stringify(next.value)}: exit ${run.status}, stderr ${JSON.stringify(run.stderr.slice(0, 300))}`);
      }
    }),
  );
  assert.equal(failures, []);
  assert.is(cases.length, names.length - FREE_TEXT.size);
});

test.run();
