/**
 * localstack/fair-share-proxy.js: the workers' DynamoDB requests reach the
 * emulator a few at a time, queued in arrival order, bytes and headers
 * unchanged; a caller that goes away frees its place.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const { startFairShareProxy } = require('../../../localstack/fair-share-proxy.js');

interface Upstream {
  url: string;
  peak: number;
  seen: { body: string; host: string | undefined; order: string | undefined }[];
  close(): Promise<void>;
}

/** An emulator stand-in that holds each answer `holdMs` and records how many it held at once. */
async function startUpstream(holdMs: number): Promise<Upstream> {
  let inFlight = 0;
  const upstream = {
    url: '',
    peak: 0,
    seen: [] as Upstream['seen'],
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    inFlight++;
    upstream.peak = Math.max(upstream.peak, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      upstream.seen.push({ body, host: req.headers.host, order: req.headers['x-order'] as string | undefined });
      // 'hang' is never answered: only its caller going away can end it.
      if (body === 'hang') return;
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-echo': 'yes' }).end(`echo:${body}`);
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(concurrency: number, holdMs: number) {
  const upstream = await startUpstream(holdMs);
  closers.push(upstream.close);
  const proxy = await startFairShareProxy({ target: upstream.url, concurrency });
  closers.push(proxy.close);
  return { upstream, proxy };
}

it('lets at most its share through at once and answers every request with its own answer', async () => {
  const { upstream, proxy } = await setUp(3, 40);
  const answers = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const res = await fetch(proxy.url, { method: 'POST', body: `request ${i}`, headers: { 'x-order': String(i) } });
      return { status: res.status, echo: res.headers.get('x-echo'), body: await res.text() };
    }),
  );
  expect(upstream.peak).toBe(3);
  expect(answers).toEqual(
    Array.from({ length: 20 }, (_, i) => ({ status: 200, echo: 'yes', body: `echo:request ${i}` })),
  );
});

it('sends the queued requests on in the order they came, with the Host the caller signed', async () => {
  const { upstream, proxy } = await setUp(1, 20);
  const host = new URL(proxy.url).host;
  const sent: Promise<string>[] = [];
  for (let i = 0; i < 5; i++) {
    // Each request is under way before the next is made.
    sent.push(
      fetch(proxy.url, { method: 'POST', body: String(i), headers: { 'x-order': String(i) } }).then((r) => r.text()),
    );
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(await Promise.all(sent)).toEqual(['echo:0', 'echo:1', 'echo:2', 'echo:3', 'echo:4']);
  expect(upstream.seen.map((s) => s.order)).toEqual(['0', '1', '2', '3', '4']);
  expect(new Set(upstream.seen.map((s) => s.host))).toEqual(new Set([host]));
});

it('frees the place of a caller that goes away', async () => {
  const { upstream, proxy } = await setUp(1, 10);
  const gone = new AbortController();
  const first = fetch(proxy.url, { method: 'POST', body: 'hang', signal: gone.signal }).catch((err) => err);
  while (upstream.seen.length === 0) await new Promise((r) => setTimeout(r, 10));
  gone.abort();
  expect((await first).name).toBe('AbortError');
  // With the only place still held by the request that hangs, this would never be answered.
  const second = await fetch(proxy.url, { method: 'POST', body: 'second' });
  expect(await second.text()).toBe('echo:second');
}, 10_000);

it('answers 502 when the emulator cannot be reached', async () => {
  const upstream = await startUpstream(0);
  await upstream.close();
  const proxy = await startFairShareProxy({ target: upstream.url, concurrency: 2 });
  closers.push(proxy.close);
  const res = await fetch(proxy.url, { method: 'POST', body: 'x' });
  expect(res.status).toBe(502);
  expect(await res.text()).toMatch(/fair-share proxy/);
  // Its place is free again.
  const again = await fetch(proxy.url, { method: 'POST', body: 'y' });
  expect(again.status).toBe(502);
});

it('refuses a share below one', async () => {
  await expect(startFairShareProxy({ target: 'http://127.0.0.1:1', concurrency: 0 })).rejects.toThrow(/concurrency/);
});
