// The best compressed forms of the static files (brotli at quality 11, gzip at level 9), made
// once by `npm run build` into dist/static/ so that the first request after a start already gets
// them: brotli 11 of Swagger UI's 1.7 MB bundle takes seconds of CPU, too long to add to every
// start (bench/results/static-files.md). Each form is named by the SHA-256 of the bytes it
// compresses, so a copy made from other bytes (an edited openapi.yaml, another swagger-ui-dist)
// is never found for these, and a stale dist/ can only mean the forms are made at run time.

import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { COMPRESS_MIN_BYTES, compressOnce, type CodedBodies } from '../content-coding.js';
import { PACKAGE_ROOT } from '../package-root.js';

export const PRECOMPRESSED_DIR = path.join(PACKAGE_ROOT, 'dist/static');

const CODINGS = ['br', 'gzip'] as const;
const EXTENSIONS = { br: 'br', gzip: 'gz' } as const;

/** The name the forms of `bytes` are stored under: their SHA-256, in hex. */
export function contentDigest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const formPath = (dir: string, digest: string, coding: (typeof CODINGS)[number]) => path.join(dir, `${digest}.${EXTENSIONS[coding]}`);

/**
 * The forms of `bytes` kept in `dir`, or null when either is missing or unreadable (they are then
 * made at run time). Bodies too small to be worth compressing have none, and need none.
 */
export async function readPrecompressed(bytes: Buffer, dir: string = PRECOMPRESSED_DIR): Promise<CodedBodies | null> {
  if (bytes.length < COMPRESS_MIN_BYTES) return { identity: bytes, br: null, gzip: null };
  const digest = contentDigest(bytes);
  try {
    const [br, gzip] = await Promise.all(CODINGS.map((coding) => readFile(formPath(dir, digest, coding))));
    return { identity: bytes, br, gzip };
  } catch {
    return null;
  }
}

/** Writes the forms of every file in `sources` into `dir`, emptied first (no stale copies kept). */
export async function precompress(
  sources: readonly string[],
  dir: string = PRECOMPRESSED_DIR,
): Promise<{ file: string; bytes: number; br: number; gzip: number }[]> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return Promise.all(
    sources.map(async (file) => {
      const bytes = await readFile(file);
      const forms = await compressOnce(bytes);
      const digest = contentDigest(bytes);
      for (const coding of CODINGS) {
        const form = forms[coding];
        if (form) await writeFile(formPath(dir, digest, coding), form);
      }
      return { file, bytes: bytes.length, br: forms.br?.length ?? bytes.length, gzip: forms.gzip?.length ?? bytes.length };
    }),
  );
}
