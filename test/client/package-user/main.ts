// A client app using the packed linkpeek-client, type-checked under strict settings by
// package.test.ts (which writes BASE_URL and PAGE_URL into config.ts beside this file) and then
// run with node. It prints one JSON line of what it saw.
import { createClient, getHealth, getMetadata, LinkPeekHttpError, type ApiError, type Metadata, type ValidationError } from 'linkpeek-client';
// @ts-expect-error the schema type is ApiError: the package exports no `Error` to shadow the built-in
import type { Error as Shadowing } from 'linkpeek-client';
import { BASE_URL, CLOSED_URL, PAGE_URL } from './config.js';

const client = createClient({ baseUrl: BASE_URL });
const seen: Record<string, unknown> = {};

const page = await getMetadata({ client, query: { url: PAGE_URL } });
if (page.data) {
  const data: Metadata = page.data;
  // Always present, so a null check is enough under strict.
  if (data.title !== null) seen.title = data.title.toUpperCase();
  seen.imageUrl = data.image.url;
  seen.safetyTags = data.safety_tags.length;
}

const bad = await getMetadata({ client, query: { url: 'ftp://example.com/' } });
if (bad.response !== undefined && bad.error !== undefined && bad.response.status === 400) {
  const body = bad.error as ValidationError;
  seen.validation = body.errors[0]?.message;
}

const offline = await getHealth({ client: createClient({ baseUrl: CLOSED_URL }) });
if (offline.response === undefined) {
  const failure: Error = offline.error;
  seen.offline = failure instanceof TypeError ? 'TypeError' : failure.name;
}

try {
  await getMetadata({ client, query: { url: 'ftp://example.com/' }, throwOnError: true });
} catch (err) {
  if (err instanceof LinkPeekHttpError) {
    const builtIn: Error = err;
    seen.thrown = { isError: builtIn instanceof Error, status: err.status, message: err.message };
  }
}

const notFound: ApiError = { code: 404, message: 'typed' };
seen.apiError = notFound.code;
console.log(JSON.stringify(seen));
