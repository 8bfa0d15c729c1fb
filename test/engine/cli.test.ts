import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkedRequest, startService, type Service } from '../helpers/service.js';
import { LOCAL_DNS_SERVERS, localDns } from '../helpers/local-dns.js';
import { HELP } from '../../src/cli-help.js';
import { startProcess } from '../helpers/process.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';

// The linkpeek command as a user runs it: the package's bin (the build `npm ci` writes to dist/),
// its own process, settings from the environment, the answer on stdout, a failure as one line on
// stderr and a non-zero exit. Each answer is compared with what the API says for the same URL.

const root = fileURLToPath(new URL('../../', import.meta.url));
const CLI = 'dist/server/src/cli.js';
const ENV = { ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: LOCAL_DNS_SERVERS, PROBE_IMAGES: 'false' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function linkpeek(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const childEnv = { PATH: process.env.PATH ?? '', ...ENV, ...env };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: root, env: childEnv }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
    });
  });
}

interface Ctx {
  up: Upstream;
  svc: Service;
}
const cli = suite<Ctx>('linkpeek <url>');
cli.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/page': respond(200, '<title>Tide pools</title><meta name="twitter:title" content="Tw"><meta property="og:image" content="/c.png">', {
        'content-type': 'text/html',
      }),
      '/gone': respond(404, 'nope', { 'content-type': 'text/html' }),
    },
  });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
});
cli.after(async (ctx) => {
  await Promise.all([ctx.svc.close(), ctx.up.close()]);
});

cli('prints the Metadata JSON the API answers, for either preference, and exits 0', async ({ up, svc }) => {
  for (const args of [[], ['--prefer', 'twitter'], ['--prefer=og']]) {
    const run = await linkpeek([up.url('/page').href, ...args]);
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stderr, '');
    const prefer = args.join('=').replace(/^--prefer=/, '') || 'og';
    const api = await svc.request(`/v1/metadata?${new URLSearchParams({ url: up.url('/page').href, prefer })}`);
    assert.equal(JSON.parse(run.stdout), api.json);
  }
});

cli("a page that fails: the 422's message and reason on stderr, exit 1, nothing on stdout", async ({ up, svc }) => {
  for (const url of [up.url('/gone').href, 'http://nowhere.invalid/']) {
    const api = (await svc.request(`/v1/metadata?${new URLSearchParams({ url })}`)).json;
    const run = await linkpeek([url]);
    assert.equal(run, { code: 1, stdout: '', stderr: `linkpeek: ${api.message} (${api.reason})\n` });
  }
});

cli('what the API answers 400 is refused in its words, naming the argument, exit 2', async ({ svc }) => {
  for (const [args, param] of [
    [['ftp://example.com/'], 'url'],
    [['http://127.0.0.1/', '--prefer', 'facebook'], 'prefer'],
  ] as const) {
    const api = (await svc.request(`/v1/metadata?${new URLSearchParams({ url: args[0], prefer: args[2] ?? 'og' })}`)).json;
    const run = await linkpeek([...args]);
    assert.equal(run, { code: 2, stdout: '', stderr: `linkpeek: ${param}: ${api.errors[0].message} (invalid_input)\n` });
  }
  const refused = await linkpeek(['http://127.0.0.1/'], { ALLOW_PRIVATE_NETWORKS: 'false' });
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /^linkpeek: url: must not point to a private, loopback or reserved address; .* \(invalid_input\)\n$/);
});

test('usage and settings: a line naming what is wrong, exit 2', async () => {
  const usage = 'usage: linkpeek <url> [--prefer og|twitter]\n       linkpeek serve\n';
  const [none, two, unknown, typo, setting] = await Promise.all([
    linkpeek([]),
    linkpeek(['a', 'b']),
    linkpeek(['--colour', 'http://a.example/']),
    linkpeek(['--perfer', 'twitter', 'http://a.example/']),
    linkpeek(['http://a.example/'], { FETCH_TIMEOUT_MS: 'soon' }),
  ]);
  assert.equal(none, { code: 2, stdout: '', stderr: `linkpeek: ${usage}` });
  assert.equal(two, { code: 2, stdout: '', stderr: `linkpeek: ${usage}` });
  assert.equal(unknown, { code: 2, stdout: '', stderr: `linkpeek: unknown option --colour\n${usage}` });
  assert.equal(typo, { code: 2, stdout: '', stderr: `linkpeek: unknown option --perfer; did you mean --prefer?\n${usage}` });
  assert.equal(setting, { code: 2, stdout: '', stderr: 'linkpeek: Invalid setting FETCH_TIMEOUT_MS: "soon" is not a whole number\n' });
});

test('--help names the settings to know first, the exit codes and the README; --version is the package version', async () => {
  const [help, short, version] = await Promise.all([linkpeek(['--help']), linkpeek(['-h']), linkpeek(['--version'])]);
  assert.equal(help, { code: 0, stdout: `${HELP}\n`, stderr: '' });
  assert.equal(short, help);
  for (const said of [
    'ALLOW_PRIVATE_NETWORKS=true',
    'DNS_SERVERS=',
    '  2  bad input',
    '  1  the page could not be previewed',
    'https://github.com/linkpeek/linkpeek#readme',
  ]) {
    assert.ok(help.stdout.includes(said), said);
  }
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(version, { code: 0, stdout: `${pkg.version}\n`, stderr: '' });
});

test('a page whose name leads to a private address: the refusal names ALLOW_PRIVATE_NETWORKS, exit 1', async () => {
  localDns.set('intranet.test', { A: ['127.0.0.1'] });
  const run = await linkpeek(['http://intranet.test:8080/'], { ALLOW_PRIVATE_NETWORKS: 'false' });
  assert.equal(run, {
    code: 1,
    stdout: '',
    stderr:
      'linkpeek: The site could not be reached. Its address is private, loopback or reserved: set ALLOW_PRIVATE_NETWORKS=true to preview pages of your own network. (unreachable)\n',
  });
});

test('linkpeek serve runs the service, which stops on SIGTERM', async () => {
  const up = await startUpstream({ routes: { '/page': respond(200, '<title>Served</title>', { 'content-type': 'text/html' }) } });
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' }, 'linkpeek serve');
  try {
    assert.is((await checkedRequest(`${svc.baseUrl}/healthz`)).status, 200);
    const page = await checkedRequest(`${svc.baseUrl}/v1/metadata?url=${encodeURIComponent(up.url('/page').href)}`);
    assert.is(page.json.title, 'Served');
    assert.is(await svc.stop('SIGTERM'), 0);
  } finally {
    await svc.stop('SIGKILL');
    await up.close();
  }
});

test.run();
cli.run();
