// An empty project that installs the repository's packed package, as a user's would, but offline:
// npm's cache holds the tarballs `npm ci` fetched for this repository, not the registry's
// documents that a plain `npm install` of a tarball resolves versions from (a fresh machine has
// none of those). So the project gets a lockfile: the tarball, and our lockfile's entries of what it
// needs, at this repository's versions, with the overrides it also needs on Node 20. Install it
// with `npm ci --offline`.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const repoPackage = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, any>;

/**
 * Writes package.json and package-lock.json into `project` for a project named `name` that depends
 * on the packed `tarball` (and, with `nodeTypes`, Node's types as a TypeScript project on Node has
 * them).
 */
export function writePackedProject(project: string, name: string, tarball: string, { nodeTypes = false } = {}): void {
  const ours = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const pkg = repoPackage;
  const dependencies = { linkpeek: `file:${tarball}` };
  const devDependencies = nodeTypes ? { '@types/node': pkg.devDependencies['@types/node'] } : {};
  const packages: Record<string, object> = { '': { name, dependencies, devDependencies } };
  packages['node_modules/linkpeek'] = { version: pkg.version, resolved: `file:${tarball}`, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines };
  const devWanted = nodeTypes ? /^node_modules\/(@types\/node|undici-types)$/ : /^$/;
  for (const [where, entry] of Object.entries(ours.packages)) {
    if (where.startsWith('node_modules/') && (!entry.dev || devWanted.test(where))) packages[where] = entry;
  }
  const manifest = { name, private: true, type: 'module', dependencies, devDependencies, overrides: pkg.overrides };
  writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest));
  writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify({ name, lockfileVersion: 3, requires: true, packages }));
}
