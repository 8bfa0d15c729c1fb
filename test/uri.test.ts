import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asUri } from '../src/uri.js';

// A WHATWG URL written as an RFC 3986 URI: only the characters RFC 3986 refuses in a path, query
// or fragment are percent-encoded; everything it allows, and every existing %XX, is left alone.

const cases: Array<[string, string]> = [
  ['https://fonts.example/css2?family=A|B', 'https://fonts.example/css2?family=A%7CB'],
  ['https://api.example/articles?page[number]=2', 'https://api.example/articles?page%5Bnumber%5D=2'],
  ['https://a.example/{id}^/x?q={a}^`#f|[x]', 'https://a.example/%7Bid%7D%5E/x?q=%7Ba%7D%5E%60#f%7C%5Bx%5D'],
  ['https://a.example/%zz%41?100%', 'https://a.example/%25zz%41?100%25'],
  ['https://a.example/q?\\', 'https://a.example/q?%5C'],
  // (WHATWG itself encodes the query's ' of an http(s) URL.)
  ["https://u:p@a.example:8443/!$&'()*+,;=:@-._~?/?!$&()*+,;=:@#/?'", "https://u:p@a.example:8443/!$&'()*+,;=:@-._~?/?!$&()*+,;=:@#/?'"],
  ['https://[2001:db8::1]:8080/é', 'https://[2001:db8::1]:8080/%C3%A9'],
];
for (const [url, uri] of cases) {
  test(`${url} → ${uri}`, () => {
    assert.is(asUri(new URL(url)), uri);
    assert.is(new URL(uri).href, asUri(new URL(uri)), 'a URI is its own URI');
  });
}

test.run();
