// Valid Metadata objects for data-meta tests, with fields overridable one at a time.
import type { Metadata } from '../../generated/types.gen.js';

export function metadataFor(upstreamOrigin: string, overrides: Partial<Metadata> = {}): Metadata {
  return {
    title: 'Tide pools of the northern coast',
    description: 'A field guide to the anemones, sea stars and crabs that live between the tides, with maps of the best spots.',
    url: `${upstreamOrigin}/articles/tide-pools`,
    image: { url: `${upstreamOrigin}/photo.png`, type: 'image/png', width: 600, height: 314, size: null },
    type: 'article',
    favicon: { url: `${upstreamOrigin}/icon.png`, type: 'image/png', width: 32, height: 32, size: null },
    og: { 'og:title': 'Tide pools of the northern coast', 'og:image:alt': 'Sea stars in a rock pool at low tide' },
    twitter: {},
    safety_tags: [],
    ...overrides,
  };
}
