/**
 * What every outbound client does with a redirect and with an error body,
 * against a real local server: a 3xx to an internal address is a final
 * failure naming its status, the Location never requested; a long error body
 * reaches a detail or a message only bounded and scrubbed of addresses and
 * credentials.
 * Covers: lib/observability/outbound-failures.ts (bodyExcerpt, refusedRedirect) and
 * the core (outbound-http.ts) with the clients using it: json-http.ts (claims-platform.ts,
 * estimation-platform.ts), billing-service.ts, ai-gateway-attempt.ts,
 * speech-to-text.ts, mail.ts, chat.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadSettings, resetSettings } from '../../../lib/config';
import { postChatCompletion } from '../../../lib/integrations/ai-gateway-attempt';
import { BillingServiceClient } from '../../../lib/integrations/billing-service';
import { postJobOutcome } from '../../../lib/integrations/chat';
import { ClaimsPlatformClient } from '../../../lib/integrations/claims-platform';
import { EstimationPlatformClient } from '../../../lib/integrations/estimation-platform';
import { bodyExcerpt } from '../../../lib/observability/outbound-failures';
import { MailClient } from '../../../lib/integrations/mail';
import { SpeechToTextClient } from '../../../lib/integrations/speech-to-text';
import { logger } from '../../../lib/observability/logger';
import { type FakeHttpServer, listenFake } from '../../fakes/http';

/** Where the redirects point: what a hostile platform would want us to ask for (the server records it if asked). */
const INTERNAL_PATH = '/internal/latest/meta-data/iam/security-credentials';

const EMAIL = 'jane.doe@example.com';
const TOKEN = 'sk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
/**
 * An error page far longer than any detail, with credentials at its start and
 * an address straddling the 300th character, where a cut made before the
 * scrubbing would leave part of it readable.
 */
const ERROR_BODY = [
  `Upstream failure for ${EMAIL}: Authorization: Bearer ${TOKEN} was refused.`.padEnd(285, '.'),
  ` owner ${EMAIL} `,
  'stack frame '.repeat(300),
].join('');

type Mode = { kind: 'redirect'; status: number } | { kind: 'error' } | { kind: 'json-error'; status: number };

let server: FakeHttpServer;
let mode: Mode;
const requests: string[] = [];

function answer(req: IncomingMessage, res: ServerResponse) {
  req.resume();
  req.on('end', () => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url?.startsWith(INTERNAL_PATH)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ SecretAccessKey: TOKEN }));
      return;
    }
    if (mode.kind === 'redirect') {
      res.writeHead(mode.status, { location: `${server.url}${INTERNAL_PATH}` }).end('moved');
      return;
    }
    if (mode.kind === 'json-error') {
      const body = JSON.stringify({ error: 'validation_failed', detail: ERROR_BODY });
      res.writeHead(mode.status, { 'content-type': 'application/json' }).end(body);
      return;
    }
    res.writeHead(500, { 'content-type': 'text/plain' }).end(ERROR_BODY);
  });
}

