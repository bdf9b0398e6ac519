/**
 * The estimation platform client (lib/integrations/estimation-platform.ts)
 * against the fake platform (tests/fakes/estimation-platform-server.ts) over
 * real HTTP: the four calls, the remote's idempotency and firm isolation as
 * the client sees them, the outcomes of refusals and failures, retries and
 * the deadline. The fake is driven through its control client, as tests in
 * other processes drive it; each test registers keys of its own.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import {
  ESTIMATION_SOURCE_APP,
  type EstimationClaimPayload,
  type EstimationClientOptions,
  type EstimationItem,
  EstimationPlatformClient,
  type EstimationResult,
} from '../../../lib/integrations/estimation-platform';
import { logger } from '../../../lib/observability/logger';
import {
  DEFAULT_ESTIMATION_CATALOG,
  type FakeEstimationPlatform,
  startFakeEstimationPlatform,
} from '../../fakes/estimation-platform-server';
import { fakeEstimation } from '../../support/fake-estimation';

let fake: FakeEstimationPlatform;
let control: ReturnType<typeof fakeEstimation>;

beforeAll(async () => {
  fake = await startFakeEstimationPlatform();
  control = fakeEstimation(fake.url);
});
afterAll(() => fake.close());
beforeEach(() => {
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

/** Small timeouts and pauses keep the failure tests fast. */
const FAST = { timeoutMs: 300, attempts: 3, backoffMs: 5, deadlineMs: 3_000 };

/** A registered key of a firm of its own (or of `firm`). */
async function newKey(firm?: string): Promise<string> {
  const key = `est-${randomUUID()}`;
  await control.registerKey(key, firm);
  return key;
}

const client = (apiKey: string, options: Partial<EstimationClientOptions> = {}) =>
  new EstimationPlatformClient({ baseUrl: fake.url, apiKey, ...FAST, ...options });

const item = (externalId: string, overrides: Partial<EstimationItem> = {}): EstimationItem => ({
  external_id: externalId,
  title: `Item ${externalId}`,
  quantity: 1,
  ...overrides,
});

const payload = (overrides: Partial<EstimationClaimPayload> = {}): EstimationClaimPayload => ({
  external_reference: `claim-${randomUUID()}`,
  coverage_type: 'rcv',
  claim_type: 'residential',
  metadata: { source_claim_number: 'CLM-1001', adjuster_name: 'Ada Adjuster' },
  loss_address: { zip: '30301' },
  policyholder: { name: 'Pat Policyholder' },
  created_by: { user_id: 'user-1', email: 'ada@example.com' },
  items: [
    item('i-1', {
      brand: 'Acme',
      room: 'Kitchen',
      estimated_price: 129.99,
      details: { model: 'X1', serial: 'SN-1' },
      photos: [{ url: 'https://media.example.com/p1.jpg', kind: 'primary' }],
    }),
    item('i-2', { quantity: 2, room: 'Bedroom' }),
  ],
  ...overrides,
});

