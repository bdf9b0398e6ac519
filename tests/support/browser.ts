/**
 * A real headless Chromium (Debian's `chromium` package, installed by
 * .ci/run) driven through playwright-core, and a tiny static server that
 * gives the test page a real http origin the API accepts.
 *
 * Origin: the API's CORS (@middy/http-cors and serverless-offline's httpApi
 * CORS, both fed from CORS_ORIGINS) matches the Origin header exactly, port
 * included, and the test service allows http://localhost:3000 and
 * http://app.example.test (tests/support/service-env.ts). Rather than bind a
 * fixed port (80 or 3000, which may be taken), the page server listens on a
 * free port on 127.0.0.1 and Chromium resolves app.example.test to it with
 * --host-resolver-rules="MAP app.example.test 127.0.0.1:<port>". The page URL
 * stays http://app.example.test/, so its Origin is exactly
 * "http://app.example.test": an allowed origin, without touching the service
 * settings, and never leaving loopback.
 *
 * http://app.example.test is not a secure context (no https, not localhost),
 * so crypto.subtle would be missing; --unsafely-treat-insecure-origin-as-secure
 * gives the page the same Web Crypto an https SPA has.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** The allowed CORS origin the page is served from (see the comment above). */
const APP_HOST = 'app.example.test';
export const APP_ORIGIN = `http://${APP_HOST}`;

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export interface PageServer {
  port: number;
  close(): Promise<void>;
}

/** Serves one HTML page at / (and nothing else) on 127.0.0.1, on a free port. */
export async function servePage(html: string): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/' || req.url?.startsWith('/?'))) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
      return;
    }
    res.writeHead(req.url === '/favicon.ico' ? 204 : 404);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Headless Chromium whose app.example.test (and any otherHosts, e.g. an
 * origin the API does not allow) resolves to the page server.
 * playwright's launch gives every run a fresh temporary profile. The
 * background-networking flags keep Chromium from dialling out (there is no
 * network here beyond loopback, and it would flood refused connections).
 */
export async function launchChromium(pagePort: number, otherHosts: string[] = []): Promise<Browser> {
  const rules = [APP_HOST, ...otherHosts].map((host) => `MAP ${host} 127.0.0.1:${pagePort}`).join(', ');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=${rules}`,
      `--unsafely-treat-insecure-origin-as-secure=${APP_ORIGIN}`,
    ],
  });
}
