// What every safety provider is: a named check of one URL and its head that answers
// some SafetyTags. The runner (run-providers.ts) calls them in parallel and unites their answers;
// a provider never decides what happens when another one fails.

import { SafetyTagSchema } from '../../generated/schemas.gen.js';
import type { SafetyTag } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';

export interface SafetyInput {
  /** The page URL that is judged (the caller chooses: the final URL after redirects). */
  url: URL;
  /** The page's head; null for non-HTML targets (an image, a PDF): head signals then say nothing. */
  tags: RawTags | null;
}

export interface SafetyProvider {
  /** Stable, short, used in logs and as the failure counter's label. */
  readonly name: string;
  /**
   * The tags this provider finds, possibly none. May throw or reject: the runner logs and counts
   * that and uses nothing from it (docs/SPEC.md: safety_tags are empty "when the safety lookup fails").
   * Should stop work when `signal` aborts; the runner stops waiting for it then anyway.
   */
  check(input: SafetyInput, signal: AbortSignal): Promise<readonly SafetyTag[]> | readonly SafetyTag[];
  /** Releases timers and watchers. */
  close?(): void;
}

/** The enum order of SafetyTag in openapi.yaml: results are always listed in this order. */
const SAFETY_TAG_ORDER: readonly SafetyTag[] = SafetyTagSchema.enum;

/** De-duplicates and sorts tags into the enum order. */
export function inEnumOrder(tags: Iterable<SafetyTag>): SafetyTag[] {
  const found = new Set(tags);
  return SAFETY_TAG_ORDER.filter((tag) => found.has(tag));
}
