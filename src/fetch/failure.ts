// Every way an upstream fetch can fail becomes one of three typed errors (STYLE.md 4): FetchTimeout
// when the deadline passed, Overloaded from the limiter, FetchFailed for all the rest. FetchFailed
// has one public message whatever happened (a refused port and a blocked address look the same to
// the caller: no port scanning through us); `reason` names the cause for logs.

import { FetchFailed, FetchTimeout, LinkPeekError } from '../errors.js';
import { BlockedAddressError } from './address.js';
import type { FetchLifetime } from './lifetime.js';

/** Which part of the exchange failed; prefixes the logged reason. */
export type FetchStage = 'request' | 'body';

export function toFetchError(err: unknown, stage: FetchStage, lifetime: FetchLifetime): LinkPeekError {
  // The deadline wins over whatever error the abort caused downstream (premature close, reset).
  if (lifetime.timedOut) {
    return err instanceof FetchTimeout ? err : new FetchTimeout(`deadline of ${lifetime.deadlineMs} ms passed during ${stage}`, { cause: err });
  }
  if (err instanceof LinkPeekError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new FetchTimeout(`${stage}: ${code}`, { cause: err });
  }
  if (lifetime.callerAborted) return new FetchFailed('aborted by the caller', { cause: err });
  const blocked = findBlocked(err);
  if (blocked) return new FetchFailed(`blocked address: ${blocked.hostname} → ${blocked.address} (${blocked.why})`, { cause: err });
  return new FetchFailed(`${stage}: ${describe(err)}`, { cause: err });
}

/** The guard's error, wherever undici or net wrapped it (cause chain, AggregateError of Happy Eyeballs). */
export function findBlocked(err: unknown, depth = 0): BlockedAddressError | null {
  if (err instanceof BlockedAddressError) return err;
  if (depth > 4 || typeof err !== 'object' || err === null) return null;
  const inner = err instanceof AggregateError ? err.errors : [(err as { cause?: unknown }).cause];
  for (const e of inner) {
    const found = findBlocked(e, depth + 1);
    if (found) return found;
  }
  return null;
}

function describe(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code.startsWith('Z_')) return `corrupt content-encoding (${code})`;
  if (typeof code === 'string' && /^ERR_(_|BROTLI)/.test(code)) return `corrupt content-encoding (${code})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timeout';
  return typeof code === 'string' ? code : String(message ?? err);
}
