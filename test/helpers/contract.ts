// Every response an integration test receives is checked against openapi.yaml: its status is
// documented for the operation, its documented headers are present and well-formed, and its
// body matches the schema of its content type.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

type Json = Record<string, any>;

export const doc: Json = parse(readFileSync(fileURLToPath(new URL('../../openapi.yaml', import.meta.url)), 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true });
// format: uri, as the server checks it (ajv-formats)
const addFormats = (await import('ajv-formats')).default as unknown as (a: Ajv, f: string[]) => void;
addFormats(ajv, ['uri', 'uri-reference', 'date-time']);

/** `node` with every $ref replaced by what it points at in openapi.yaml. */
export function deref(node: any): any {
  if (Array.isArray(node)) return node.map(deref);
  if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string') {
      const target = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: Json, k: string) => o[k], doc);
      return deref(target);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(v)]));
  }
  return node;
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(key: string, schema: Json): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(deref(schema));
    validators.set(key, v);
  }
  return v;
}

/** The path item of `path`: an exact key, or a template like /docs/{file} whose parameter fits. */
function pathItem(path: string): Json | undefined {
  if (doc.paths[path]) return doc.paths[path];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    if (!template.includes('{')) continue;
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(path)) return item;
  }
  return undefined;
}

export interface ReceivedResponse {
  method: string;
  /** Path without the query. */
  path: string;
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** Throws an Error describing every way the response departs from openapi.yaml. */
export function assertContract(res: ReceivedResponse): void {
  const problems: string[] = [];
  const where = `${res.method} ${res.path} → ${res.status}`;
  const item = pathItem(res.path);
  let response: Json | undefined;
  // The endpoint's own error body: the proxy speaks ProxyError (openapi.yaml info.description).
  const errorSchema = res.path === '/v1/cors-proxy' ? 'ProxyError' : 'ApiError';
  const errorBody = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${errorSchema}` } } } };
  const op = item?.[res.method.toLowerCase() === 'head' ? 'get' : res.method.toLowerCase()];
  if (res.method === 'OPTIONS') {
    // Any path: a CORS preflight, 204 with no body (openapi.yaml info.description).
    if (res.status !== 204) problems.push('OPTIONS must answer 204');
    if (res.headers.get('access-control-allow-methods') !== 'GET, HEAD') problems.push('OPTIONS must allow GET, HEAD');
    response = { description: 'preflight' };
  } else if (!item) {
    // Unknown paths: 404 with an ApiError body (openapi.yaml info.description).
    if (res.status !== 404) problems.push('an undocumented path must answer 404');
    response = errorBody;
  } else if (!op) {
    // A documented path asked with another method: 405 with Allow (openapi.yaml info.description).
    if (res.status !== 405) problems.push(`method ${res.method} is not documented and must answer 405`);
    if (!/\bGET\b/.test(res.headers.get('allow') ?? '')) problems.push('a 405 must carry an Allow header with GET');
    response = errorBody;
  } else {
    response = deref(op.responses[String(res.status)] ?? op.responses.default);
    if (!response) problems.push(`status ${res.status} is not documented`);
  }
  if (res.headers.get('access-control-allow-origin') !== '*') problems.push('Access-Control-Allow-Origin is not *');
  if (response) {
    // The rate limit's headers go out on every answer of a limited operation: each status says so.
    const declared = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      if (res.headers.has(name) && !declared.has(name)) problems.push(`header ${name} is sent but not declared for ${res.status}`);
    }
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
      const v = validatorFor(`header:${res.path}:${res.status}:${name}`, schema);
      if (!v(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(v.errors)}`);
    }
    const content: Json | undefined = response.content;
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!content) {
      if (res.body.length > 0 && res.status !== 302) problems.push(`no body is documented but ${res.body.length} bytes came`);
    } else if (res.method !== 'HEAD') {
      const media = content[type];
      if (!media) problems.push(`content type ${JSON.stringify(type)} is not one of ${Object.keys(content).join(', ')}`);
      else if (type === 'application/json') {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.from(res.body).toString('utf8'));
        } catch {
          problems.push('body is not JSON');
        }
        const v = validatorFor(`body:${res.path}:${res.status}:${type}`, media.schema);
        if (body !== undefined && !v(body)) problems.push(`body: ${ajv.errorsText(v.errors)}`);
      } else if (res.body.length === 0) problems.push('body is empty');
    }
  }
  if (problems.length > 0) throw new Error(`contract: ${where}\n  - ${problems.join('\n  - ')}`);
}
