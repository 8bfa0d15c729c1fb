// Ajv's findings, as openapi-backend reports them, turned into the spec's 400 bodies (docs/SPEC.md
// "ValidationError": one entry per problem, `path` like ["query", "prefer"]).

import type { ErrorObject } from 'ajv';
import { InvalidInput, LinkPeekError, type FieldProblem } from '../errors.js';
import { parseTarget, type TargetOptions } from '../fetch/target.js';

/** True when the only thing wrong is that `url` is absent: the metadata endpoint's 302 case. */
export function isMissingUrl(errors: readonly ErrorObject[]): boolean {
  return errors.some((e) => e.keyword === 'required' && e.params.missingProperty === 'url');
}

/**
 * One FieldProblem per Ajv error, plus the URL checks of fetch/target.ts (a URL as the WHATWG URL
 * Standard reads it, as browsers do: openapi.yaml gives `url` no `format`, since ajv-formats' `uri`
 * is RFC 3986 and refuses `|`, `[`, `{`, `^` that every browser takes), so a request with several
 * problems hears about all of them at once.
 */
export function problemsOf(errors: readonly ErrorObject[], query: Record<string, unknown>, target: TargetOptions): FieldProblem[] {
  const url = query.url;
  const urlProblems = typeof url === 'string' ? targetProblems(url, target) : [];
  const problems: FieldProblem[] = [];
  for (const e of errors) problems.push(toProblem(e, query));
  if (!problems.some((p) => p.path[1] === 'url')) problems.push(...urlProblems);
  return problems;
}

function targetProblems(url: string, target: TargetOptions): FieldProblem[] {
  try {
    parseTarget(url, target);
    return [];
  } catch (err) {
    if (err instanceof InvalidInput) return err.problems;
    throw err;
  }
}

function toProblem(e: ErrorObject, query: Record<string, unknown>): FieldProblem {
  // instancePath is "/query/prefer"; a missing property is reported on its parent ("/query").
  const path = e.instancePath.split('/').filter(Boolean);
  // A repeated parameter arrives as an array, which Ajv calls "must be string".
  const value = path[0] === 'query' && path[1] !== undefined ? query[path[1]] : undefined;
  if (e.keyword === 'type' && Array.isArray(value)) return { path, message: `must be given once, not ${value.length} times` };
  if (e.keyword === 'required') return { path: [...path, String(e.params.missingProperty)], message: 'is required' };
  if (e.keyword === 'enum') {
    const allowed = (e.params.allowedValues as unknown[]).join(', ');
    return { path, message: `must be equal to one of the allowed values: ${allowed}` };
  }
  return { path, message: e.message ?? 'is invalid' };
}

/** A problem list as a thrown error, so the one mapping in errors.ts answers it. */
export function invalid(problems: FieldProblem[]): LinkPeekError {
  return new InvalidInput(problems);
}
