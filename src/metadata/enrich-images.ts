// Image and favicon probes as an enrichment step. Every distinct URL among the og
// variant's image, the twitter variant's image and the favicon is probed once, in parallel,
// within the enrichment budget; each result is applied to every slot with that URL, in both
// variants. The probe only adds: tags win (image.size comes only from og:image:size).

import type { ImageMetadata } from '../../generated/types.gen.js';
import type { Config } from '../config.js';
import type { SafeFetch } from '../fetch/types.js';
import { probeImage, type ProbeOutcome, type ProbeResult } from '../images/probe.js';
import { baseUrlOf, defaultFavicon } from './extract.js';
import { normalizeMimeType, normalizeUrl } from './normalize.js';
import { FAVICON_TIERS, indexTags } from './rules.js';
import type { Enricher, EnrichmentInput } from './enrichment.js';

export type ProbeKind = 'image' | 'favicon';

export interface ImageEnricherDeps {
  safeFetch: SafeFetch;
  config: Config;
  /** Metrics: one call per probed URL and kind of slot it filled. */
  onProbe?: (kind: ProbeKind, outcome: ProbeOutcome) => void;
}

/** One ImageMetadata of the answer that a probe may fill. */
interface Slot {
  kind: ProbeKind;
  image: ImageMetadata;
  /** The favicon is LinkPeek's guess (/favicon.ico, the page declared none), not page data. */
  guessed: boolean;
}

export function imageEnricher({ safeFetch, config, onProbe }: ImageEnricherDeps): Enricher {
  // PROBE_IMAGES=false (benchmarks against peers that do not probe): the fields stay as tagged.
  if (!config.probeImages) return async () => {};

  return async (input, signal) => {
    const guessed = isGuessedFavicon(input);
    const slots: Slot[] = [
      { kind: 'image', image: input.og.image, guessed: false },
      { kind: 'image', image: input.twitter.image, guessed: false },
      { kind: 'favicon', image: input.og.favicon, guessed },
      { kind: 'favicon', image: input.twitter.favicon, guessed },
    ];
    const byUrl = new Map<string, Slot[]>();
    for (const slot of slots) {
      const url = slot.image.url;
      if (url == null) continue;
      byUrl.set(url, [...(byUrl.get(url) ?? []), slot]);
    }
    await Promise.all(
      [...byUrl].map(async ([url, group]) => {
        const result = await probeImage(new URL(url), { safeFetch, signal, client: input.client });
        for (const kind of new Set(group.map((slot) => slot.kind))) onProbe?.(kind, result.outcome);
        for (const slot of group) apply(result, slot);
      }),
    );
  };
}

/**
 * What a probe result does to one slot:
 * - image: type, width and height fill what the tags left null; cors_safe from the response.
 * - not_image: cors_safe false (a browser gets no image there). The guessed /favicon.ico is
 *   dropped (url null): it is our guess, proven dead, and a dead link is worse than none
 *   (openapi.yaml: favicon.url is nullable). A URL the page declared stays: it is page data.
 * - failed, timeout: nothing changes, cors_safe stays absent (docs/SPEC.md: "absent means direct
 *   browser access may be blocked"; we do not know).
 */
function apply(result: ProbeResult, { image, guessed }: Slot): void {
  if (result.outcome === 'not_image') {
    if (guessed) {
      image.url = null;
      image.type = null;
      image.width = null;
      image.height = null;
      image.size = null;
      delete image.cors_safe;
    } else {
      image.cors_safe = false;
    }
    return;
  }
  if (result.outcome !== 'image') return; // failed, timeout
  // A type from the response's label is bounded like one from the page's tags.
  image.type ??= normalizeMimeType(result.type);
  fillDimensions(image, result.width, result.height);
  image.cors_safe = result.corsSafe;
}

/**
 * Tags win. With neither dimension tagged, both come from the bytes. With one tagged, the other
 * keeps the real aspect ratio at the tagged scale (og:image:width 600 on a 1200×630 image gives
 * height 315), so a client reserving space gets the image's shape, not a mix of two scales.
 */
function fillDimensions(image: ImageMetadata, width: number | null, height: number | null): void {
  if (width === null || height === null || width === 0 || height === 0) {
    image.width ??= width;
    image.height ??= height;
    return;
  }
  const taggedWidth = image.width ?? null;
  const taggedHeight = image.height ?? null;
  if (taggedWidth === null && taggedHeight === null) {
    image.width = width;
    image.height = height;
  } else if (taggedHeight === null) {
    image.height = Math.max(1, Math.round((height * taggedWidth!) / width));
  } else if (taggedWidth === null) {
    image.width = Math.max(1, Math.round((width * taggedHeight) / height));
  }
}

/**
 * True when the favicon is the /favicon.ico fallback of extract.ts pickFavicon: no link of any
 * FAVICON_TIERS resolves to an http(s) URL (or the response was no HTML at all).
 */
function isGuessedFavicon(input: EnrichmentInput): boolean {
  if (input.og.favicon.url !== defaultFavicon(input.finalUrl)) return false;
  if (input.tags === null) return true;
  const base = baseUrlOf(input.tags, input.finalUrl);
  const { links } = indexTags(input.tags);
  return !links.some((link) => FAVICON_TIERS.some((tier) => tier.matches(link)) && normalizeUrl(link.href, base) !== null);
}
