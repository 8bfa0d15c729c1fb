// Every answer an SDK test receives is checked against openapi.yaml, as checkedRequest does for
// raw requests: a response interceptor on the test's client.
import type { Client } from '../../client/index.js';
import { assertContract } from '../helpers/contract.js';

export function checkAnswers<T extends Pick<Client, 'interceptors'>>(client: T): T {
  client.interceptors.response.use(async (response, request) => {
    const body = new Uint8Array(await response.clone().arrayBuffer());
    assertContract({ method: request.method, path: new URL(request.url).pathname, status: response.status, headers: response.headers, body });
    return response;
  });
  return client;
}
