// Headers a middleware sets on every answer, or on every hit, given to Node's setHeader directly.
// Koa's ctx.set(object) turns the object into normalised pairs on each call before the same
// setHeader; these objects are built once at start with their final names and string values.

import type { ServerResponse } from 'node:http';

export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}
