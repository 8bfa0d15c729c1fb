// GET /docs (and /docs/): the API reference, rendered in the browser by Swagger UI from
// /openapi.yaml. Every file comes from this origin (Swagger UI's two files, copied by the build
// into dist/docs/, and the two small files below): no CDN, no web font, and Swagger UI's online
// validator badge is off, so the page works offline and its CSP allows nothing but 'self'.
// swagger-ui-dist is a devDependency: the library and the CLI never install its 12 MB (nor its
// telemetry postinstall), and the package's tarball leaves dist/docs/ out; a service run from
// it answers 404 for /docs.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { StaticAsset } from './static-asset.js';

/** Where the build puts Swagger UI's files (build-static.ts), with their compressed forms in `compressed/`. */
export const DOCS_DIR = path.join(PACKAGE_ROOT, 'dist/docs');
export const DOCS_PRECOMPRESSED_DIR = path.join(DOCS_DIR, 'compressed');

/** Swagger UI's two files, as served: the build copies them from swagger-ui-dist and compresses them ahead. */
export const SWAGGER_UI_NAMES = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;
export const SWAGGER_UI_FILES = SWAGGER_UI_NAMES.map((name) => path.join(DOCS_DIR, name));

/** The files change only with a deploy (a new swagger-ui-dist or openapi.yaml). */
const DOCS_CACHE_CONTROL = 'public, max-age=3600';

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets inline styles on its elements, and its stylesheet draws icons from data: SVGs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>LinkPeek API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl: null, or Swagger UI sends the document to validator.swagger.io for a badge.
// Swagger UI fills every parameter's default into "Try it out", so it would send allow_fallback,
// which SPEC.md reserves (no effect): the interceptor takes it out of the request.
// Its stylesheet has a dark theme under html.dark-mode: that class follows the reader's
// prefers-color-scheme, also when it changes while the page is open. Its code blocks (examples,
// answers, curl) scroll but take no focus: each is made focusable and named as Swagger UI renders
// it, so a keyboard can reach and scroll it (WCAG 2.1.1).
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.yaml',
  dom_id: '#docs',
  validatorUrl: null,
  deepLinking: true,
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  requestInterceptor: (request) => {
    const url = new URL(request.url, location.href);
    if (url.searchParams.has('allow_fallback')) {
      url.searchParams.delete('allow_fallback');
      request.url = url.href;
    }
    return request;
  },
});
const dark = matchMedia('(prefers-color-scheme: dark)');
const followScheme = () => document.documentElement.classList.toggle('dark-mode', dark.matches);
followScheme();
dark.addEventListener('change', followScheme);
const nameOf = (pre) => {
  if (pre.closest('.curl-command')) return 'curl command';
  const status = pre.closest('tr.response')?.querySelector('.response-col_status')?.textContent.trim();
  return status ? 'Example answer, status ' + status : 'Code example';
};
const reachable = () => {
  for (const pre of document.querySelectorAll('#docs pre.microlight:not([tabindex])')) {
    pre.tabIndex = 0;
    pre.setAttribute('role', 'group');
    pre.setAttribute('aria-label', nameOf(pre));
  }
};
new MutationObserver(reachable).observe(document.getElementById('docs'), { childList: true, subtree: true });
`;

interface DocsFile {
  type: string;
  /** The bytes, or null when the build did not make the file (an install from the tarball). */
  load: () => Promise<Buffer | null>;
}

const fromSwaggerUi = (name: string) => async () => {
  try {
    return await readFile(path.join(DOCS_DIR, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

const page: DocsFile = { type: 'text/html; charset=utf-8', load: async () => Buffer.from(PAGE) };

/** Path → file. Swagger UI's own files are read on first request (1.9 MB), then kept. */
const FILES: Record<string, DocsFile> = {
  '/docs': page,
  // The address typed with a slash: the same page (its links are absolute, so it works as it is).
  '/docs/': page,
  '/docs/init.js': { type: 'application/javascript; charset=utf-8', load: async () => Buffer.from(INIT) },
  '/docs/swagger-ui.css': { type: 'text/css; charset=utf-8', load: fromSwaggerUi('swagger-ui.css') },
  '/docs/swagger-ui-bundle.js': { type: 'application/javascript; charset=utf-8', load: fromSwaggerUi('swagger-ui-bundle.js') },
};

/** The asset at `pathname`, or null when /docs has no such file. */
export function docsAssets(): (pathname: string) => Promise<StaticAsset | null> {
  const loaded = new Map<DocsFile, Promise<StaticAsset | null>>();
  return (pathname) => {
    const file = FILES[pathname];
    if (!file) return Promise.resolve(null);
    let asset = loaded.get(file);
    if (!asset) {
      asset = file
        .load()
        .then((bytes) =>
          bytes ? StaticAsset.load(bytes, { type: file.type, cacheControl: DOCS_CACHE_CONTROL }, { precompressedDir: DOCS_PRECOMPRESSED_DIR }) : null,
        );
      // A failed or missing read is not kept: the next request tries again (a build made meanwhile).
      asset.then(
        (made) => {
          if (!made) loaded.delete(file);
        },
        () => loaded.delete(file),
      );
      loaded.set(file, asset);
    }
    return asset;
  };
}
