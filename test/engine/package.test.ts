import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { importsEngine, readmeBlocks } from '../docs/code-blocks.js';
import { LOCAL_DNS_SERVERS } from '../helpers/local-dns.js';
import { repoPackage, writePackedProject } from '../helpers/packed-project.js';
import { respond, startUpstream } from '../helpers/upstream.js';

// The engine as a user gets it: the repository's package packed (`npm pack`, from the build
// `npm ci` made), installed into an empty project, and used there as the README shows it: its
// TypeScript blocks type-checked under strict settings and run, its `npx linkpeek` commands run.
// Tests never reach a registry: the project installs the tarball's dependencies offline from npm's
// cache, at the versions of this repository's lockfile (test/helpers/packed-project.ts).

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pkg = repoPackage;

test("the packed package installs into an empty project, where the README's library and CLI work on a local page", async () => {
  for (const built of ['index.js', 'index.d.ts', 'cli.js']) {
    assert.ok(existsSync(path.join(root, 'dist/server/src', built)), `dist/server/src/${built} is built (npm run build)`);
  }
  const work = mkdtempSync(path.join(tmpdir(), 'linkpeek-engine-'));
  const page = '<html lang="en"><head><meta property="og:title" content="Tide pools"><meta name="twitter:title" content="Rock pools"></head><body>';
  const up = await startUpstream({ routes: { '/page': respond(200, page, { 'content-type': 'text/html' }) } });
  try {
    const { stdout: packed } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root });
    const [tarball] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const shipped = tarball!.files.map((f) => f.path);
    for (const file of ['dist/server/src/index.js', 'dist/server/src/index.d.ts', 'dist/server/src/cli.js', 'dist/element/component.js', 'openapi.yaml']) {
      assert.ok(shipped.includes(file), file);
    }
    assert.equal(
      shipped.filter((f) => !/^(dist\/|openapi\.yaml$|package\.json$|README\.md$|LICENSE$)/.test(f) || f.endsWith('.map')),
      [],
    );
    // A lean library: the API reference's assets (Swagger UI, built into dist/docs/) stay out, and
    // so does swagger-ui-dist with its telemetry postinstall (@scarf/scarf).
    assert.equal(
      shipped.filter((f) => f.startsWith('dist/docs/') || f.startsWith('dist/.')),
      [],
    );
    assert.not.ok('swagger-ui-dist' in pkg.dependencies, 'swagger-ui-dist is only needed to build');

    const project = path.join(work, 'app');
    mkdirSync(project);
    writePackedProject(project, 'engine-user', path.join(work, tarball!.filename), { nodeTypes: true });
    await run(npm, ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: project });
    for (const serviceOnly of ['swagger-ui-dist', '@scarf/scarf']) assert.not.ok(existsSync(path.join(project, 'node_modules', serviceOnly)), serviceOnly);

    // The README's TypeScript, strict, against the installed types (of the package's dependencies
    // too, unchecked as `tsc --init` leaves them); then run, on the local page.
    const blocks = readmeBlocks().filter((b) => b.lang === 'ts' && importsEngine(b));
    assert.ok(blocks.length >= 1);
    const local = (text: string) =>
      text
        .replaceAll('https://github.com/', up.url('/page').href)
        .replace('createLinkPeek()', `createLinkPeek({ allowPrivateNetworks: true, dnsServers: [${JSON.stringify(LOCAL_DNS_SERVERS)}] })`);
    blocks.forEach((block, i) => writeFileSync(path.join(project, `readme-${i}.ts`), `${local(block.text)}\nexport {};\n`));
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: true,
      types: ['node'],
      outDir: 'out',
    };
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false']).catch((err: { stdout: string }) => {
      assert.unreachable(`tsc on the README's TypeScript against the installed package failed:\n${err.stdout}`);
    });
    // The first block, run as written: it prints the object and the process ends by itself.
    const { stdout } = await run(process.execPath, [path.join(project, 'out/readme-0.js')], { cwd: project, timeout: 30_000 });
    assert.match(stdout, /title: 'Tide pools'/, stdout);
    assert.match(stdout, /safety_tags: \[ 'suspicious_domain' \]/);

    await runCommands(project, up.url('/page').href);
  } finally {
    await up.close();
    rmSync(work, { recursive: true, force: true });
  }
});

/** The README's `npx linkpeek` lines, in the project, on the local page: JSON of the page, and the service. */
async function runCommands(project: string, pageUrl: string): Promise<void> {
  const env = { ...process.env, ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: LOCAL_DNS_SERVERS, PROBE_IMAGES: 'false', npm_config_offline: 'true' };
  const lines = readmeBlocks()
    .filter((b) => b.lang === 'sh' && importsEngine(b))
    .flatMap((b) => b.text.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, ''));
  assert.equal(
    lines.map((l) => l.split(' ').slice(0, 2).join(' ')),
    ['npx linkpeek', 'npx linkpeek'],
  );
  for (const line of lines) {
    const args = line
      .split(' ')
      .slice(1)
      .map((a) => (a === 'https://github.com/' ? pageUrl : a));
    if (args[1] === 'serve') {
      assert.match(await listeningLine(project, args, { ...env, HOST: '127.0.0.1', PORT: '0' }), /"port":\d+/);
      continue;
    }
    const { stdout } = await run('npx', args, { cwd: project, env });
    const meta = JSON.parse(stdout) as { title: string };
    assert.is(meta.title, line.includes('--prefer twitter') ? 'Rock pools' : 'Tide pools');
  }
  const refused = (await run('npx', ['linkpeek', 'ftp://example.com/'], { cwd: project, env }).catch((err: unknown) => err)) as {
    code?: number;
    stderr: string;
  };
  assert.equal(
    { code: refused.code, stderr: refused.stderr },
    { code: 2, stderr: 'linkpeek: url: must be an absolute http or https URL, not ftp: (invalid_input)\n' },
  );
}

/** Starts `npx linkpeek serve`, resolves with its "LinkPeek listening" log line, then stops it. */
function listeningLine(project: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn('npx', args, { cwd: project, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"msg":"LinkPeek listening"'));
      if (line !== undefined) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`linkpeek serve exited (${code}): ${out}`)));
  }).finally(() => {
    // npx and the node it started: the whole process group.
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  });
}

test.run();
