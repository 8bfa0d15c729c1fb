// The built element (dist/element/component.js, made by `npm run build:element`), read from
// disk once and then served from memory. A missing build is not cached, so building while the
// service runs makes the next request succeed.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

export const DEFAULT_BUNDLE_PATH = path.join(PACKAGE_ROOT, 'dist/element/component.js');

export interface ComponentBundle {
  /** The file's bytes, or null when it is not built. */
  read(): Promise<Buffer | null>;
}

export function componentBundle(path: string = DEFAULT_BUNDLE_PATH): ComponentBundle {
  let bytes: Buffer | null = null;
  return {
    async read() {
      if (bytes) return bytes;
      try {
        bytes = await readFile(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      return bytes;
    },
  };
}
