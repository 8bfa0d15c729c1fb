// What the API needs from the metadata pipeline (DESIGN.md "Flow of one request").

import type { Metadata } from '../../generated/types.gen.js';

export type Prefer = 'og' | 'twitter';

export interface MetadataService {
  /** Metadata of the page at `target`; throws FetchFailed / FetchTimeout / Overloaded. */
  get(target: URL, prefer: Prefer): Promise<Metadata>;
  close(): Promise<void>;
}
