/**
 * The API reference a person reads (GET /api/docs): the OpenAPI document
 * (GET /api/openapi.json) rendered by Swagger UI, whose script and stylesheet
 * the service serves itself (GET /api/docs/assets/{name}); nothing comes from
 * a CDN.
 *
 * Why Swagger UI (swagger-ui-dist), of the maintained standalone renderers,
 * each tried under this page's CSP in headless Chromium: it runs with
 * script-src 'self' and style-src 'self' (no inline style element or
 * attribute, no eval; its icons are data: SVGs in its stylesheet, hence
 * img-src data:), it has "Try it out", and its bundle is 1.7 MB (~450 KB
 * gzipped). Redoc 2's standalone bundle injects its styles as inline style
 * elements (style-src 'unsafe-inline') and cannot try a call; Redoc 3's is an
 * ES module of 2.3 MB; Scalar's sets inline styles too and is 4.9 MB (1.4 MB
 * gzipped), close to Lambda's 6 MB answer limit before compression.
 *
 * A function's zip holds its handler's bundle only (functions/package-bundles.js),
 * so the files are read from the swagger-ui-dist package at run time: the
 * assets route carries the swaggerUi layer (functions/layers.js), whose
 * package Lambda resolves through NODE_PATH as the local stack resolves it
 * from node_modules. Each file is answered gzip-compressed when the client
 * accepts it; compressed or not, every answer stays under Lambda's 6 MB
 * (tests/unit/http/api-reference.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NotFoundError } from '../errors';
import { docsRoutes, serviceApi } from './docs-routes';
import { HttpResponse } from './response';

/**
 * Only what the page needs: its scripts and stylesheet from this origin (no inline code, no eval), Swagger UI's
 * data: SVG icons, and calls to this origin only (the document, "Try it out"). Nothing may frame it, and it
 * submits no form anywhere.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const assetUrl = (name: string) => docsRoutes.referenceAsset.path.replace('{name}', name);

/**
 * Starts Swagger UI on the document, its tags folded (the service has some 170 operations: the page opens on the
 * list of tags and what each groups; a link to an operation opens it). "Try it out" calls this origin (the document's server is `/`), where the
 * login cookie goes along by itself; a write signed in by the cookie needs `X-Requested-With` (the cross-site
 * check, lib/http/csrf.ts), which this same-origin page may send. No call to Swagger's public validator.
 */
const START_SCRIPT = `'use strict';
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(docsRoutes.openapi.path)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'none',
  validatorUrl: null,
  displayOperationId: true,
  showExtensions: true,
  filter: true,
  requestInterceptor: function (request) {
    request.headers['X-Requested-With'] = 'XMLHttpRequest';
    return request;
  },
});
`;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// The empty data: icon keeps the browser from asking for /favicon.ico (a 404 in the console).
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(serviceApi.title)}: API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assetUrl('swagger-ui-bundle.js')}"></script>
<script src="${assetUrl('reference.js')}"></script>
</body>
</html>
`;

/** Headers of every answer of the reference: no content sniffing, no referrer to the links it shows. */
const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** The page: static HTML under the CSP above. */
export function referencePage(): HttpResponse {
  return new HttpResponse(200, PAGE, {
    ...COMMON_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': REFERENCE_CSP,
    'cache-control': 'no-cache',
  });
}

const swaggerUiFile = (file: string) => () =>
  readFileSync(join(dirname(require.resolve('swagger-ui-dist/package.json')), file));

/** What GET /api/docs/assets/{name} serves: name → content type and where its bytes come from. */
const ASSETS: Record<string, { type: string; read: () => Buffer }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', read: swaggerUiFile('swagger-ui-bundle.js') },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', read: swaggerUiFile('swagger-ui.css') },
  'reference.js': { type: 'text/javascript; charset=utf-8', read: () => Buffer.from(START_SCRIPT) },
};

export const REFERENCE_ASSET_NAMES = Object.keys(ASSETS);

interface Encoded {
  identity: Buffer;
  gzip: Buffer;
  /** Of the bytes as sent: one per encoding. */
  etags: { identity: string; gzip: string };
}

/** Read and compressed once per container (~0.1 s for the bundle), then served from memory. */
const encoded = new Map<string, Encoded>();

function encode(name: string): Encoded {
  let found = encoded.get(name);
  if (!found) {
    const identity = ASSETS[name].read();
    const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
    found = {
      identity,
      gzip: gzipSync(identity, { level: 9 }),
      etags: { identity: `"${hash}"`, gzip: `"${hash}-gz"` },
    };
    encoded.set(name, found);
  }
  return found;
}

/** Whether an Accept-Encoding header takes gzip (named or `*`, with a q above 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * One asset, gzip-compressed when the client accepts it. Browsers revalidate it on each load (no-cache) and get a
 * 304 while its ETag holds, so a new release's files are never mixed with a cached old one.
 */
export function referenceAsset(
  name: string,
  request: { acceptEncoding?: string; ifNoneMatch?: string } = {},
): HttpResponse {
  if (!Object.hasOwn(ASSETS, name)) throw new NotFoundError(`No asset ${name}`);
  const { identity, gzip, etags } = encode(name);
  const compressed = acceptsGzip(request.acceptEncoding);
  const etag = compressed ? etags.gzip : etags.identity;
  const headers = { ...COMMON_HEADERS, 'cache-control': 'no-cache', etag, vary: 'accept-encoding' };
  const known = (request.ifNoneMatch ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (known.includes(etag) || known.includes('*')) return new HttpResponse(304, undefined, headers);
  return new HttpResponse(200, compressed ? gzip : identity, {
    ...headers,
    'content-type': ASSETS[name].type,
    ...(compressed ? { 'content-encoding': 'gzip' } : {}),
  });
}
