// The package's own folder (where package.json is), for the files the service reads beside its
// code (openapi.yaml, the built element). Found by walking up, so the same code works from src/
// under tsx and from the compiled copy in dist/server/ (`npm start`).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Document } from 'openapi-backend';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

/** The contract, read by the router and served at /openapi.yaml. */
export const OPENAPI_PATH = path.join(PACKAGE_ROOT, 'openapi.yaml');

/**
 * What the router reads: openapi.yaml as openapi-backend dereferenced it at build time
 * (dist/server/openapi.json beside the compiled code, written by scripts/openapi-json.mjs), so a
 * start of the compiled service parses no YAML; from source, where no such file is beside the
 * code, openapi.yaml itself.
 */
export function routerDefinition(): Document | string {
  const built = fileURLToPath(new URL('../openapi.json', import.meta.url));
  return existsSync(built) ? (JSON.parse(readFileSync(built, 'utf8')) as Document) : OPENAPI_PATH;
}
