// Every way an upstream fetch can fail becomes one of three typed errors (STYLE.md 4): FetchTimeout
// when the deadline passed, Overloaded from the limiter, FetchFailed for all the rest. Each carries
// the failure the caller is told (fetch-failure.ts: a blocked address reads like any unreachable
// site) and, in `reason`, the detail for logs.

import { FetchFailed, FetchTimeout, LinkPeekError } from '../errors.js';
import { BlockedAddressError } from './address.js';
import { classifyNetworkError, failures, findInChain } from './fetch-failure.js';
import type { FetchLifetime } from './lifetime.js';

/** Which part of the exchange failed; prefixes the logged reason. */
export type FetchStage = 'request' | 'body';

/** `hostname`: the host being fetched, named in the message when its name does not resolve. */
export function toFetchError(err: unknown, stage: FetchStage, lifetime: FetchLifetime, hostname: string): LinkPeekError {
  // The deadline wins over whatever error the abort caused downstream (premature close, reset).
  if (lifetime.timedOut) {
    return err instanceof FetchTimeout ? err : new FetchTimeout(`deadline of ${lifetime.deadlineMs} ms passed during ${stage}`, { cause: err, deadlineMs: lifetime.deadlineMs });
  }
  if (err instanceof LinkPeekError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new FetchTimeout(`${stage}: ${code}`, { cause: err, deadlineMs: lifetime.deadlineMs });
  }
  if (lifetime.callerAborted) return new FetchFailed('aborted by the caller', { cause: err });
  const blocked = findBlocked(err);
  if (blocked) {
    const detail = `blocked address: ${blocked.hostname} → ${blocked.address} (${blocked.why})`;
    return new FetchFailed(detail, { cause: err, failure: failures.unreachable() });
  }
  return new FetchFailed(`${stage}: ${describe(err)}`, { cause: err, failure: classifyNetworkError(err, hostname) });
}

/** The guard's error, wherever undici or net wrapped it (cause chain, AggregateError of Happy Eyeballs). */
export function findBlocked(err: unknown): BlockedAddressError | null {
  return findInChain(err, (e) => e instanceof BlockedAddressError) as BlockedAddressError | null;
}

function describe(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code.startsWith('Z_')) return `corrupt content-encoding (${code})`;
  if (typeof code === 'string' && /^ERR_(_|BROTLI)/.test(code)) return `corrupt content-encoding (${code})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timeout';
  return typeof code === 'string' ? code : String(message ?? err);
}