/** The body of an ok outcome (fails the test with the outcome otherwise). */
function okBody<T>(result: EstimationResult<T>): T {
  if (result.outcome !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.body;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('configuration', () => {
  it('names our service with a fixed source app segment', () => {
    expect(ESTIMATION_SOURCE_APP).toBe('contents-inventory');
  });

  it('normalises the base URL from the settings and keeps the defaults inside an HTTP function', () => {
    const c = EstimationPlatformClient.fromSettings(
      { ESTIMATION_PLATFORM_BASE_URL: 'api.estimation.example.com/' },
      'k',
    );
    expect(c.baseUrl).toBe('https://api.estimation.example.com');
    expect(c.deadlineMs).toBe(20_000);
    expect(c.timeoutMs).toBe(8_000);
    expect(c.timeoutMs).toBeLessThan(c.deadlineMs);
  });

  it('throws a clear Error, before any call, without a base URL or a usable key', () => {
    expect(() => new EstimationPlatformClient({ baseUrl: '', apiKey: 'k' })).toThrow(/no base URL/);
    expect(() => new EstimationPlatformClient({ baseUrl: fake.url, apiKey: '  ' })).toThrow(/no API key/);
    expect(() => new EstimationPlatformClient({ baseUrl: fake.url, apiKey: 'bad key' })).toThrow(/printable ASCII/);
    expect(() => client('k').appendItems('', [item('x')])).toThrow(/claim key/);
  });
});

describe('catalog', () => {
  it('answers the default catalog: schedules with nested profiles, one with none', async () => {
    const key = await newKey();
    const result = await client(key).catalog();
    expect(result).toEqual({ outcome: 'ok', status: 200, body: { schedules: DEFAULT_ESTIMATION_CATALOG } });
    const [first, second] = okBody(result).schedules;
    expect(first.shopping_profiles.map((p) => p.is_default)).toEqual([false, true]);
    expect(second.shopping_profiles).toEqual([]);
  });

  it("answers the firm's own catalog", async () => {
    const key = await newKey();
    const schedules = [{ id: randomUUID(), name: 'Firm schedule', is_default: true, shopping_profiles: [] }];
    await control.setCatalog(key, schedules);
    expect(okBody(await client(key).catalog())).toEqual({ schedules });
  });

  it('answers 401 to an unauthenticated request (how an operator recognises the API host)', async () => {
    const res = await fetch(`${fake.url}/intake/catalog`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Invalid API key' });
  });

  it('reads unauthorized for an unknown key', async () => {
    expect(await client(`unknown-${randomUUID()}`).catalog()).toEqual({ outcome: 'unauthorized' });
  });
});

describe('createClaim', () => {
  it('creates once (201, created: true), then names the same claim for a repeated external_reference', async () => {
    const key = await newKey();
    const body = payload();
    const first = await client(key).createClaim(body);
    expect(first).toMatchObject({ outcome: 'ok', status: 201 });
    const created = okBody(first);
    expect(created).toEqual({
      claim_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      claim_key: expect.any(String),
      status: 'intake',
      item_count: 2,
      created: true,
    });

    const again = await client(key).createClaim({ ...body, items: [...body.items, item('i-3')] });
    expect(again).toEqual({ outcome: 'ok', status: 200, body: { ...created, created: false } });

    const [remote] = await control.claims(key);
    expect(remote.items.map((i) => i.external_id)).toEqual(['i-1', 'i-2']);
    expect(remote.items[0]).toMatchObject({ photos: [{ url: 'https://media.example.com/p1.jpg', kind: 'primary' }] });
    expect(remote.request).toMatchObject({ external_reference: body.external_reference, coverage_type: 'rcv' });
    const sent = await control.requests({ key, match: `POST /intake/${ESTIMATION_SOURCE_APP}` });
    expect(sent.map((r) => r.status)).toEqual([201, 200]);
  });

  it('keeps the dedupe per firm: the same external_reference creates a claim in another firm', async () => {
    const body = payload();
    const a = okBody(await client(await newKey()).createClaim(body));
    const b = okBody(await client(await newKey()).createClaim(body));
    expect(b.created).toBe(true);
    expect(b.claim_id).not.toBe(a.claim_id);
  });

  it('passes a FastAPI validation list through as "loc: msg" text', async () => {
    const key = await newKey();
    const result = await client(key).createClaim(
      payload({ items: [{ external_id: 'i-1', quantity: 0 } as unknown as EstimationItem] }),
    );
    expect(result).toEqual({
      outcome: 'unprocessable',
      detail: 'body.items.0.title: Field required; body.items.0.quantity: Input should be greater than 0',
    });
    expect(await control.claims(key)).toEqual([]);
    // A 4xx is final: one request.
    expect(await control.requests({ key })).toHaveLength(1);
  });

  it('passes a string detail through as is', async () => {
    const key = await newKey();
    await control.failNext('422', { key, detail: 'Injected validation failure' });
    expect(await client(key).createClaim(payload())).toEqual({
      outcome: 'unprocessable',
      detail: 'Injected validation failure',
    });
  });

  it('retries 500 and 503 and succeeds', async () => {
    const key = await newKey();
    await control.failNext('500', { key });
    await control.failNext('503', { key });
    const result = await client(key).createClaim(payload());
    expect(result).toMatchObject({ outcome: 'ok', status: 201, body: { created: true } });
    expect((await control.requests({ key })).map((r) => r.status)).toEqual([500, 503, 201]);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn).toHaveBeenCalledWith(
      'estimation platform call failed; retrying',
      expect.objectContaining({ call: 'POST /intake/contents-inventory', attempt: 1, status: 500 }),
    );
  });

  it('recovers a create the remote applied but whose answer was lost: the retry names the claim', async () => {
    const key = await newKey();
    await control.failNext('reset', { key, afterApply: true });
    const result = await client(key).createClaim(payload());
    expect(result).toMatchObject({ outcome: 'ok', status: 200, body: { created: false, item_count: 2 } });
    expect(await control.claims(key)).toHaveLength(1);
  });

  it('retries a 429', async () => {
    const key = await newKey();
    await control.failNext('429', { key });
    expect(await client(key).createClaim(payload())).toMatchObject({ outcome: 'ok', status: 201 });
  });
});

describe('searchClaims', () => {
  it("lists the firm's claims only; q matches claim number or policyholder, case-insensitively", async () => {
    const firm = `firm-${randomUUID()}`;
    const key = await newKey(firm);
    const colleague = await newKey(firm);
    const stranger = await newKey();
    const seeded = await control.seedClaim(key, {
      claim_number: 'HO-2026-0042',
      policyholder_name: 'Jordan Rivers',
      archived: true,
    });
    const created = okBody(
      await client(colleague).createClaim(
        payload({ metadata: { source_claim_number: 'CLM-7' }, policyholder: { name: 'Sam Lake' } }),
      ),
    );
    await control.seedClaim(stranger, { claim_number: 'HO-2026-0042', policyholder_name: 'Jordan Rivers' });

    const all = okBody(await client(key).searchClaims());
    expect(all.claims).toEqual([
      {
        claim_id: created.claim_id,
        claim_key: created.claim_key,
        claim_number: 'CLM-7',
        policyholder_name: 'Sam Lake',
        archived: false,
      },
      {
        claim_id: seeded.claim_id,
        claim_key: seeded.claim_key,
        claim_number: 'HO-2026-0042',
        policyholder_name: 'Jordan Rivers',
        archived: true,
      },
    ]);
    expect(okBody(await client(key).searchClaims('ho-2026')).claims.map((c) => c.claim_id)).toEqual([seeded.claim_id]);
    expect(okBody(await client(key).searchClaims('RIVERS')).claims.map((c) => c.claim_id)).toEqual([seeded.claim_id]);
    expect(okBody(await client(key).searchClaims('nobody')).claims).toEqual([]);
    const [request] = await control.requests({ key, match: 'GET /intake/claims' });
    expect(request.query).toEqual({ q: '' });
  });
});

describe('appendItems', () => {
  it('adds new items and skips those already on the claim, per external_id', async () => {
    const key = await newKey();
    const created = okBody(await client(key).createClaim(payload()));
    const first = await client(key).appendItems(created.claim_key, [item('i-2'), item('i-3'), item('i-4')]);
    expect(first).toEqual({ outcome: 'ok', status: 200, body: { added: 2, skipped: 1, item_count: 4 } });
    const again = await client(key).appendItems(created.claim_key, [item('i-3'), item('i-4')]);
    expect(okBody(again)).toEqual({ added: 0, skipped: 2, item_count: 4 });
    const [remote] = await control.claims(key);
    expect(remote.items.map((i) => i.external_id)).toEqual(['i-1', 'i-2', 'i-3', 'i-4']);
  });

  it("round-trips claim keys with '/', spaces, '+', '#', '?', '%' and unicode", async () => {
    const key = await newKey();
    const awkward = `CLM 2026/ä+b #1?x=%20/ÿ ${randomUUID()}`;
    await control.seedClaim(key, { claim_number: 'HO-9', policyholder_name: 'Zoë', claim_key: awkward });
    expect(okBody(await client(key).appendItems(awkward, [item('a')]))).toEqual({
      added: 1,
      skipped: 0,
      item_count: 1,
    });
    // The fake's own keys are awkward too.
    const created = okBody(await client(key).createClaim(payload()));
    expect(created.claim_key).toMatch(/\/.*\+.* /);
    expect(okBody(await client(key).appendItems(created.claim_key, [item('b')])).item_count).toBe(3);
    const [sent] = await control.requests({ key, match: '/items' });
    expect(sent.path).toBe(`/intake/contents-inventory/${encodeURIComponent(awkward)}/items`);
  });

  it("answers not_found for another firm's claim and for an unknown key", async () => {
    const owner = await newKey();
    const other = await newKey();
    const created = okBody(await client(owner).createClaim(payload()));
    expect(await client(other).appendItems(created.claim_key, [item('x')])).toEqual({
      outcome: 'not_found',
      detail: 'Claim not found',
    });
    expect(await client(other).appendItems(`nope-${randomUUID()}`, [item('x')])).toEqual({
      outcome: 'not_found',
      detail: 'Claim not found',
    });
    expect((await control.claims(owner))[0].items).toHaveLength(2);
  });

  it('reads unauthorized for an unknown key', async () => {
    expect(await client(`unknown-${randomUUID()}`).appendItems('CLM 1', [item('x')])).toEqual({
      outcome: 'unauthorized',
    });
  });
});

describe('failures', () => {
  it('answers unavailable (server_error, may have applied) when 503 persists, after every attempt', async () => {
    const key = await newKey();
    await control.failNext('503', { key, count: 3 });
    const result = await client(key).createClaim(payload());
    expect(result).toEqual({
      outcome: 'unavailable',
      reason: 'server_error',
      status: 503,
      detail: expect.stringMatching(/^estimation platform unreachable: POST \/intake\/contents-inventory: HTTP 503: /),
      mayHaveApplied: true,
    });
    expect(result.outcome === 'unavailable' && result.detail).toMatch(/after 3 attempts/);
    expect(await control.requests({ key })).toHaveLength(3);
  });

  it('answers unavailable (timeout) within the deadline when the remote never answers', async () => {
    const key = await newKey();
    await control.failNext('timeout', { key, count: 10 });
    const started = Date.now();
    const result = await client(key, { timeoutMs: 200, attempts: 10, deadlineMs: 700 }).catalog();
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({
      outcome: 'unavailable',
      reason: 'timeout',
      mayHaveApplied: true,
      detail: expect.stringContaining('GET /intake/catalog: no answer within'),
    });
    expect(elapsed).toBeLessThan(700 + 300);
    const made = (await control.requests({ key })).length;
    expect(made).toBeGreaterThanOrEqual(2);
    expect(made).toBeLessThan(10);
  });

  it('answers unavailable (network, may have applied) when the connection is dropped', async () => {
    const key = await newKey();
    await control.failNext('reset', { key, count: 3 });
    const result = await client(key).appendItems('CLM 1', [item('x')]);
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'network', mayHaveApplied: true });
    expect(result.outcome === 'unavailable' && result.detail).toMatch(
      /^estimation platform unreachable: POST \/intake\/contents-inventory\/CLM%201\/items: /,
    );
  });

  it('answers unavailable (unreadable) for a 2xx that is not JSON, without retrying', async () => {
    const key = await newKey();
    await control.failNext('garbage', { key });
    const result = await client(key).catalog();
    expect(result).toEqual({
      outcome: 'unavailable',
      reason: 'unreadable',
      status: 200,
      detail: expect.stringContaining('not JSON: <html>maintenance</html>'),
      mayHaveApplied: true,
    });
    expect(await control.requests({ key })).toHaveLength(1);
  });

  it('answers unavailable (unreadable) for JSON that is not the contract shape', async () => {
    const shaped = new EstimationPlatformClient({
      baseUrl: 'https://api.example.test',
      apiKey: 'k',
      fetch: async () => Response.json({ schedules: [{ id: 's', name: 'S' }] }),
    });
    const result = await shaped.catalog();
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'unreadable', status: 200, mayHaveApplied: true });
    expect(result.outcome === 'unavailable' && result.detail).toMatch(/schedules\.0\.is_default/);
  });

  it('answers unavailable (rejected, not applied) for another status, at once', async () => {
    let calls = 0;
    const forbidden = new EstimationPlatformClient({
      baseUrl: 'https://api.example.test',
      apiKey: 'k',
      fetch: async () => {
        calls += 1;
        return Response.json({ detail: 'Forbidden' }, { status: 403 });
      },
    });
    expect(await forbidden.searchClaims('x')).toEqual({
      outcome: 'unavailable',
      reason: 'rejected',
      status: 403,
      detail: 'estimation platform unreachable: GET /intake/claims: HTTP 403: Forbidden',
      mayHaveApplied: false,
    });
    expect(calls).toBe(1);
  });

  it('answers unavailable (network, not applied) when nothing listens', async () => {
    const port = await closedPort();
    const result = await new EstimationPlatformClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      ...FAST,
    }).createClaim(payload());
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'network', mayHaveApplied: false });
    expect(result.outcome === 'unavailable' && result.detail).toMatch(
      /^estimation platform unreachable: POST \/intake\/contents-inventory: connect ECONNREFUSED 127\.0\.0\.1:\d+/,
    );
  });

  it('keeps may-have-applied once an earlier attempt may have applied', async () => {
    let calls = 0;
    const flaky = new EstimationPlatformClient({
      baseUrl: 'https://api.example.test',
      apiKey: 'k',
      ...FAST,
      timeoutMs: 100,
      fetch: (_url, init) => {
        calls += 1;
        if (calls === 1)
          // Sent, then no answer: the attempt times out.
          return new Promise((_resolve, reject) =>
            init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
          );
        const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
        return Promise.reject(new TypeError('fetch failed', { cause: refused }));
      },
    });
    const result = await flaky.appendItems('CLM 1', [item('x')]);
    expect(result).toMatchObject({ outcome: 'unavailable', reason: 'network', mayHaveApplied: true });
    expect(result.outcome === 'unavailable' && result.detail).toMatch(
      /connect ECONNREFUSED 10\.0\.0\.1:443 \(after 3 attempts\)$/,
    );
    expect(calls).toBe(3);
  });

  it('ends a retried call with the outcome of its final answer', async () => {
    const key = await newKey();
    await control.failNext('timeout', { key });
    await control.failNext('422', { key, detail: 'late refusal' });
    const started = Date.now();
    const result = await client(key, { timeoutMs: 150 }).createClaim(payload());
    expect(result).toEqual({ outcome: 'unprocessable', detail: 'late refusal' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('reads injected 401 and 404 as final outcomes', async () => {
    const key = await newKey();
    await control.failNext('401', { key });
    expect(await client(key).catalog()).toEqual({ outcome: 'unauthorized' });
    await control.failNext('404', { key });
    expect(await client(key).catalog()).toEqual({ outcome: 'not_found', detail: 'Claim not found' });
    expect(await control.requests({ key })).toHaveLength(2);
  });
});
