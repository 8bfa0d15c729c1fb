// Which operation of openapi.yaml a request names, or why none: matched as openapi-backend's
// router matches (the exact path first, then as patterns, each `{param}` one segment), from the
// operations read once after init. openapi-backend's handleRequest rebuilds its flat list of
// operations from the document on every request it matches, which cost about 0.3 ms of CPU per
// uncached request here; the document never changes after start, so the list is read once.

import type { Operation } from 'openapi-backend';

export type Match =
  | { operation: Operation }
  | { missing: 'notFound' }
  /** The path is documented (`at` is one of its operations); the method is not. */
  | { missing: 'methodNotAllowed'; at: Operation };

export interface OperationTable {
  /** `method` in lower case, `path` as the request names it (no trailing-slash folding). */
  match(method: string, path: string): Match;
}

export function operationTable(operations: Operation[]): OperationTable {
  const exact = new Map<string, Map<string, Operation>>();
  // Every path is also a pattern (a literal one matches itself), so that a known path asked with
  // another method is a 405, as openapi-backend answers it.
  const patterns: Array<{ pattern: RegExp; methods: Map<string, Operation>; specificity: number }> = [];
  for (const op of operations) {
    let methods = exact.get(op.path);
    if (methods === undefined) {
      methods = new Map();
      exact.set(op.path, methods);
      patterns.push({ pattern: templatePattern(op.path), methods, specificity: op.path.replace(/\{.*?\}/g, '').length });
    }
    methods.set(op.method, op);
  }
  // The most specific first, as openapi-backend orders them.
  patterns.sort((a, b) => b.specificity - a.specificity);

  return {
    match(method, path) {
      const found = exact.get(path)?.get(method);
      if (found) return { operation: found };
      const candidates = patterns.filter((t) => t.pattern.test(path));
      if (candidates.length === 0) return { missing: 'notFound' };
      for (const { methods } of candidates) {
        const operation = methods.get(method);
        if (operation) return { operation };
      }
      return { missing: 'methodNotAllowed', at: candidates[0]!.methods.values().next().value! };
    },
  };
}

function templatePattern(path: string): RegExp {
  const literal = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('[^/]+')}$`);
}
