// The engine in-process: createLinkPeek(options) is what the package exports (src/index.ts) and
// what the CLI runs. metadata() is the service's pipeline for one URL (the same checks of the URL,
// the same guarded fetch, cache and answer); extract() reads HTML the caller has, with no network
// (extract-html.ts). Every failure is a PreviewError with the API's reason and message.

import type { Metadata } from '../../generated/types.gen.js';
import type { Config } from '../config.js';
import { parseTarget } from '../fetch/target.js';
import type { Prefer } from '../metadata/service-types.js';
import { createSafetyCheck, type SafetyCheck } from '../safety/index.js';
import { createEngine, type EngineDeps } from './engine.js';
import { checkPrefer, extractFromHtml, type ExtractHtmlOptions } from './extract-html.js';
import { configFromOptions, type LinkPeekOptions } from './options.js';
import { asPreviewError, invalidArgument } from './preview-error.js';

export interface MetadataOptions {
  /** Which family wins where Open Graph and Twitter Card disagree (the API's `prefer`; default og). */
  prefer?: Prefer;
  /**
   * Stops waiting for the answer (the promise rejects with the signal's reason). The fetch itself
   * goes on within REQUEST_DEADLINE_MS: other callers of the same URL share it, and its answer is cached.
   */
  signal?: AbortSignal;
}

export interface LinkPeek {
  /**
   * The Metadata of the page at `url`, as GET /v1/metadata answers it.
   *
   * @param url Required: the page's absolute http(s) URL.
   * @throws PreviewError the API's 422 reason and message, or `invalid_input` naming the bad argument (`url: …`).
   */
  metadata(url: string | URL, options?: MetadataOptions): Promise<Metadata>;
  /**
   * The Metadata of a page the caller already has; no network.
   *
   * @param html The page: a string, or bytes in the page's charset.
   * @param options `url` is required: the page's absolute http(s) URL, which its links resolve
   *   against (nothing is fetched from it, and it may be private). `headers` and `prefer` are optional.
   * @throws PreviewError `invalid_input` when an argument is missing or bad; its message names the
   *   argument (`url: is required: …`).
   */
  extract(html: string | Uint8Array, options: ExtractHtmlOptions): Promise<Metadata>;
  /** Ends what the engine holds open (connections, list watchers); fetches in flight end first. */
  close(): Promise<void>;
}

/**
 * A LinkPeek engine with the service's settings (camelCase; defaults as the service's). Throws a
 * ConfigError naming the first option that cannot be used.
 */
export function createLinkPeek(options: LinkPeekOptions = {}): LinkPeek {
  return linkPeekOver(configFromOptions(options));
}

/** The library's face over an engine built from `config` (the CLI's settings come from the environment). */
export function linkPeekOver(config: Config, deps: Pick<EngineDeps, 'logger'> = {}): LinkPeek {
  const engine = createEngine(config, deps);
  // Safety tags offline: every provider but Safe Browsing, the one that asks a server.
  let offlineSafety: SafetyCheck | null = null;
  const target = { allowPrivateNetworks: config.allowPrivateNetworks };

  async function metadata(url: string | URL, options: MetadataOptions = {}): Promise<Metadata> {
    const signal = options?.signal;
    signal?.throwIfAborted();
    try {
      if (typeof url !== 'string' && !(url instanceof URL)) throw invalidArgument('url', 'must be a string or a URL');
      const answer = engine.metadata.get(parseTarget(String(url), target), checkPrefer(options?.prefer));
      const { metadata } = await (signal ? untilAborted(answer, signal) : answer);
      // The cache keeps this object for every caller: each gets a copy of its own.
      return structuredClone(metadata);
    } catch (err) {
      if (signal?.aborted && err === signal.reason) throw err;
      throw asPreviewError(err);
    }
  }

  return {
    metadata,
    async extract(html, options) {
      try {
        offlineSafety ??= createSafetyCheck({ ...config, safeBrowsingApiKey: null }, { logger: deps.logger });
        return await extractFromHtml(html, options, config, offlineSafety);
      } catch (err) {
        throw asPreviewError(err);
      }
    },
    async close() {
      offlineSafety?.close();
      await engine.close();
    },
  };
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
