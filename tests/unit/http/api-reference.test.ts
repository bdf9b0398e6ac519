/**
 * Covers: lib/http/api-reference.ts and lib/http/api-reference-assets.ts (the API reference page and its assets),
 * as the handlers answer them (lib/http/response.ts turns a Buffer body into base64 for API Gateway). The service
 * itself answers them in tests/e2e/api-reference.test.ts, and a browser renders the page in
 * tests/e2e/api-reference-browser.test.ts.
 */
import { gunzipSync } from 'node:zlib';
import { NotFoundError } from '../../../lib/errors';
import { REFERENCE_CSP, referencePage } from '../../../lib/http/api-reference';
import { acceptsGzip, REFERENCE_ASSET_NAMES, referenceAsset } from '../../../lib/http/api-reference-assets';
import { toResult } from '../../../lib/http/response';

/** Lambda's limit on a synchronous invocation's answer, which carries the (base64) body. */
const LAMBDA_ANSWER_LIMIT = 6 * 1024 * 1024;

const answer = (...args: Parameters<typeof referenceAsset>) => toResult(referenceAsset(...args));
const bodyBytes = (result: ReturnType<typeof toResult>) =>
  Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');

describe('the API reference page', () => {
  it('is HTML that loads only the service’s own assets, under a CSP without inline code or eval', () => {
    const page = toResult(referencePage());
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': REFERENCE_CSP,
      'x-content-type-options': 'nosniff',
    });
    const html = String(page.body);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.sort()).toEqual(
      [
        'data:,',
        '/api/docs/assets/reference.js',
        '/api/docs/assets/swagger-ui-bundle.js',
        '/api/docs/assets/swagger-ui.css',
      ].sort(),
    );
    // No inline script or style: every <script> has a src, and no style element or attribute.
    expect(html.match(/<script(?![^>]*\bsrc=)/g)).toBeNull();
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(REFERENCE_CSP).not.toMatch(/unsafe-|\*|https?:/);
    expect(REFERENCE_CSP.split('; ')).toEqual(
      expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"]),
    );
  });
});

describe('the API reference assets', () => {
  it.each(REFERENCE_ASSET_NAMES)(
    '%s: each encoding stays under Lambda’s 6 MB answer, gzip decoding to the file',
    (name) => {
      const plain = answer(name);
      const gzipped = answer(name, { acceptEncoding: 'gzip, deflate, br' });
      for (const result of [plain, gzipped]) {
        expect(result.statusCode).toBe(200);
        expect(JSON.stringify(result).length).toBeLessThan(LAMBDA_ANSWER_LIMIT);
      }
      expect(plain.headers?.['content-encoding']).toBeUndefined();
      expect(gzipped.headers?.['content-encoding']).toBe('gzip');
      expect(gunzipSync(bodyBytes(gzipped)).equals(bodyBytes(plain))).toBe(true);
      expect(plain.headers?.vary).toBe('accept-encoding');
      expect(plain.headers?.etag).not.toBe(gzipped.headers?.etag);
    },
  );

  it('serves the Swagger UI bundle and stylesheet of the installed package with their content types', () => {
    const script = answer('swagger-ui-bundle.js');
    expect(script.headers?.['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bodyBytes(script).toString('utf8')).toContain('SwaggerUIBundle');
    expect(bodyBytes(script).length).toBeGreaterThan(1024 * 1024);
    const css = answer('swagger-ui.css');
    expect(css.headers?.['content-type']).toBe('text/css; charset=utf-8');
    expect(bodyBytes(css).toString('utf8')).toContain('.swagger-ui');
    const start = bodyBytes(answer('reference.js')).toString('utf8');
    expect(start).toContain('SwaggerUIBundle(');
    expect(start).toContain('"/api/openapi.json"');
  });

  it('answers 304 without a body for an ETag the client holds, per encoding', () => {
    const first = answer('swagger-ui.css', { acceptEncoding: 'gzip' });
    const etag = String(first.headers?.etag);
    const again = answer('swagger-ui.css', { acceptEncoding: 'gzip', ifNoneMatch: `"other", W/${etag}` });
    expect([again.statusCode, again.body, again.headers?.etag]).toEqual([304, '', etag]);
    // The uncompressed file has its own ETag: a cached gzip body does not stand for it.
    expect(answer('swagger-ui.css', { ifNoneMatch: etag }).statusCode).toBe(200);
  });

  it('refuses a name that is not one of its files with a 404', () => {
    for (const name of ['index.html', '../package.json', 'constructor', '__proto__'])
      expect(() => referenceAsset(name)).toThrow(NotFoundError);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['GZIP;q=0.5', true],
    ['deflate, gzip;q=1.0, br', true],
    ['*', true],
    ['br, deflate', false],
    ['gzip;q=0', false],
    ['identity', false],
    [undefined, false],
  ])('%s → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
