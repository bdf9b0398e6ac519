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
 * The assets are lib/http/api-reference-assets.ts, kept apart so the page's
 * function carries none of their code.
 */
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

/** Where the page loads one of its files (GET /api/docs/assets/{name}). */
const referenceAssetUrl = (name: string) => docsRoutes.referenceAsset.path.replace('{name}', name);

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
<link rel="stylesheet" href="${referenceAssetUrl('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${referenceAssetUrl('swagger-ui-bundle.js')}"></script>
<script src="${referenceAssetUrl('reference.js')}"></script>
</body>
</html>
`;

/** Headers of every answer of the reference: no content sniffing, no referrer to the links it shows. */
export const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** The page: static HTML under the CSP above. */
export function referencePage(): HttpResponse {
  return new HttpResponse(200, PAGE, {
    ...COMMON_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': REFERENCE_CSP,
    'cache-control': 'no-cache',
  });
}
