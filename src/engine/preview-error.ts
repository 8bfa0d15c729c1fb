// The library's one error: what the API would have answered, as a value. Built from errors.ts's
// toHttpError, the one mapping of errors to answers, so `reason` and `message` are those of the
// API's bodies (docs/SPEC.md "Errors"): the 422's reason and message; for a 400, each problem's
// message after the name of the argument it is about ("url: is required…").

import type { FailureReason } from '../../generated/types.gen.js';
import { InvalidInput, toHttpError, type FieldProblem } from '../errors.js';

/**
 * What went wrong: a FailureReason of the API's 422 (`http_status`, `timeout`,
 * `name_not_resolved`…), or `invalid_input` (the API's 400), `overloaded` (503) or `internal`
 * (500, a bug).
 */
export type PreviewErrorReason = FailureReason | 'invalid_input' | 'overloaded' | 'internal';

export class PreviewError extends Error {
  override readonly name = 'PreviewError';
  constructor(
    readonly reason: PreviewErrorReason,
    message: string,
    /** The status the HTTP API answers for the same request. */
    readonly status: number,
    /** For `invalid_input`: each problem, `path` naming the argument (['url'], ['prefer'], ['html']). */
    readonly problems: readonly FieldProblem[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The problems of one argument, as the API would word them. */
export function invalidArgument(path: string, message: string): PreviewError {
  return asPreviewError(new InvalidInput([{ path: [path], message }]));
}

/** Any error of the engine as a PreviewError; an AbortError of the caller's signal stays itself. */
export function asPreviewError(err: unknown): PreviewError {
  if (err instanceof PreviewError) return err;
  const { status, body } = toHttpError(err, 'metadata');
  if (err instanceof InvalidInput) {
    // The API's path starts with where the parameter was ("query"); the library's is the argument.
    const problems = err.problems.map((p) => ({ path: p.path[0] === 'query' ? p.path.slice(1) : p.path, message: p.message }));
    // The message names each argument, as a thrown error is often read without its problems.
    const message = problems.map((p) => (p.path.length > 0 ? `${p.path.join('.')}: ${p.message}` : p.message)).join('; ');
    return new PreviewError('invalid_input', message, status, problems, { cause: err });
  }
  const { message, reason } = body as { message: string; reason?: FailureReason };
  if (reason !== undefined) return new PreviewError(reason, message, status, [], { cause: err });
  return new PreviewError(status === 503 ? 'overloaded' : 'internal', message, status, [], { cause: err });
}
