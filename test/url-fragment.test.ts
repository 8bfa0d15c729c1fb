// A URL without its fragment (src/url-fragment.ts): the cache key of a page and what a redirect is
// compared on. The cut href must equal what the URL parser gives with the fragment set empty.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hrefWithoutFragment } from '../src/url-fragment.js';

/** What the cut must agree with: the parser's own answer. */
const parsed = (href: string) => {
  const url = new URL(href);
  url.hash = '';
  return url.href;
};

test('an http(s) URL loses its fragment, and only its fragment', () => {
  for (const href of [
    'https://example.com/a?b=1#token=secret',
    'http://example.com/#',
    'https://example.com/path#a#b',
    'https://example.com/no-fragment?q=1',
  ]) {
    assert.is(hrefWithoutFragment(new URL(href)), parsed(href), href);
  }
  assert.is(hrefWithoutFragment(new URL('https://example.com/a?b=1#token=secret')), 'https://example.com/a?b=1');
});

test('a # written encoded in the user, path or query is not a fragment', () => {
  const href = 'https://us%23er@example.com/p%23ath?q=%23x#real';
  assert.is(hrefWithoutFragment(new URL(href)), 'https://us%23er@example.com/p%23ath?q=%23x');
  assert.is(hrefWithoutFragment(new URL(href)), parsed(href));
});

test('another scheme is read by the parser', () => {
  assert.is(hrefWithoutFragment(new URL('data:text/plain,a#b')), parsed('data:text/plain,a#b'));
});

test.run();
