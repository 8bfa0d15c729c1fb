import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileScheme, globMatches, matchable, schemeMatches } from '../../src/oembed/url-scheme.js';

// oEmbed URL schemes: `*` wildcards, one glob for the host and one for the path and query.

const test = suite('oEmbed URL schemes');

function matches(scheme: string, url: string): boolean {
  const compiled = compileScheme(scheme);
  assert.ok(compiled, `${scheme} compiles`);
  const { host, rest } = matchable(new URL(url));
  return schemeMatches(compiled, host, rest);
}

test('a star in the host matches any subdomain', () => {
  assert.ok(matches('https://*.youtube.com/watch*', 'https://www.youtube.com/watch?v=1'));
  assert.ok(matches('https://*.youtube.com/watch*', 'https://m.youtube.com/watch?v=1'));
  assert.ok(matches('https://*.youtube.com/watch*', 'https://a.b.youtube.com/watch'));
  assert.not.ok(matches('https://*.youtube.com/watch*', 'https://www.youtube.com/embed/1'));
});

test('a star in the host never reaches into the path', () => {
  assert.not.ok(matches('https://*.youtube.com/watch*', 'https://evil.example/.youtube.com/watch'));
  assert.not.ok(matches('https://*.youtube.com/watch*', 'https://evil.example/?.youtube.com/watch'));
  assert.not.ok(matches('https://*.youtube.com/watch*', 'https://youtube.com.evil.example/watch'));
});

test('a leading "*." also matches the bare domain', () => {
  assert.ok(matches('https://*.youtube.com/watch*', 'https://youtube.com/watch?v=1'));
  assert.not.ok(matches('https://*.youtube.com/watch*', 'https://notyoutube.com/watch?v=1'));
});

test('http and https schemes match either', () => {
  assert.ok(matches('http://www.23hq.com/*/photo/*', 'https://www.23hq.com/a/photo/b'));
  assert.ok(matches('https://youtu.be/*', 'http://youtu.be/abc'));
});

test('the port is part of the host', () => {
  assert.ok(matches('http://video.test:8080/watch/*', 'http://video.test:8080/watch/1'));
  assert.not.ok(matches('http://video.test:8080/watch/*', 'http://video.test:8081/watch/1'));
  assert.not.ok(matches('https://youtu.be/*', 'https://youtu.be:8443/abc'));
});

test('the host compares without case, the path with it', () => {
  assert.ok(matches('https://WWW.Example.com/Photos/*', 'https://www.example.com/Photos/1'));
  assert.not.ok(matches('https://www.example.com/photos/*', 'https://www.example.com/Photos/1'));
});

test('a star matches the query too, and the fragment is never part of the match', () => {
  assert.ok(matches('https://www.youtube.com/playlist?list=*', 'https://www.youtube.com/playlist?list=PL1#x'));
  assert.not.ok(matches('https://www.youtube.com/playlist?list=*', 'https://www.youtube.com/playlist#list=PL1'));
});

test('pieces between stars must appear in order, without overlapping', () => {
  assert.ok(globMatches(['a', 'b', 'c'], 'a-b-c'));
  assert.not.ok(globMatches(['a', 'c', 'b'], 'a-b-c'));
  assert.not.ok(globMatches(['ab', 'ba'], 'aba'));
  assert.ok(globMatches(['ab', 'ba'], 'abba'));
  assert.ok(globMatches(['x', '', 'y'], 'xy'));
  assert.not.ok(globMatches(['exact'], 'exactly'));
});

test('a 4,096-character URL against a six-star scheme is decided in one pass', () => {
  const scheme = 'https://*.example.com/*a*a*a*a*b';
  const near = `https://www.example.com/${'a'.repeat(4000)}`;
  assert.not.ok(matches(scheme, near));
  assert.ok(matches(scheme, `${near}b`));
});

test('schemes that cannot name an http(s) URL do not compile', () => {
  assert.is(compileScheme('spotify:*'), null);
  assert.is(compileScheme('https:///path'), null);
  assert.is(compileScheme('https://knowledgepad.co/#/knowledge/*'), null);
});

test.run();
