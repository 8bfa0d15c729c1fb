// What the API needs from the metadata pipeline (DESIGN.md "Flow of one request").

import type { Metadata } from '../../generated/types.gen.js';

export type Prefer = 'og' | 'twitter';

export interface MetadataService {
  /**
   * Metadata of the page at `target`, fetched on behalf of the client at IP `client` (its fair
   * share of fetch slots); throws FetchFailed / FetchTimeout / Overloaded.
   */
  get(target: URL, prefer: Prefer, client?: string): Promise<Metadata>;
  close(): Promise<void>;
}