beforeAll(async () => {
  server = await listenFake(answer);
});
afterAll(() => server.close());
beforeEach(() => {
  requests.length = 0;
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

/** No internal address asked for, and the one request the client made. */
function expectOneRequestOnly(request: string) {
  expect(requests.filter((r) => r.includes(INTERNAL_PATH))).toEqual([]);
  expect(requests).toEqual([request]);
}

/** A detail or message that carries the error body: bounded, with neither the address nor the token in it. */
function expectScrubbedExcerpt(text: string, bound: number) {
  expect(text).toContain('Upstream failure for [email]');
  expect(text).toContain('[token]');
  for (const secret of [EMAIL, 'jane.doe', 'example.com', TOKEN, 'sk_live']) expect(text).not.toContain(secret);
  expect(text.length).toBeLessThanOrEqual(bound);
}

const FAST = { timeoutMs: 2_000, backoffMs: 1, deadlineMs: 5_000 };

describe.each([302, 307])('a %i redirect to an internal address is a final failure, never followed', (status) => {
  beforeEach(() => {
    mode = { kind: 'redirect', status };
  });

  it('claims platform (json-http.ts): rejected, naming the status, not retried', async () => {
    const client = new ClaimsPlatformClient({ baseUrl: server.url, token: 't', ...FAST });
    const result = await client.analyzeItem('claim-1', 'item-1');
    expect(result).toEqual({
      outcome: 'unavailable',
      reason: 'rejected',
      status,
      detail: `claims platform unreachable: POST /api/v1/claims/claim-1/items/item-1/analyze: a redirect (HTTP ${status}), not followed`,
      mayHaveApplied: false,
    });
    expectOneRequestOnly('POST /api/v1/claims/claim-1/items/item-1/analyze');
  });

  it('estimation platform (json-http.ts): rejected, naming the status, not retried', async () => {
    const client = new EstimationPlatformClient({ baseUrl: server.url, apiKey: 'k', ...FAST });
    const result = await client.catalog();
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'rejected', status });
    expect(result.outcome === 'unavailable' && result.detail).toContain(`a redirect (HTTP ${status}), not followed`);
    expectOneRequestOnly('GET /intake/catalog');
  });

  it('billing service: rejected, naming the status, not retried', async () => {
    const client = new BillingServiceClient({ domain: server.url, apiKey: 'k', app: 'a', ...FAST });
    const result = await client.spend({ teamId: 1, userId: null, amount: 3, reference: 'r-1', description: 'd' });
    expect(result).toMatchObject({
      outcome: 'unavailable',
      error: { reason: 'rejected', status, detail: `a redirect (HTTP ${status}), not followed`, mayHaveApplied: false },
    });
    expectOneRequestOnly('POST /api/v1/credits/spend');
  });

  it('AI gateway: a failure not worth retrying, naming the status', async () => {
    const attempt = await postChatCompletion({ baseUrl: server.url, apiKey: 'k', timeoutMs: 2_000 }, '{}');
    expect(attempt).toMatchObject({
      ok: false,
      kind: 'http',
      status,
      message: `a redirect (HTTP ${status}), not followed`,
      retryable: false,
    });
    expectOneRequestOnly('POST /chat/completions');
  });

  it('speech-to-text: SpeechToTextError after one attempt, naming the status', async () => {
    const client = new SpeechToTextClient({ baseUrl: server.url, apiKey: 'k', model: 'nova-3', ...FAST });
    await expect(
      client.transcribe({ audio: new Uint8Array([1, 2, 3]), contentType: 'audio/wav' }),
    ).rejects.toMatchObject({
      name: 'SpeechToTextError',
      kind: 'http',
      status,
      attempts: 1,
      message: expect.stringContaining(`HTTP ${status}`),
    });
    expect(requests).toHaveLength(1);
    expect(requests.filter((r) => r.includes(INTERNAL_PATH))).toEqual([]);
  });

  it('mail: MailError after one attempt, naming the status', async () => {
    const client = new MailClient({
      baseUrl: server.url,
      apiKey: 'k',
      domain: 'mail.example.com',
      from: 'reports@mail.example.com',
      ...FAST,
    });
    await expect(client.send({ to: 'a@example.org', subject: 's', text: 't' })).rejects.toMatchObject({
      name: 'MailError',
      kind: 'http',
      status,
      attempts: 1,
      message: expect.stringContaining(`a redirect (HTTP ${status}), not followed`),
    });
    expectOneRequestOnly('POST /v3/mail.example.com/messages');
  });

  it('chat webhook: logged as a redirect, not followed', async () => {
    const settings = loadSettings({
      env: {},
      overrides: { CHAT_WEBHOOK_URL: `${server.url}/hooks/chat` },
      dotenvPath: '/nonexistent/.env',
      machineFilePath: '/nonexistent/m.env',
    });
    resetSettings(settings);
    try {
      await postJobOutcome({ outcome: 'success', company: 'c', user: 'u', mediaType: 'photo', credits: 1 });
    } finally {
      resetSettings();
    }
    expect(logger.warn).toHaveBeenCalledWith('chat webhook answered a redirect', {
      status,
      detail: `a redirect (HTTP ${status}), not followed`,
    });
    expectOneRequestOnly('POST /hooks/chat');
  });
});

