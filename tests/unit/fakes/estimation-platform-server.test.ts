/**
 * The fake estimation platform's own behaviour (tests/fakes/estimation-platform-server.ts),
 * which the client tests do not reach: its validation 422s, Bearer keys, the
 * catalog checks of a create, failure targeting and the control API.
 * Requests are made with plain fetch, so the fake is checked on its own.
 */
import { randomUUID } from 'node:crypto';
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

async function newKey(firm?: string): Promise<string> {
  const key = `fake-${randomUUID()}`;
  await control.registerKey(key, firm);
  return key;
}

async function call(
  key: string | null,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${fake.url}${path}`, {
    method,
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const claim = (overrides: Record<string, unknown> = {}) => ({
  external_reference: `ref-${randomUUID()}`,
  metadata: { source_claim_number: 'CLM-1' },
  created_by: { email: 'ada@example.com' },
  items: [{ external_id: 'i-1', title: 'Sofa', quantity: 1 }],
  ...overrides,
});

const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((d) => d.loc.join('.'));

describe('authentication', () => {
  it('accepts a registered key as a Bearer token too, and refuses unknown ones', async () => {
    const key = await newKey();
    expect((await call(null, 'GET', '/intake/catalog', undefined, { authorization: `Bearer ${key}` })).status).toBe(
      200,
    );
    expect(await call('never-registered', 'GET', '/intake/catalog')).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
    expect((await call(null, 'POST', '/intake/contents-inventory', claim())).status).toBe(401);
  });
});

describe('validation', () => {
  it('answers FastAPI-style 422s for a create missing what the contract requires', async () => {
    const key = await newKey();
    const res = await call(key, 'POST', '/intake/contents-inventory', {
      coverage_type: 'full',
      metadata: {},
      items: [
        { title: 'No id', quantity: 1 },
        { external_id: 'x', quantity: 1.5 },
        { external_id: 'y', title: 'T', quantity: -1, photos: [{ url: 'u', kind: 'thumbnail' }] },
      ],
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      'body.external_reference',
      'body.coverage_type',
      'body.metadata.source_claim_number',
      'body.created_by',
      'body.items.0.external_id',
      'body.items.1.title',
      'body.items.1.quantity',
      'body.items.2.quantity',
      'body.items.2.photos.0.kind',
    ]);
    expect(res.body.detail[0]).toEqual({ loc: ['body', 'external_reference'], msg: 'Field required', type: 'missing' });
    expect(await control.claims(key)).toEqual([]);
  });

  it('refuses a body that is not JSON, and an append without items', async () => {
    const key = await newKey();
    const bad = await call(key, 'POST', '/intake/contents-inventory', '{not json');
    expect(bad).toEqual({
      status: 422,
      body: { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] },
    });
    const seeded = await control.seedClaim(key, { claim_number: 'C', policyholder_name: null });
    const path = `/intake/contents-inventory/${encodeURIComponent(seeded.claim_key)}/items`;
    expect(locs((await call(key, 'POST', path, {})).body)).toEqual(['body.items']);
  });

  it("checks the catalog choices against the firm's catalog", async () => {
    const key = await newKey();
    const [standard, none] = DEFAULT_ESTIMATION_CATALOG;
    const create = (body: Record<string, unknown>) => call(key, 'POST', '/intake/contents-inventory', claim(body));
    expect((await create({ depreciation_schedule_id: randomUUID() })).body.detail[0].msg).toBe(
      'Unknown depreciation schedule',
    );
    expect(
      (await create({ depreciation_schedule_id: none.id, shopping_profile_id: standard.shopping_profiles[0].id })).body
        .detail[0].loc,
    ).toEqual(['body', 'shopping_profile_id']);
    // Without a schedule, the profile must be one of the default schedule's.
    expect((await create({ shopping_profile_id: standard.shopping_profiles[1].id })).status).toBe(201);
    expect((await create({ depreciation_schedule_id: none.id })).status).toBe(201);
  });

  it('answers 404 for an unknown source app or path', async () => {
    const key = await newKey();
    expect(await call(key, 'POST', '/intake/another-app', claim())).toEqual({
      status: 404,
      body: { detail: 'Unknown source app' },
    });
    expect((await call(key, 'GET', '/intake/nothing')).status).toBe(404);
  });
});

describe('claims', () => {
  it('makes awkward claim keys and uuids, skips an external_id repeated within one request', async () => {
    const key = await newKey();
    const res = await call(
      key,
      'POST',
      '/intake/contents-inventory',
      claim({
        items: [
          { external_id: 'a', title: 'A', quantity: 1 },
          { external_id: 'a', title: 'A again', quantity: 1 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.claim_key).toMatch(/^CLM \d{4}\/.+\+Ω #\d+$/);
    expect(res.body.claim_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.body.item_count).toBe(1);
    // Unencoded, the key's '/' and '#' break the path: the claim is not found.
    expect(
      (await call(key, 'POST', `/intake/contents-inventory/${res.body.claim_key}/items`, { items: [] })).status,
    ).toBe(404);
  });

  it('shares claims between the keys of one firm, lists them newest first', async () => {
    const firm = `firm-${randomUUID()}`;
    const a = await newKey(firm);
    const b = await newKey(firm);
    const first = await control.seedClaim(a, { claim_number: 'C-1', policyholder_name: 'One' });
    const second = await control.seedClaim(b, { claim_number: 'C-2', policyholder_name: 'Two' });
    const listed = await call(a, 'GET', '/intake/claims?q=');
    expect(listed.body.claims.map((c: { claim_id: string }) => c.claim_id)).toEqual([second.claim_id, first.claim_id]);
    expect((await control.claims(b)).map((c) => c.firm)).toEqual([firm, firm]);
  });
});

describe('failure injection', () => {
  it("targets one route of one key only, leaving other keys' calls alone", async () => {
    const mine = await newKey();
    const theirs = await newKey();
    await control.failNext('503', { key: mine, match: 'GET /intake/claims', count: 2 });
    expect((await call(theirs, 'GET', '/intake/claims')).status).toBe(200);
    expect((await call(mine, 'GET', '/intake/catalog')).status).toBe(200);
    expect((await call(mine, 'GET', '/intake/claims')).status).toBe(503);
    expect((await call(mine, 'GET', '/intake/claims')).status).toBe(503);
    expect((await call(mine, 'GET', '/intake/claims')).status).toBe(200);
  });

  it('matches a key given as match, and records the failure injected', async () => {
    const key = await newKey();
    await control.failNext('garbage', { match: key });
    const res = await fetch(`${fake.url}/intake/catalog`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<html>maintenance</html>');
    expect(await control.requests({ key })).toEqual([
      expect.objectContaining({ method: 'GET', path: '/intake/catalog', key, status: 200, failure: 'garbage' }),
    ]);
  });

  it('applies the request first with afterApply, so the answer alone is lost', async () => {
    const key = await newKey();
    const seeded = await control.seedClaim(key, { claim_number: 'C', policyholder_name: 'P' });
    await control.failNext('500', { key, afterApply: true });
    const path = `/intake/contents-inventory/${encodeURIComponent(seeded.claim_key)}/items`;
    const items = [{ external_id: 'a', title: 'A', quantity: 1 }];
    expect((await call(key, 'POST', path, { items })).status).toBe(500);
    expect((await control.claims(key))[0].items).toEqual(items);
    expect(await call(key, 'POST', path, { items })).toEqual({
      status: 200,
      body: { added: 0, skipped: 1, item_count: 1 },
    });
  });

  it('answers the configured 422 detail, a list included', async () => {
    const key = await newKey();
    const detail = [{ loc: ['body', 'items'], msg: 'Too many items', type: 'value_error' }];
    await control.failNext('422', { key, detail });
    expect(await call(key, 'GET', '/intake/catalog')).toEqual({ status: 422, body: { detail } });
    await control.failNext('422', { key });
    expect((await call(key, 'GET', '/intake/catalog')).body).toEqual({ detail: 'Injected validation failure' });
  });
});

describe('control API', () => {
  it('refuses bad control calls with 400 and unknown paths with 404', async () => {
    await expect(control.setCatalog('never-registered', [])).rejects.toThrow(/answered 400: .*register it first/);
    await expect(control.failNext('418' as never)).rejects.toThrow(/mode must be one of/);
    await expect(control.failNext('500', { count: 0 })).rejects.toThrow(/count must be a positive integer/);
    await expect(control.registerKey('')).rejects.toThrow(/key must be a non-empty string/);
    expect((await fetch(`${fake.url}/__fake/nothing`)).status).toBe(404);
  });

  it('filters requests by match, forgets them on reset, and drops everything with reset(all)', async () => {
    const key = await newKey();
    await call(key, 'GET', '/intake/catalog');
    await call(key, 'GET', '/intake/claims?q=x');
    expect((await control.requests({ key, match: 'GET /intake/claims' })).map((r) => r.query)).toEqual([{ q: 'x' }]);
    await control.reset();
    expect(await control.requests({ key })).toEqual([]);
    expect((await call(key, 'GET', '/intake/catalog')).status).toBe(200);
    // In-process only: dropping keys would disturb other tests sharing a fake.
    fake.reset(true);
    expect((await call(key, 'GET', '/intake/catalog')).status).toBe(401);
  });
});
