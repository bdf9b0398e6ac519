/**
 * The outbound HTTP core (lib/observability/outbound-http.ts) against a real
 * local server: retries of 5xx and of 429 after its Retry-After, an
 * attempt's timeout, the whole call's deadline, redirects refused (or
 * followed only through the caller's check), the byte cap on answers, and
 * error text taken from a body only bounded and scrubbed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { attemptFailed, bodyExcerpt } from '../../../lib/observability/outbound-failures';
import { type OutboundAnswer, type OutboundSettings, sendOutbound } from '../../../lib/observability/outbound-http';
import { type FakeHttpServer, listenFake } from '../../fakes/http';

type Handler = (req: IncomingMessage, res: ServerResponse, count: number) => void;

let server: FakeHttpServer;
let handler: Handler;
const paths: string[] = [];

beforeAll(async () => {
  server = await listenFake((req, res) => {
    req.resume();
    paths.push(req.url ?? '');
    handler(req, res, paths.length);
  });
});
afterAll(() => server.close());
beforeEach(() => {
  paths.length = 0;
});

const FAST: OutboundSettings = { timeoutMs: 2_000, attempts: 3, backoffMs: 1 };

/** What a typical integration makes of an answer: the text of a 2xx, else a failure (5xx and 429 retryable). */
function read({ status, text, headers }: OutboundAnswer): string {
  if (status >= 200 && status < 300) return text;
  const retryAfter = headers.get('retry-after');
  throw attemptFailed({
    kind: 'http',
    status,
    message: `HTTP ${status}: ${bodyExcerpt(text) || 'no body'}`,
    retryable: status >= 500 || status === 429,
    retryAfterMs: retryAfter ? Number(retryAfter) * 1000 : null,
    mayHaveApplied: status >= 500,
  });
}

