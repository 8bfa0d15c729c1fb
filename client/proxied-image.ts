// The address of an image through the service's image proxy, for an `<img src>`: the proxy
// answers with permissive CORS, so a canvas can read the image, and serves it over the service's
// own scheme (no mixed content on an https page for an http image). Only JPEG, PNG, GIF and WebP
// are proxied (anything else is a 400); `proxyImage()` fetches the same URL as a Blob.

import { checkBaseUrl } from './client.js';

/**
 * `GET /v1/cors-proxy?url=…` of `imageUrl` on the service at `baseUrl`, e.g.
 * `proxiedImageUrl('https://linkpeek.example', data.image.url)`. Throws a TypeError when
 * `baseUrl` is not an absolute http(s) URL, as `createClient` does.
 */
export function proxiedImageUrl(baseUrl: string, imageUrl: string): string {
  checkBaseUrl(baseUrl);
  const url = new URL('/v1/cors-proxy', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('url', imageUrl);
  return url.href;
}
