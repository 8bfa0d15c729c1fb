// Runs every provider in parallel and unites what they find within the caller's budget:
// a failing or slow provider contributes nothing, and its failure is logged and
// counted. Never rejects: a lookup that fails yields no tag (docs/SPEC.md SafetyTag, safety_tags).

import type { SafetyTag } from '../../generated/types.gen.js';
import { inEnumOrder, type SafetyInput, type SafetyProvider } from './provider.js';

/** A provider that had not answered when the caller's signal aborted. */
export class ProviderTimedOut extends Error {
  constructor(readonly provider: string) {
    super(`safety provider ${provider} did not answer within the enrichment budget`);
    this.name = 'ProviderTimedOut';
  }
}

/** Called once per provider that threw, rejected or was still running at the abort. */
export type ProviderFailureHandler = (provider: string, err: unknown) => void;

export async function runProviders(
  providers: readonly SafetyProvider[],
  input: SafetyInput,
  signal: AbortSignal,
  onFailure: ProviderFailureHandler,
): Promise<SafetyTag[]> {
  const found: SafetyTag[] = [];
  const pending = new Set<string>();
  const fail = (name: string, err: unknown) => {
    try {
      onFailure(name, err);
    } catch {
      // A broken counter or logger must not turn a safety lookup into a failed request.
    }
  };

  if (signal.aborted) {
    for (const provider of providers) fail(provider.name, new ProviderTimedOut(provider.name));
    return [];
  }

  const runs = providers.map(async (provider) => {
    pending.add(provider.name);
    try {
      const tags = await provider.check(input, signal);
      // Answers that arrive after the abort are not used: the response has already been built.
      if (!signal.aborted) found.push(...tags);
    } catch (err) {
      if (!signal.aborted) fail(provider.name, err);
    } finally {
      pending.delete(provider.name);
    }
  });

  // The providers still running when the signal aborts are the slow ones. Taken inside the abort
  // listener, which runs before any provider's own abort rejection settles (those are microtasks).
  let slow: string[] = [];
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => {
      slow = [...pending];
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([Promise.all(runs), aborted]);
  if (onAbort) signal.removeEventListener('abort', onAbort);

  for (const name of slow) fail(name, new ProviderTimedOut(name));
  return inEnumOrder(found);
}
