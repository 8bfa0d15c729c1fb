// Valid Metadata objects for data-meta tests, with fields overridable one at a time. A page may
// write data-meta by hand, so an image there may carry only some of its fields (the element reads
// a missing one as null): overrides of `image` and `favicon` may be partial.
import type { ImageMetadata, Metadata } from '../../generated/types.gen.js';

export type DataMeta = Omit<Metadata, 'image' | 'favicon' | 'fetched_url'> & {
  image: Partial<ImageMetadata>;
  favicon: Partial<ImageMetadata>;
  fetched_url?: string | null;
};

export function metadataFor(upstreamOrigin: string, overrides: Partial<DataMeta> = {}): DataMeta {
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
    site_name: null,
    lang: null,
    author: null,
    published_time: null,
    theme_color: null,
    embed: null,
    ...overrides,
  };
}
