// The page's JSON-LD (the head's `<script type=application/ld+json>` texts) read as plain JSON:
// parsed with JSON.parse, never evaluated, no @context fetched or expanded. Terms are read as
// schema.org's short names, which is how pages write them. What the extra rules need from it:
// the main entity's author, dates and publisher name, and the site's name.

import { getDomain } from 'tldts';
import { EXTRA_LIMITS } from './normalize-extra.js';

/** Bounds on the walk, far above real heads (bench/results/page-shapes.md: 14 nodes, depth 6 at most). */
export const JSON_LD_LIMITS = {
  /** Nesting levels read; anything deeper is ignored. */
  depth: 16,
  /** Objects and arrays visited over all of a page's scripts; the rest is ignored. */
  nodes: 2000,
} as const;

export interface JsonLdFacts {
  /** The main entity's author names (`author`, else `creator`, which schema.org makes the same), joined with ", ". */
  author: string | null;
  /** The main entity's `datePublished`, raw. */
  datePublished: string | null;
  /** The main entity's `dateCreated`, raw. */
  dateCreated: string | null;
  /** The main entity's `uploadDate` (a VideoObject's or an ImageObject's: when it was published), raw. */
  uploadDate: string | null;
  /**
   * The main entity's `publisher.name`, else a `WebSite` node's name, else the name of an
   * `Organization` whose `url` is the home page of the page's own site. Any other Organization may
   * be what the page is about (a company's page on LinkedIn names the company, not LinkedIn).
   */
  publisherName: string | null;
}

type Node = Record<string, unknown>;

/** Kinds of node by their types, in the order the main entity is looked for (KINDS' index). */
const KINDS = [
  /** The page's article: schema.org Article and its kin. */
  /Article$|^(BlogPosting|LiveBlogPosting|SocialMediaPosting|DiscussionForumPosting|Report)$/,
  /** Other works a page can be (a video's, a photo's, a song's page, a recipe's): their author and date are the page's. */
  /^(CreativeWork|VideoObject|AudioObject|ImageObject|MediaObject|Clip|MusicRecording|MusicAlbum|PodcastEpisode|Recipe|Review|HowTo|Dataset|Photograph)$/,
  /** The page itself (WebPage, ItemPage, ProfilePage, …): last, after what the page is about. */
  /^(WebPage|\w+Page)$/,
  /^WebSite$/,
  /Organization$|^Corporation$/,
];
/** Article, other work, page: the kinds a main entity can be, best first; then the site's kinds. */
const MAIN_KINDS = [0, 1, 2];
const WEBSITE = 3;
const ORGANIZATION = 4;

/**
 * The keys or type names a script must mention for a fact to be there: a page whose JSON-LD names
 * none of them has no value for it, and its JSON-LD is not parsed for that fact. A key written
 * with JSON escapes (`"\u0061uthor"`) is not seen; no page writes one.
 */
const FACT_MARKERS: Record<keyof JsonLdFacts, readonly string[]> = {
  author: ['"author"', '"creator"'],
  datePublished: ['"datePublished"'],
  dateCreated: ['"dateCreated"'],
  uploadDate: ['"uploadDate"'],
  publisherName: ['"publisher"', 'WebSite', 'Organization', 'Corporation'],
};

/**
 * A page's JSON-LD facts, each read when first asked for: the texts are parsed at most once, and
 * not at all when no script mentions what the fact is read from (most pages that reach a JSON-LD
 * source lack that fact, and parsing is most of the cost of reading one).
 */
export class PageJsonLd {
  private facts: JsonLdFacts | null = null;

  /** `pageUrl`: where the page was fetched from, to tell the site's own Organization node; null when unknown. */
  constructor(
    private readonly texts: readonly string[],
    private readonly pageUrl: URL | null = null,
  ) {}

  fact(name: keyof JsonLdFacts): string | null {
    if (this.facts === null) {
      const markers = FACT_MARKERS[name];
      if (!this.texts.some((text) => markers.some((marker) => text.includes(marker)))) return null;
      this.facts = readJsonLd(this.texts, this.pageUrl);
    }
    return this.facts[name];
  }
}

/** Reads the facts from a page's JSON-LD texts (of the page at `pageUrl`); bad JSON is skipped, never thrown. */
export function readJsonLd(texts: readonly string[], pageUrl: URL | null = null): JsonLdFacts {
  const graph = new Graph();
  for (const text of texts) {
    const parsed = parseJson(text);
    if (parsed !== undefined) graph.add(parsed, 0);
  }
  // Each entity's kind once (its first type that has one); the main entities in KINDS' order.
  const kinds = graph.entities.map((node) => kindOf(node));
  const main = MAIN_KINDS.flatMap((kind) => graph.entities.filter((_, i) => kinds[i] === kind));
  const first = <T>(read: (node: Node) => T | null): T | null => {
    for (const node of main) {
      const value = read(node);
      if (value !== null) return value;
    }
    return null;
  };
  const named = (kind: number, also: (node: Node) => boolean = () => true) =>
    nameOf(graph.entities.find((node, i) => kinds[i] === kind && nameOf(node) !== null && also(node)));
  return {
    author: first((node) => authorOf(node.author, graph) ?? authorOf(node.creator, graph)),
    datePublished: first((node) => textOf(node.datePublished)),
    dateCreated: first((node) => textOf(node.dateCreated)),
    uploadDate: first((node) => textOf(node.uploadDate)),
    publisherName:
      first((node) => nameOf(graph.resolve(firstOf(node.publisher)))) ??
      named(WEBSITE) ??
      named(ORGANIZATION, (node) => isHomePageOf(textOf(node.url), pageUrl)),
  };
}