describe('a long error body reaches a detail only bounded and scrubbed', () => {
  beforeEach(() => {
    mode = { kind: 'error' };
  });

  it('claims platform (json-http.ts)', async () => {
    const client = new ClaimsPlatformClient({ baseUrl: server.url, token: 't', ...FAST, attempts: 2 });
    const result = await client.profiles();
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'server_error', status: 500 });
    const { detail } = result as { detail: string };
    expect(detail).toMatch(/^claims platform unreachable: GET \/api\/v1\/profiles: HTTP 500: Upstream failure/);
    expectScrubbedExcerpt(detail, 'claims platform unreachable: GET /api/v1/profiles: HTTP 500: '.length + 300 + 20);
    // The retry's log line carries the same bounded words.
    const [, retryLog] = jest.mocked(logger.warn).mock.calls[0] ?? [];
    expectScrubbedExcerpt((retryLog as { detail: string }).detail, 320);
  });

  it.each([404, 422])('claims platform (json-http.ts): the JSON detail of a %i', async (status) => {
    mode = { kind: 'json-error', status };
    const client = new ClaimsPlatformClient({ baseUrl: server.url, token: 't', ...FAST });
    const result = await client.profiles();
    expect(result).toMatchObject({ outcome: status === 404 ? 'not_found' : 'unprocessable' });
    expectScrubbedExcerpt((result as { detail: string }).detail, 'GET /api/v1/profiles: '.length + 300);
  });

  it('estimation platform (json-http.ts)', async () => {
    const client = new EstimationPlatformClient({ baseUrl: server.url, apiKey: 'k', ...FAST, attempts: 1 });
    const result = await client.catalog();
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'server_error', status: 500 });
    expectScrubbedExcerpt((result as { detail: string }).detail, 400);
  });

  it('billing service', async () => {
    const client = new BillingServiceClient({ domain: server.url, apiKey: 'k', app: 'a', ...FAST, retries: 0 });
    const result = await client.balance({ teamId: 1 });
    expect(result).toMatchObject({ outcome: 'unavailable', error: { reason: 'server_error', status: 500 } });
    if (result.outcome !== 'unavailable') throw new Error('expected unavailable');
    expectScrubbedExcerpt(result.error.detail, 200);
    expectScrubbedExcerpt(result.error.message, 300);
  });

  it('AI gateway', async () => {
    const attempt = await postChatCompletion({ baseUrl: server.url, apiKey: 'k', timeoutMs: 2_000 }, '{}');
    expect(attempt).toMatchObject({ ok: false, kind: 'http', status: 500, retryable: true });
    expectScrubbedExcerpt((attempt as { message: string }).message, 300);
  });

  it('speech-to-text', async () => {
    const client = new SpeechToTextClient({ baseUrl: server.url, apiKey: 'k', model: 'm', ...FAST, maxAttempts: 1 });
    const failure = await client
      .transcribe({ audio: new Uint8Array([1]), contentType: 'audio/wav' })
      .catch((err: unknown) => err as Error);
    expect(failure).toMatchObject({ name: 'SpeechToTextError', kind: 'http', status: 500 });
    expectScrubbedExcerpt((failure as Error).message, 400);
  });

  it('mail', async () => {
    const client = new MailClient({
      baseUrl: server.url,
      apiKey: 'k',
      domain: 'mail.example.com',
      from: 'reports@mail.example.com',
      ...FAST,
      maxAttempts: 1,
    });
    const failure = await client.send({ to: 'a@example.org', subject: 's', text: 't' }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ name: 'MailError', kind: 'http', status: 500 });
    expectScrubbedExcerpt((failure as Error).message, 400);
  });
});

describe('bodyExcerpt', () => {
  it('folds whitespace and leaves a short, clean body as it is', () => {
    expect(bodyExcerpt('  quota\n\n exceeded\t ')).toBe('quota exceeded');
    expect(bodyExcerpt('')).toBe('');
  });

  it('scrubs before it cuts: an address across the bound is masked, not half shown', () => {
    const excerpt = bodyExcerpt(ERROR_BODY);
    expect(excerpt).toHaveLength(300);
    expect(excerpt.endsWith('…')).toBe(true);
    expectScrubbedExcerpt(excerpt, 300);
    expect(excerpt).toContain('owner [email]');
  });

  it('drops a word cut at the end of what it scans of a huge body', () => {
    // Past the scanned start, the token is cut short; what is left of it must not show.
    const body = `${'word '.repeat(397)}${TOKEN} tail`;
    const excerpt = bodyExcerpt(body, 5_000);
    expect(excerpt).not.toContain('sk_live');
    expect(excerpt.endsWith('word')).toBe(true);
  });
});