describe('retries', () => {
  it('retries a 5xx and answers with the next attempt, telling onRetry', async () => {
    handler = (_req, res, count) => res.writeHead(count < 3 ? 503 : 200).end(count < 3 ? 'busy' : 'done');
    const retried: [string, number][] = [];
    const result = await sendOutbound(
      { ...FAST, onRetry: (failure, attempt) => retried.push([failure.message, attempt]) },
      { url: `${server.url}/work` },
      read,
    );
    expect(result).toEqual({ ok: true, value: 'done', attempts: 3 });
    expect(retried).toEqual([
      ['HTTP 503: busy', 1],
      ['HTTP 503: busy', 2],
    ]);
  });

  it('waits for a 429 as long as its Retry-After asks, not the shorter backoff', async () => {
    handler = (_req, res, count) =>
      count === 1 ? res.writeHead(429, { 'retry-after': '1' }).end('slow down') : res.writeHead(200).end('ok');
    const started = Date.now();
    const result = await sendOutbound(FAST, { url: `${server.url}/rate` }, read);
    expect(result).toMatchObject({ ok: true, value: 'ok', attempts: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the attempts, with the last failure and whether any attempt may have applied', async () => {
    handler = (_req, res) => res.writeHead(500).end('broken');
    const result = await sendOutbound(FAST, { url: `${server.url}/x`, method: 'POST', body: '{}' }, read);
    expect(result).toEqual({
      ok: false,
      attempts: 3,
      mayHaveApplied: true,
      failure: expect.objectContaining({ kind: 'http', status: 500, message: 'HTTP 500: broken', retryable: true }),
    });
  });

  it('never retries a failure the reading calls final', async () => {
    handler = (_req, res) => res.writeHead(400).end('bad');
    const result = await sendOutbound(FAST, { url: `${server.url}/x` }, read);
    expect(result).toMatchObject({ ok: false, attempts: 1, mayHaveApplied: false, failure: { status: 400 } });
  });

  it('a connection refused was never sent: retried, and it cannot have been applied', async () => {
    const closed = await listenFake(() => undefined);
    const url = closed.url;
    await closed.close();
    const result = await sendOutbound(FAST, { url: `${url}/x` }, read);
    expect(result).toMatchObject({ ok: false, attempts: 3, mayHaveApplied: false, failure: { kind: 'network' } });
    if (!result.ok) expect(result.failure.message).toMatch(/ECONNREFUSED/);
  });
});

describe('time', () => {
  it('an attempt without an answer within its timeout fails as a retryable timeout that may have applied', async () => {
    handler = (_req, res) => server.hang(res);
    const result = await sendOutbound({ ...FAST, timeoutMs: 100, attempts: 2 }, { url: `${server.url}/slow` }, read);
    expect(result).toEqual({
      ok: false,
      attempts: 2,
      mayHaveApplied: true,
      failure: expect.objectContaining({ kind: 'timeout', message: 'no answer within 100 ms', retryable: true }),
    });
  });

  it('the whole call ends within its deadline, however many attempts are left', async () => {
    handler = (_req, res) => server.hang(res);
    const started = Date.now();
    const result = await sendOutbound(
      { timeoutMs: 200, deadlineMs: 500, attempts: 10, backoffMs: 1 },
      { url: `${server.url}/slow` },
      read,
    );
    const took = Date.now() - started;
    expect(took).toBeLessThan(1_000);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.attempts).toBeLessThanOrEqual(3);
    expect(result.failure.kind).toBe('timeout');
    // The last attempt gets what is left of the deadline, not its whole timeout.
    expect(result.failure.message).toMatch(/^no answer within \d+ ms$/);
  });

  it('a retry that the deadline leaves no time for is not made', async () => {
    handler = (_req, res) => res.writeHead(429, { 'retry-after': '5' }).end('later');
    const started = Date.now();
    const result = await sendOutbound({ ...FAST, deadlineMs: 1_000 }, { url: `${server.url}/x` }, read);
    expect(Date.now() - started).toBeLessThan(900);
    expect(result).toMatchObject({ ok: false, attempts: 1, failure: { status: 429 } });
  });

  it("the request's own signal stops the call, in the caller's words, without a retry", async () => {
    handler = (_req, res) => server.hang(res);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const result = await sendOutbound(
      { ...FAST, stoppedWords: () => 'it took too long' },
      { url: `${server.url}/x`, signal: stop.signal },
      read,
    );
    expect(result).toMatchObject({
      ok: false,
      attempts: 1,
      failure: { kind: 'timeout', message: 'it took too long', retryable: false },
    });
  });
});

describe('redirects', () => {
  beforeEach(() => {
    handler = (req, res) =>
      req.url === '/moved'
        ? res.writeHead(302, { location: `${server.url}/internal/secret` }).end('moved')
        : res.writeHead(200).end(`at ${req.url}`);
  });

  it('are refused by default: a final failure naming the status, the Location never asked for', async () => {
    const result = await sendOutbound(FAST, { url: `${server.url}/moved` }, read);
    expect(result).toEqual({
      ok: false,
      attempts: 1,
      mayHaveApplied: false,
      failure: expect.objectContaining({
        kind: 'redirect',
        status: 302,
        message: 'a redirect (HTTP 302), not followed',
        retryable: false,
      }),
    });
    expect(paths).toEqual(['/moved']);
  });

  it("are followed only through the caller's check of each target", async () => {
    const checked: string[] = [];
    const follow = (allow: boolean) => (location: string | null, from: URL) => {
      checked.push(`${from.pathname} -> ${location}`);
      return allow && location ? new URL(location, from) : 'not an allowed host';
    };
    expect(await sendOutbound({ ...FAST, followRedirect: follow(true) }, { url: `${server.url}/moved` }, read)).toEqual(
      { ok: true, value: 'at /internal/secret', attempts: 1 },
    );
    paths.length = 0;
    const refused = await sendOutbound(
      { ...FAST, followRedirect: follow(false) },
      { url: `${server.url}/moved` },
      read,
    );
    expect(refused).toMatchObject({
      ok: false,
      failure: { kind: 'refused', status: 302, message: 'not an allowed host' },
    });
    expect(paths).toEqual(['/moved']);
    expect(checked).toHaveLength(2);
  });
});

describe('the byte cap', () => {
  it('refuses an answer whose declared length is over it', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-length': 2_000 }).end('x'.repeat(2_000));
    const result = await sendOutbound({ ...FAST, maxBytes: 1_000 }, { url: `${server.url}/big` }, read);
    expect(result).toMatchObject({
      ok: false,
      attempts: 1,
      failure: { kind: 'too_large', status: 200, message: 'its answer is more than 1000 bytes', retryable: false },
    });
  });

  it('stops reading an answer without a length once it runs past it', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('x'.repeat(800));
      res.end('y'.repeat(800));
    };
    const result = await sendOutbound({ ...FAST, maxBytes: 1_000 }, { url: `${server.url}/big` }, read);
    expect(result).toMatchObject({ ok: false, failure: { kind: 'too_large' } });
    expect(await sendOutbound({ ...FAST, maxBytes: 1_600 }, { url: `${server.url}/big` }, read).then((r) => r.ok)).toBe(
      true,
    );
  });
});

describe('error text', () => {
  it('carries what a body says only bounded and scrubbed', async () => {
    const email = 'jane.doe@example.com';
    const token = 'sk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
    handler = (_req, res) =>
      res.writeHead(502).end(`Upstream for ${email}: Authorization: Bearer ${token} refused. ${'trace '.repeat(500)}`);
    const result = await sendOutbound({ ...FAST, attempts: 1 }, { url: `${server.url}/x` }, read);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const { message } = result.failure;
    expect(message).toContain('Upstream for [email]');
    for (const secret of [email, token, 'sk_live']) expect(message).not.toContain(secret);
    expect(message.length).toBeLessThanOrEqual('HTTP 502: '.length + 300);
  });
});
