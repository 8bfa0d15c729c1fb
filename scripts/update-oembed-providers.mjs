// `npm run update:oembed`: rewrites src/oembed/providers.json, the compact copy of oembed.com's
// provider registry that the service matches URLs against (src/oembed/providers.ts). The service
// never downloads the list: it loads the committed file, so refreshing it is this script, a review
// of the diff, and a commit.
//
// Source: the `oembed-providers` npm package, published by the registry's own repository
// (iamcal/oembed, MIT, data only), fetched with `npm pack` into a temporary folder; or a
// providers.json already on disk (the registry's upstream JSON has the same shape):
//   node scripts/update-oembed-providers.mjs                    latest published version
//   node scripts/update-oembed-providers.mjs --version 1.0.20260604
//   node scripts/update-oembed-providers.mjs --from ./providers.json
//
// Kept per endpoint: its URL ("{format}" filled with "json") and its http(s) URL schemes, in the
// registry's order (the first provider whose scheme matches wins). Dropped, each for a reason:
//   - endpoints that declare formats without "json": LinkPeek reads JSON oEmbed only;
//   - endpoints without schemes (discovery only): a page's own <link> finds those;
//   - schemes that are not http(s) ("spotify:*"): a target URL is always http(s);
//   - schemes with a fragment ("#/videos/*"): the fragment never reaches a server and is not part
//     of the extraction's cache key, so it cannot select a provider;
//   - an entry holding several schemes separated by spaces is split into them.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = path.join(root, 'src', 'oembed', 'providers.json');
const PACKAGE = 'oembed-providers';

function option(name) {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

/** The registry (an array of providers) and a line naming where it came from. */
function loadRegistry() {
  const from = option('--from');
  if (from !== undefined) return { registry: JSON.parse(readFileSync(from, 'utf8')), source: path.basename(from) };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oembed-providers-'));
  try {
    const spec = `${PACKAGE}@${option('--version') ?? 'latest'}`;
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const pack = spawnSync(npm, ['pack', spec, '--json', '--pack-destination', dir], { encoding: 'utf8' });
    if (pack.status !== 0) throw new Error(`npm pack ${spec} failed:\n${pack.stderr}`);
    const [{ filename, version }] = JSON.parse(pack.stdout);
    const untar = spawnSync('tar', ['-xzf', path.join(dir, filename), '-C', dir], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`tar failed:\n${untar.stderr}`);
    const registry = JSON.parse(readFileSync(path.join(dir, 'package', 'providers.json'), 'utf8'));
    return { registry, source: `${PACKAGE} ${version} (MIT), the oembed.com provider registry` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function isHttp(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function compact(registry) {
  if (!Array.isArray(registry)) throw new Error('the registry is not an array of providers');
  const out = [];
  for (const provider of registry) {
    for (const endpoint of provider.endpoints ?? []) {
      if (Array.isArray(endpoint.formats) && !endpoint.formats.includes('json')) continue;
      const url = String(endpoint.url ?? '').replaceAll('{format}', 'json');
      if (!isHttp(url)) continue;
      const schemes = [];
      for (const entry of endpoint.schemes ?? []) {
        for (const scheme of String(entry).split(/\s+/)) {
          if (!/^https?:\/\/[^/]/i.test(scheme) || scheme.includes('#') || schemes.includes(scheme)) continue;
          schemes.push(scheme);
        }
      }
      if (schemes.length > 0) out.push({ endpoint: url, schemes });
    }
  }
  return out;
}

const { registry, source } = loadRegistry();
const providers = compact(registry);
// One endpoint per line: an update reads as a diff of the endpoints that changed.
const body = providers.map((p) => `    ${JSON.stringify(p)}`).join(',\n');
writeFileSync(OUTPUT, `{\n  "source": ${JSON.stringify(source)},\n  "providers": [\n${body}\n  ]\n}\n`);
console.log(`${path.relative(root, OUTPUT)}: ${providers.length} endpoints, ${providers.reduce((n, p) => n + p.schemes.length, 0)} schemes from ${source}`);
