/**
 * The files of the API reference page (GET /api/docs/assets/{name}; the
 * page is lib/http/api-reference.ts): Swagger UI's browser bundle and
 * stylesheet, and the script that starts it on the OpenAPI document.
 *
 * A function's zip holds its handler's bundle only (deploy/package-bundles.js),
 * so Swagger UI's files are read from the swagger-ui-dist package at run time:
 * the assets route carries the swaggerUi layer (deploy/layers.js), whose
 * package Lambda resolves through NODE_PATH as the local stack resolves it
 * from node_modules. Each file is answered gzip-compressed when the client
 * accepts it (the bundle: 1.7 MB, ~450 KB gzipped); compressed or not, every
 * answer stays under Lambda's 6 MB (tests/unit/http/api-reference.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NotFoundError } from '../errors';
import { COMMON_HEADERS } from './api-reference';
import { docsRoutes } from './docs-routes';
import { HttpResponse } from './response';

/**
 * Starts Swagger UI on the document, its tags folded (some 170 operations: the page opens on the tags and what each
 * groups; a link to an operation opens it). "Try it out" calls this origin (the document's server is `/`), where the
 * login cookie goes along by itself; a write signed in by the cookie needs `X-Requested-With` (the cross-site check,
 * lib/http/csrf.ts), which this same-origin page may send. No call to Swagger's public validator.
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
