// What `throwOnError: true` throws when the service answers with an error status: an Error (so
// stack traces, `instanceof Error` and error reporters work) that carries the parsed body, the
// status and the Response. A request that never got an answer rejects with fetch's own error
// (a TypeError for a network failure, a DOMException for an abort or a timeout).

/** An error answer of the service, thrown by an operation called with `throwOnError: true`. */
export class LinkPeekHttpError<TBody = unknown> extends Error {
  override readonly name = 'LinkPeekHttpError';
  /** The HTTP status, e.g. 422 when the page could not be fetched. */
  readonly status: number;
  /** The error body as the service sent it (parsed JSON, or the text when it is not JSON). */
  readonly body: TBody;
  readonly response: Response;
  readonly request: Request;

  constructor(body: TBody, response: Response, request: Request) {
    super(`${request.method} ${new URL(request.url).pathname} answered ${response.status}: ${messageOf(body) ?? response.statusText}`);
    this.status = response.status;
    this.body = body;
    this.response = response;
    this.request = request;
  }
}

/** The human-readable part of any of the service's error bodies (ApiError, ProxyError, ValidationError). */
function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.slice(0, 200) || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const fields = body as { message?: unknown; error?: unknown; errors?: unknown };
  if (typeof fields.message === 'string') return fields.message;
  if (typeof fields.error === 'string') return fields.error;
  if (Array.isArray(fields.errors)) {
    const messages = fields.errors.map((e: { message?: unknown }) => e?.message).filter((m) => typeof m === 'string');
    if (messages.length > 0) return messages.join('; ');
  }
  return undefined;
}

/**
 * The LinkPeekHttpError an operation may throw, typed by status: narrowing on `status` types
 * `body`, e.g. for `getMetadata`, `err.status === 422` gives an ApiError with `reason`, and
 * `err.status === 400` a ValidationError. `TErrors` is the operation's generated `…Errors` type.
 */
export type LinkPeekHttpErrorOf<TErrors> = {
  [S in keyof TErrors & number]: LinkPeekHttpError<TErrors[S]> & { readonly status: S };
}[keyof TErrors & number];
