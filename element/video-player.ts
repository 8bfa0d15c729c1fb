// Play in place: a click on a YouTube or Vimeo card's image swaps it for the provider's player.
// Nothing is loaded from the provider before that click. The player's URL is the provider's
// documented embed URL built from a video ID read strictly from the page URL (an ID of the
// provider's own form, nothing else kept), never from embed.html (third-party markup); the
// iframe is sandboxed to what a player needs.

/** The player URL for a YouTube or Vimeo page URL, or null for any other page. */
export function playerUrl(pageUrl: string): string | null {
  const { hostname, pathname, searchParams } = new URL(pageUrl);
  const host = hostname.replace(/^(www|m)\./, '');
  // https://developers.google.com/youtube/player_parameters: youtube-nocookie.com/embed/ID, where
  // an ID is 11 characters of [A-Za-z0-9_-]; watch?v=ID, youtu.be/ID, shorts/ID and live/ID name one.
  const youtube =
    host == 'youtube.com'
      ? pathname == '/watch'
        ? searchParams.get('v')
        : /^\/(shorts|live|embed)\/([^/]+)\/?$/.exec(pathname)?.[2]
      : host == 'youtu.be' && pathname.slice(1);
  if (youtube && /^[\w-]{11}$/.test(youtube)) return `https://www.youtube-nocookie.com/embed/${youtube}?autoplay=1`;
  // https://developer.vimeo.com/player/sdk/embed: player.vimeo.com/video/ID, a numeric ID.
  const vimeo = host == 'vimeo.com' && /^\/(\d+)\/?$/.exec(pathname)?.[1];
  return vimeo ? `https://player.vimeo.com/video/${vimeo}?autoplay=1` : null;
}

/** The player in a sandboxed iframe: scripts and its own origin (both players need them), no top navigation. */
export function playerFrame(src: string, title: string): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.sandbox.value = 'allow-scripts allow-same-origin allow-presentation';
  frame.allow = 'autoplay; encrypted-media; fullscreen; picture-in-picture';
  // YouTube refuses to play for an embedder that sends no Referer; the origin is all it gets.
  frame.referrerPolicy = 'strict-origin-when-cross-origin';
  frame.title = title;
  frame.src = src;
  return frame;
}

/**
 * Whether an image is served by a video provider (YouTube's i.ytimg.com and favicons, Vimeo's
 * i.vimeocdn.com): loading it straight from there would tell the provider who reads the page.
 */
export function providerImage(url: string | null): boolean {
  return /(^|\.)(youtube(-nocookie)?\.com|youtu\.be|ytimg\.com|ggpht\.com|vimeo(cdn)?\.com)$/.test(new URL(url ?? 'a:').hostname);
}
