// adult and security_threat from domain lists: the host or a parent domain is listed.

import type { SafetyTag } from '../../generated/types.gen.js';
import { listedAncestor } from './domain-list.js';
import type { SafetyProvider } from './provider.js';

export interface DomainSource {
  current(): ReadonlySet<string>;
  close?(): void;
}

export function listProvider(name: string, tag: SafetyTag, list: DomainSource): SafetyProvider {
  return {
    name,
    check: ({ url }) => (listedAncestor(list.current(), url.hostname) === null ? [] : [tag]),
    close: () => list.close?.(),
  };
}
