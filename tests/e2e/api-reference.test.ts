/**
 * The API reference over real HTTP (no sign-in): GET /api/docs is HTML under
 * its strict Content-Security-Policy, and the script and stylesheet it loads
 * come from GET /api/docs/assets/{name} with their content types, gzip when
 * asked (through API Gateway's base64 answer), 304 on a held ETag, 404 for
 * any other name. Raw node:http, so the bytes and headers are as sent
 * (fetch would decompress). A browser renders the page in
 * tests/e2e/api-reference-browser.test.ts.
 */
import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { serviceUrl } from '../support/api';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function rawGet(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    get(`${serviceUrl()}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** The directives of a CSP header, name → sources. */
const directives = (csp: string) =>
  Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name, sources]),
  );

describe('GET /api/docs (the API reference page)', () => {
  let page: Raw;
  beforeAll(async () => {
    page = await rawGet('/api/docs');
  });

  it('answers HTML without sign-in', () => {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body.toString('utf8')).toMatch(/^<!doctype html>/);
  });

  it('carries a CSP that allows only same-origin scripts, styles and calls, with no inline code or eval', () => {
    const csp = String(page.headers['content-security-policy']);
    expect(directives(csp)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      // Swagger UI's stylesheet draws its icons as data: SVGs.
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
  });

  it('loads every script and stylesheet from the service itself, each answered with its content type', async () => {
    const html = page.body.toString('utf8');
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/api/docs/assets/swagger-ui-bundle.js', '/api/docs/assets/reference.js']);
    expect(styles).toEqual(['/api/docs/assets/swagger-ui.css']);
    for (const [url, type] of [
      ...scripts.map((s) => [s, 'text/javascript; charset=utf-8']),
      ...styles.map((s) => [s, 'text/css; charset=utf-8']),
    ]) {
      const res = await rawGet(url);
      expect([url, res.status, res.headers['content-type'], res.headers['x-content-type-options']]).toEqual([
        url,
        200,
        type,
        'nosniff',
      ]);
      expect(res.body.length).toBeGreaterThan(100);
    }
  });
});

describe('GET /api/docs/assets/{name}', () => {
  it('sends the Swagger UI bundle gzip-compressed when asked, and the same file uncompressed otherwise', async () => {
    const plain = await rawGet('/api/docs/assets/swagger-ui-bundle.js');
    const gzipped = await rawGet('/api/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip' });
    expect([plain.status, plain.headers['content-encoding']]).toEqual([200, undefined]);
    expect([gzipped.status, gzipped.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(plain.body.toString('utf8')).toContain('SwaggerUIBundle');
    // Compressed to about a quarter: what a browser downloads.
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.headers.vary).toMatch(/accept-encoding/i);
  });

  it('answers 304 with no body to a client holding the current ETag', async () => {
    const first = await rawGet('/api/docs/assets/swagger-ui.css', { 'accept-encoding': 'gzip' });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await rawGet('/api/docs/assets/swagger-ui.css', { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect([again.status, again.body.length]).toEqual([304, 0]);
  });

  it('answers 404 for any other name', async () => {
    for (const name of ['index.html', 'swagger-ui.js.map', '%2E%2E%2Fpackage.json']) {
      const res = await rawGet(`/api/docs/assets/${name}`);
      expect([name, res.status, JSON.parse(res.body.toString('utf8')).detail]).toEqual([
        name,
        404,
        expect.stringMatching(/^No asset /),
      ]);
    }
  });
});
