// linkpeek-client: the typed fetch SDK of the LinkPeek API. The operations and types are
// generated from openapi.yaml (generated/, never edited by hand); this package adds a client that
// requires its base URL, Error instances for `throwOnError`, and result types that include a
// request that got no answer.

export { client, createClient } from './client.js';
export { LinkPeekHttpError, type LinkPeekHttpErrorOf } from './errors.js';
export { proxiedImageUrl } from './proxied-image.js';
export { retryAfterMs, withRetry, type RetryOptions } from './retry.js';
export { getComponent, getHealth, getMetadata, getMetrics, getOpenApiDocument, getShowcase, proxyImage } from './operations.js';
export type { Result, ResultOf } from './operations.js';
export type { Client, Config } from '../generated/client/index.js';
export type { Options } from '../generated/sdk.gen.js';
export type * from '../generated/types.gen.js';

import type { LinkPeekHttpErrorOf } from './errors.js';
import type { GetMetadataErrors, ProxyImageErrors } from '../generated/types.gen.js';
/** What `getMetadata({ …, throwOnError: true })` throws for an error answer, typed by status. */
export type GetMetadataHttpError = LinkPeekHttpErrorOf<GetMetadataErrors>;
/** What `proxyImage({ …, throwOnError: true })` throws for an error answer, typed by status. */
export type ProxyImageHttpError = LinkPeekHttpErrorOf<ProxyImageErrors>;
