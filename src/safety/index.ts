// The safety tags of one page (docs/SPEC.md SafetyTag): every provider that the settings
// enable runs in parallel, the result is their union in enum order, and a provider that fails
// or is still running when the enrichment budget ends contributes nothing, is logged and counted.
//
//   ip-host              suspicious_domain  the URL names an IP address
//   machine-made-domain  suspicious_domain  the registrable domain looks generated
//   parking-page         suspicious_domain  the head carries a parking service's markers
//   adult-self-label     adult              RTA label or <meta name=rating content=adult|mature>
//   adult-list           adult              host or parent in SAFETY_ADULT_LIST (when set)
//   threat-list          security_threat    host or parent in SAFETY_THREAT_LIST (when set)
//   safe-browsing        security_threat    Google Safe Browsing match (when SAFE_BROWSING_API_KEY is set)

import type { Config } from '../config.js';
import type { SafetyTag } from '../../generated/types.gen.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { ipHostProvider } from './ip-host.js';
import { listProvider } from './list-provider.js';
import { machineMadeDomainProvider } from './machine-made.js';
import { parkingPageProvider } from './parking.js';
import type { SafetyProvider } from './provider.js';
import { runProviders } from './run-providers.js';
import { safeBrowsingProvider } from './safe-browsing.js';
import { adultSelfLabelProvider } from './self-label.js';
import { WatchedDomainList } from './watched-list.js';

export type { SafetyProvider } from './provider.js';

export interface SafetyCheck {
  /** Resolves (never rejects) with the tags found before `signal` aborted. */
  check(input: { url: URL; tags: RawTags | null }, signal: AbortSignal): Promise<SafetyTag[]>;
  /** Stops list watchers; the check answers from what it has after that. */
  close(): void;
}

export interface SafetyDeps {
  logger?: { warn(obj: object, msg?: string): void };
  /** Counts provider failures (app.ts wires it to a prom-client counter labelled by provider). */
  onProviderFailure?: (provider: string, err: unknown) => void;
  /** The fetch Safe Browsing uses; passed in, so tests use a local server. */
  fetch?: typeof globalThis.fetch;
  /** How often list files are checked for changes; default watched-list.DEFAULT_LIST_POLL_MS. */
  listPollIntervalMs?: number;
}

/** The providers the settings enable, in the order of the table above. */
export function providersFor(
  config: Pick<Config, 'safetyAdultList' | 'safetyThreatList' | 'safeBrowsingApiKey' | 'safeBrowsingUrl'>,
  deps: SafetyDeps = {},
): SafetyProvider[] {
  const providers: SafetyProvider[] = [ipHostProvider, machineMadeDomainProvider, parkingPageProvider, adultSelfLabelProvider];
  const listOptions = { pollIntervalMs: deps.listPollIntervalMs, logger: deps.logger };
  if (config.safetyAdultList) {
    providers.push(listProvider('adult-list', 'adult', new WatchedDomainList(config.safetyAdultList, listOptions)));
  }
  if (config.safetyThreatList) {
    providers.push(listProvider('threat-list', 'security_threat', new WatchedDomainList(config.safetyThreatList, listOptions)));
  }
  if (config.safeBrowsingApiKey) {
    providers.push(safeBrowsingProvider({ apiKey: config.safeBrowsingApiKey, endpoint: config.safeBrowsingUrl, fetch: deps.fetch }));
  }
  return providers;
}

export function createSafetyCheck(config: Config, deps: SafetyDeps = {}): SafetyCheck {
  const providers = providersFor(config, deps);
  const onFailure = (provider: string, err: unknown) => {
    deps.logger?.warn({ provider, err }, 'safety provider failed; it contributes no tag');
    deps.onProviderFailure?.(provider, err);
  };
  return {
    check: (input, signal) => runProviders(providers, input, signal, onFailure),
    close() {
      for (const provider of providers) provider.close?.();
    },
  };
}
