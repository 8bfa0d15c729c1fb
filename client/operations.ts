// The service's operations, as generated from openapi.yaml, with the result types the generated
// client leaves out: a request that gets no answer (network failure, abort, timeout) resolves
// with fetch's error and no response, and so does a call without a usable baseUrl (no request is
// built: `request` is undefined too), which `throwOnError` turns into a rejection.

import type { TDataShape } from '../generated/client/index.js';
import * as generated from '../generated/sdk.gen.js';
import type { Options } from '../generated/sdk.gen.js';
import type * as api from '../generated/types.gen.js';
import { checkBaseUrl, client as defaultClient } from './client.js';

/**
 * What an operation resolves with (without `throwOnError`): the answer's data, or its error body,
 * or, when no answer came, the error fetch threw (a TypeError for a network failure, a
 * DOMException for an abort or a timeout, or the signal's own reason) and `response: undefined`;
 * with no usable baseUrl, a TypeError saying what to pass, and `request: undefined` as well.
 */
export type Result<TData, TError> =
  | { data: TData; error: undefined; request: Request; response: Response }
  | { data: undefined; error: TError; request: Request; response: Response }
  | { data: undefined; error: Error; request: Request; response: undefined }
  | { data: undefined; error: TypeError; request: undefined; response: undefined };

/** With `throwOnError: true` the call resolves only with data; see LinkPeekHttpError for what it throws. */
export type ResultOf<TData, TError, ThrowOnError extends boolean> = ThrowOnError extends true
  ? { data: TData; request: Request; response: Response }
  : Result<TData, TError>;

// Operations the contract lists no error body for may still answer one (a 429, a 500): typed unknown.
type Operation<TData extends TDataShape, TResponses, TErrors = { default: unknown }> = <ThrowOnError extends boolean = false>(
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends T` asks whether every field of T is optional
  ...options: {} extends Omit<TData, 'url'> ? [options?: Options<TData, ThrowOnError>] : [options: Options<TData, ThrowOnError>]
) => Promise<ResultOf<TResponses[keyof TResponses], TErrors[keyof TErrors], ThrowOnError>>;

function operation<TData extends TDataShape, TResponses, TErrors = { default: unknown }>(
  call: (options: Options<TData, boolean>) => Promise<unknown>,
): Operation<TData, TResponses, TErrors> {
  const checked = async (options: Options<TData, boolean> = {} as Options<TData, boolean>) => {
    const client = options.client ?? defaultClient;
    try {
      checkBaseUrl(options.baseUrl ?? client.getConfig().baseUrl);
    } catch (error) {
      // Like any request that gets no answer: in `error`, or thrown when asked to throw.
      if (options.throwOnError ?? client.getConfig().throwOnError) throw error;
      return { data: undefined, error, request: undefined, response: undefined };
    }
    return call(options);
  };
  return checked as unknown as Operation<TData, TResponses, TErrors>;
}

/** Fetch a public page and return normalized link-preview metadata. */
export const getMetadata = operation<api.GetMetadataData, api.GetMetadataResponses, api.GetMetadataErrors>(generated.getMetadata);
/** Fetch a JPEG, PNG, GIF or WebP image through the service, with permissive CORS headers. */
export const proxyImage = operation<api.ProxyImageData, api.ProxyImageResponses, api.ProxyImageErrors>(generated.proxyImage);
/** Liveness and readiness of the instance. */
export const getHealth = operation<api.GetHealthData, api.GetHealthResponses, api.GetHealthErrors>(generated.getHealth);
/** The `<linkpeek-preview>` element's ES module, as text. */
export const getComponent = operation<api.GetComponentData, api.GetComponentResponses>(generated.getComponent);
/** The showcase page, as HTML text. */
export const getShowcase = operation<api.GetShowcaseData, api.GetShowcaseResponses>(generated.getShowcase);
/** The service's OpenAPI document, as YAML text. */
export const getOpenApiDocument = operation<api.GetOpenApiDocumentData, api.GetOpenApiDocumentResponses>(generated.getOpenApiDocument);
/** Prometheus metrics of the instance, as text. */
export const getMetrics = operation<api.GetMetricsData, api.GetMetricsResponses>(generated.getMetrics);
