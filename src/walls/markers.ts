// What LinkPeek takes for a wall instead of a page, as commented data: the bot checks of the common
// bot-management services, and the consent or login pages sites redirect a logged-out visitor to.
// Either is answered as a 422 (`bot_check`, `consent_wall`), never previewed: a card titled
// "Just a moment..." is the most common bad preview there is. The matching is in detect.ts.
//
// A marker must be something a real page does not carry. Headers and challenge-only script paths
// come first; a title counts only together with the vendor's own server header, because a page
// may be titled anything. Status codes are never required where the vendor's page can come with a
// 200. What a normal page behind the same service also carries is not a marker, and is listed at
// the end of this file with the reason, so nobody adds it back.
//
// Only the head is read (the scanner stops at `<body>`), so markers a challenge page keeps in its
// body (DataDome's and PerimeterX's captcha scripts, Cloudflare's orchestrate script, which its
// inline code adds at run time) are reached through the headers and head tags the same page sends.

/** The services named in the message ("The site showed a bot check (Cloudflare) instead of the page."). */
type BotCheckService = 'Cloudflare' | 'Akamai' | 'DataDome' | 'PerimeterX' | 'Imperva' | 'AWS WAF';

/**
 * One marker: every condition given must hold. Header names are lower-case; header values, titles
 * and meta contents are matched trimmed; a script is matched on the host and path its src resolves
 * to against the page URL (so `/x.js`, `//host/x.js` and absolute forms read the same).
 */
export interface BotCheckMarker {
  service: BotCheckService;
  header?: { name: string; value?: RegExp };
  /** The response status is one of these (only where the service documents its statuses). */
  status?: readonly number[];
  title?: RegExp;
  /** The page has no `<title>` at all. */
  untitled?: true;
  meta?: { name: string; content: RegExp };
  script?: { host?: string; path: RegExp };
  /** What the marker is. */
  what: string;
  /** Where it is documented or shown. */
  source: string;
}