/** Whether `url` is the home page (path `/`, nothing after it) of a host of `pageUrl`'s registrable domain. */
function isHomePageOf(url: string | null, pageUrl: URL | null): boolean {
  if (url === null || pageUrl === null || !URL.canParse(url)) return false;
  const home = new URL(url);
  if (home.pathname !== '/' || home.search !== '' || !/^https?:$/.test(home.protocol)) return false;
  const site = getDomain(pageUrl.hostname);
  return site !== null && getDomain(home.hostname) === site;
}

/** The best kind (KINDS' index) among a node's types, or -1. */
function kindOf(node: Node): number {
  let best = -1;
  for (const type of typesOf(node)) {
    const kind = KINDS.findIndex((pattern) => pattern.test(type));
    if (kind !== -1 && (best === -1 || kind < best)) best = kind;
  }
  return best;
}

/** A `<![CDATA[ … ]]>` wrapper (XHTML habits, and how some serialisers save pages), comment markers too. */
const CDATA_START = /^\s*(?:\/\/|\/\*)?\s*<!\[CDATA\[(?:\s*\*\/)?/;
const CDATA_END = /(?:\/\/|\/\*)?\s*\]\]>(?:\s*\*\/)?\s*$/;
/** Raw control characters: JSON allows none inside a string, where pages do put raw line breaks. */
const CONTROLS = /[\u0000-\u001f]+/g;

/**
 * JSON.parse of one script's text. When that fails, once more without a CDATA wrapper and with raw
 * control characters as spaces (outside strings they are whitespace anyway); then it is skipped.
 */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Retried below with the pages' habits undone.
  }
  try {
    return JSON.parse(text.replace(CDATA_START, '').replace(CDATA_END, '').replace(CONTROLS, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The nodes of all scripts: `entities` are the top-level ones (a script's object, the items of a
 * top-level array or of an `@graph`, and their `mainEntity`), in document order; every object
 * with an `@id` and more is indexed so a reference (`"author": {"@id": …}`) finds its node.
 */
class Graph {
  readonly entities: Node[] = [];
  private readonly byId = new Map<string, Node>();
  private visited = 0;

  add(value: unknown, depth: number): void {
    if (typeof value !== 'object' || value === null || depth > JSON_LD_LIMITS.depth) return;
    if (++this.visited > JSON_LD_LIMITS.nodes) return;
    if (Array.isArray(value)) {
      for (const item of value) this.add(item, depth + 1);
      return;
    }
    const node = value as Node;
    if (Array.isArray(node['@graph'])) this.add(node['@graph'], depth + 1);
    if (node['@type'] !== undefined) this.entities.push(node);
    this.index(node, depth);
    const main = node.mainEntity;
    if (typeof main === 'object' && main !== null && !Array.isArray(main) && (main as Node)['@type'] !== undefined) {
      this.entities.push(main as Node);
    }
  }

  /** Indexes `node` and the objects nested in it by their `@id`. */
  private index(node: Node, depth: number): void {
    const id = node['@id'];
    if (typeof id === 'string' && Object.keys(node).length > 1 && !this.byId.has(id)) this.byId.set(id, node);
    if (depth >= JSON_LD_LIMITS.depth) return;
    for (const key in node) {
      const child = node[key];
      if (key === '@graph' || typeof child !== 'object' || child === null) continue;
      if (++this.visited > JSON_LD_LIMITS.nodes) return;
      if (!Array.isArray(child)) this.index(child as Node, depth + 1);
      else for (const item of child) if (typeof item === 'object' && item !== null && !Array.isArray(item)) this.index(item as Node, depth + 1);
    }
  }

  /** The node a reference names, or the value itself. */
  resolve(value: unknown): Node | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const node = value as Node;
    const id = node['@id'];
    if (typeof id === 'string' && Object.keys(node).length === 1) return this.byId.get(id) ?? null;
    return node;
  }
}

/** `@type` as a list of names ("Article", or ["Person", "Organization"]); a full IRI counts by its last part. */
function typesOf(node: Node): string[] {
  const type = node['@type'];
  const list = Array.isArray(type) ? type : [type];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.slice(t.lastIndexOf('/') + 1));
}

/** Author names: a string, a Person (or a reference to one), or an array of those. */
function authorOf(value: unknown, graph: Graph): string | null {
  const names: string[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    const name = typeof item === 'string' ? textOf(item) : nameOf(graph.resolve(item));
    if (name !== null && !names.includes(name)) names.push(name);
    // The field's normaliser cuts the joined names; no need to gather past its bound.
    if (names.join(', ').length > EXTRA_LIMITS.author) break;
  }
  return names.length === 0 ? null : names.join(', ');
}

function nameOf(node: Node | null | undefined): string | null {
  return node ? textOf(node.name) : null;
}

/** A JSON-LD text value: a string, a value object (`{"@value": …}`), or the first of a list. */
function textOf(value: unknown): string | null {
  const item = firstOf(value);
  const text = typeof item === 'object' && item !== null ? (item as Node)['@value'] : item;
  return typeof text === 'string' && text.trim() !== '' ? text : null;
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}