export const BOT_CHECK_MARKERS: readonly BotCheckMarker[] = [
  // ---- Cloudflare -----------------------------------------------------------------------------
  {
    service: 'Cloudflare',
    header: { name: 'cf-mitigated', value: /^challenge$/i },
    what: 'set on every Challenge Page response, whatever the challenge type; "challenge" is its only value',
    source: 'developers.cloudflare.com/cloudflare-challenges/challenge-types/challenge-pages/detect-response',
  },
  {
    service: 'Cloudflare',
    header: { name: 'server', value: /^cloudflare$/i },
    title: /^just a moment\.{3}$|^just a moment…$/i,
    what: "the interstitial's title, served by Cloudflare's edge (Server: cloudflare); older challenges came without cf-mitigated",
    source: 'developers.cloudflare.com/waf/reference/cloudflare-challenges (the interstitial); its 403/503 "Just a moment..." page as scrapers report it',
  },
  // The interstitial is localised (developers.cloudflare.com/cloudflare-challenges/reference/supported-languages):
  // only the titles scrapers have reported served, each with the same server header as the English one.
  {
    service: 'Cloudflare',
    header: { name: 'server', value: /^cloudflare$/i },
    title: /^un instant(?:\.{3}|…)$/i,
    what: 'the French interstitial\'s title ("Just a moment..."), served by Cloudflare\'s edge',
    source: 'D4Vinci/Scrapling (GitHub: "Make Cloudflare Turnstile solving locale-independent", French challenge pages titled "Un instant…")',
  },
  {
    service: 'Cloudflare',
    header: { name: 'server', value: /^cloudflare$/i },
    title: /^even geduld(?:\.{3}|…)$/i,
    what: "the Dutch interstitial's title, served by Cloudflare's edge",
    source: 'FlareSolverr/FlareSolverr (GitHub: "Cloudflare sends texts in Dutch": the challenge titled "Even geduld...")',
  },
  {
    service: 'Cloudflare',
    header: { name: 'server', value: /^cloudflare$/i },
    title: /^cierpliwości(?:\.{3}|…)$/i,
    what: "the Polish interstitial's title, served by Cloudflare's edge",
    source: 'ThePhaseless/Byparr (GitHub: "detect localized Cloudflare interstitials": a 403 titled "Cierpliwości..." from a Cloudflare-fronted site)',
  },
  {
    service: 'Cloudflare',
    header: { name: 'server', value: /^cloudflare$/i },
    title: /^attention required! \| cloudflare$/i,
    what: 'the title of the legacy captcha and "Sorry, you have been blocked" page, served by Cloudflare\'s edge',
    source: 'the page itself carries <meta name="captcha-bypass">, /cdn-cgi/styles/cf.errors.css and window._cf_chl_opt',
  },

  // ---- Akamai ---------------------------------------------------------------------------------
  {
    service: 'Akamai',
    header: { name: 'server', value: /^akamaighost$/i },
    title: /^access denied$/i,
    what: 'the edge\'s refusal page ("You don\'t have permission to access ...", then a reference number), served by AkamaiGHost',
    source: "fingerprints reported to the WhatWaf project's tracker (403, Server: AkamaiGHost, <title>Access Denied</title>, errors.edgesuite.net)",
  },
  {
    service: 'Akamai',
    script: { path: /^\/_sec\/cp_challenge\// },
    what: "Bot Manager's interstitial challenge script (sec-cpt), loaded from the site's own /_sec/cp_challenge/",
    source: 'Akamai Bot Manager challenge actions (techdocs.akamai.com, challenge interception rules); scrapers report /_sec/cp_challenge/ pages',
  },

  // ---- DataDome -------------------------------------------------------------------------------
  {
    service: 'DataDome',
    header: { name: 'x-dd-b' },
    what: 'added by the Protection API when it blocks a request',
    source: 'docs.datadome.co/reference/validate-request ("When APIServer blocks a request ... it also adds X-DD-B headers")',
  },
  {
    service: 'DataDome',
    header: { name: 'x-datadome' },
    status: [401, 403],
    what: "a block: the module answers the API's 401/403 and its captcha page (a script from ct.captcha-delivery.com in the body); X-DataDome: protected alone rides on every answer, normal pages too",
    source:
      'docs.datadome.co/reference/validate-request ("401/403: the current hit should be blocked"; "Each DataDome request should also have X-DataDome header")',
  },
  {
    service: 'DataDome',
    script: { host: 'captcha-delivery.com', path: /^\// },
    what: "the captcha and device-check scripts (ct.captcha-delivery.com/c.js, geo.captcha-delivery.com), only ever on DataDome's challenge",
    source: 'DataDome block pages as reported by its users (var dd={...host:"geo.captcha-delivery.com"} then ct.captcha-delivery.com/c.js)',
  },

  // ---- PerimeterX / HUMAN ---------------------------------------------------------------------
  {
    service: 'PerimeterX',
    meta: { name: 'description', content: /^px-captcha$/i },
    what: 'the head of the block page every PerimeterX (HUMAN) enforcer renders',
    source: 'PerimeterX/perimeterx-node-core lib/templates/block_template.mustache (also its PHP, Java and Python SDKs)',
  },
  {
    service: 'PerimeterX',
    title: /^access to this page has been denied\.?$/i,
    what: 'the title of the same block template (and of its older versions, with a full stop)',
    source: "PerimeterX/perimeterx-node-core lib/templates/block_template.mustache; the older page in the WhatWaf project's tracker",
  },
  {
    service: 'PerimeterX',
    script: { host: 'px-cdn.net', path: /\/captcha/ },
    what: 'the captcha script (captcha.px-cdn.net/PX.../captcha.js), the challenge itself',
    source: 'PerimeterX block pages (pxCaptchaSrc) as reported by its users',
  },

  // ---- Imperva (Incapsula) --------------------------------------------------------------------
  {
    service: 'Imperva',
    script: { path: /^\/_incapsula_resource$/ },
    untitled: true,
    what: 'the interstitial ("Request unsuccessful. Incapsula incident ID") has no title and loads /_Incapsula_Resource in its head; normal pages have a title and get that script added at the end of the body',
    source: 'Imperva interstitial pages as reported by scrapers (<META NAME="ROBOTS" ...><script src="/_Incapsula_Resource?SWJIYLWA=..."></head>)',
  },

  // ---- AWS WAF --------------------------------------------------------------------------------
  {
    service: 'AWS WAF',
    header: { name: 'x-amzn-waf-action', value: /^(?:challenge|captcha)$/i },
    what: 'the Challenge (202) and CAPTCHA (405) actions; the interstitial is served to a request that accepts text/html',
    source: 'docs.aws.amazon.com/waf/latest/developerguide/waf-captcha-and-challenge-actions.html',
  },
];

/**
 * Non-2xx answers whose head is read for the markers above: the statuses these services serve
 * their pages with (401/403 blocks, 405 CAPTCHA, 428 Akamai's sec-cpt challenge, 429 rate limits,
 * 503 Cloudflare's older interstitial). Any other error page (404, 500...) is an `http_status`
 * without reading it. Akamai's 428 is reported with a JSON body ({"sec-cp-challenge":"true",
 * "provider":"crypto",...}; CloakHQ/CloakBrowser on GitHub, "Getting HTTP [428] akamai") which
 * has no head to read and stays an `http_status`; its HTML interstitial under the same status is
 * read for the /_sec/cp_challenge/ script.
 */
export const CHALLENGE_STATUSES: ReadonlySet<number> = new Set([401, 403, 405, 428, 429, 503]);

/** One consent or login page a site redirects a logged-out visitor to, instead of the page asked for. */
export interface ConsentPage {
  /** The host, exactly, or a pattern of hosts (country variants). */
  host: string | RegExp;
  /** Only URLs under this path (lower-case); any path when absent. */
  path?: RegExp;
  page: 'consent' | 'login';
  what: string;
  source: string;
}

export const CONSENT_PAGES: readonly ConsentPage[] = [
  {
    host: /^consent\.google\.(?:com|[a-z]{2}|com?\.[a-z]{2})$/,
    page: 'consent',
    what: "Google's cookie consent (EU visitors without a consent cookie), per country domain: consent.google.com, .de, .co.uk, .com.au...",
    source:
      'google-maps-scraper and google-reviews-scraper-pro (GitHub): Maps redirects EU visitors to consent.google.com; consent.google.co.uk/save forms in public code',
  },
  {
    host: 'consent.youtube.com',
    page: 'consent',
    what: "YouTube's cookie consent, to which every page redirects a visitor without the CONSENT/SOCS cookie",
    source: 'TeamNewPipe/NewPipeExtractor and searxng/searxng (GitHub, 2021): YouTube redirects to consent.youtube.com without a CONSENT cookie',
  },
  {
    host: 'consent.yahoo.com',
    page: 'consent',
    what: "Yahoo's consent collection (/v2/collectConsent?sessionId=...) for Yahoo, AOL and Engadget pages",
    source: 'dpguthrie/yahooquery and easylist/easylist (GitHub): finance.yahoo.com and yahoo.com redirect EU visitors to consent.yahoo.com/v2/collectConsent',
  },
  {
    host: /^guce\.(?:yahoo|oath|aol)\.com$/,
    path: /^\/(?:v2\/)?(?:collect|copy)?consent/,
    page: 'consent',
    what: "Yahoo's consent hosts under its own and its brands' names: guce.yahoo.com/consent, guce.oath.com/collectConsent, and AOL's guce.aol.com/consent?gcrumb=... (AOL uses Yahoo's consent system); their /terms, /privacy-policy and AOL's /gpc/ frame are not the wall",
    source:
      'SociallyCompute/Global-Consent-Manager (GitHub): news.yahoo.com redirected to guce.oath.com/collectConsent; Yahoo Finance clients post to guce.yahoo.com/consent; AdguardTeam/AdguardFilters (GitHub, aol.com, 2025): the ||guce.aol.com/consent/ redirect',
  },
  {
    host: /^(?:[a-z]{2,3}\.|www\.)?linkedin\.com$/,
    path: /^\/authwall/,
    page: 'login',
    what: "LinkedIn's sign-in wall (/authwall?trk=...) in front of profiles and posts for visitors without a session",
    source: 'linkedtales/scrapedin and leonardocardoso/Android-Link-Preview (GitHub): profiles redirect to /authwall, previews show the sign-up page',
  },
  {
    host: /^(?:www\.|i\.)?instagram\.com$/,
    path: /^\/accounts\/login/,
    page: 'login',
    what: "Instagram's login page (/accounts/login/?next=...) for posts and profiles it will not show logged out",
    source:
      'OP-Engineering/link-preview-js (GitHub: previews titled "Login • Instagram" at /accounts/login/); instaloader/instaloader ("Redirected to login page")',
  },
  {
    host: /^(?:www\.|m\.|web\.|mbasic\.)?facebook\.com$/,
    path: /^\/login(?:\.php)?(?:\/|$)/,
    page: 'login',
    what: "Facebook's login page (/login/?next=..., /login.php?next=...) for posts, profiles and groups it will not show logged out; a page whose name starts with login (/loginradius) is a page",
    source:
      'php-embed/Embed (GitHub: "Some Facebook urls redirect to the login page", www.facebook.com/login/?next=...); meedan/pender (GitHub: Facebook previews titled "Log in to Facebook"); IITC-CE/ingress-intel-total-conversion (m.facebook.com/login.php)',
  },
];

// Not markers, because normal pages carry them too:
// - Server: cloudflare, CF-RAY, __cf_bm and cf_clearance cookies: on every page Cloudflare proxies.
// - A script under /cdn-cgi/challenge-platform/: Cloudflare's JavaScript Detections add one to
//   normal pages of every Bot Fight Mode zone (developers.cloudflare.com/bots/additional-configurations/javascript-detections).
// - challenges.cloudflare.com/turnstile, google.com/recaptcha, hcaptcha.com: widgets in real forms.
// - X-DataDome: protected, datadome cookie, js.datadome.co/tags.js: on every protected page.
// - PerimeterX's sensor (client.perimeterx.net, /<appId>/init.js, _px cookies): on every protected page.
// - X-Iinfo, X-CDN: Incapsula, incap_ses_ and visid_incap_ cookies: on every Incapsula-served answer.
// - AWS WAF's challenge.js from *.token.awswaf.com: its JavaScript integration SDK, loaded in the
//   head of normal pages (docs.aws.amazon.com/waf, "JavaScript API integration").
// - Akamai's _abck and bm_sz cookies, Akamai-GRN: on every Bot Manager answer.
