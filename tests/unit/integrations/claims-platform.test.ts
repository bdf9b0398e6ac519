/**
 * The claims platform client against the fake claims platform, both speaking
 * the contract of lib/integrations/claims-platform.ts over real HTTP: each
 * call's answers, idempotency, path encoding of opaque keys, team scoping,
 * and how failures (401/404/422, 5xx, 429, timeouts, resets, garbage, nothing
 * listening) come back as outcomes, retried within the deadline.
 * The fake is driven through its control API (tests/support/fake-claims-platform.ts);
 * each test has its own token, so its own team.
 * Covers: lib/integrations/claims-platform.ts, tests/fakes/claims-platform-server.ts.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ClaimsPlatformClient,
  type ClaimsPlatformClientOptions,
  type ClaimsPlatformResult,
  type PlatformAnalyzeAnswer,
  type PlatformClaimAnswer,
  type PlatformClaimFields,
  type PlatformItemAnswer,
  type PlatformItemFields,
  type PlatformPhoto,
  type PlatformPhotoAnswer,
  type PlatformProfiles,
  type PlatformRoom,
  type PlatformRoomsAnswer,
} from '../../../lib/integrations/claims-platform';
import { logger } from '../../../lib/observability/logger';
import { type FakeClaimsPlatform, startFakeClaimsPlatform } from '../../fakes/claims-platform-server';
import { fakeClaimsPlatform } from '../../support/fake-claims-platform';

let fake: FakeClaimsPlatform;
let control: ReturnType<typeof fakeClaimsPlatform>;
let warn: jest.SpyInstance;

beforeAll(async () => {
  fake = await startFakeClaimsPlatform();
  control = fakeClaimsPlatform(fake.url);
});
afterAll(() => fake.close());
beforeEach(() => {
  warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

/** A registered token of a team of its own. */
async function newTeam(team?: string): Promise<string> {
  const token = `tok-${randomUUID()}`;
  await control.registerToken(token, team);
  return token;
}

/** Small timeouts and pauses: the whole file stays fast. */
const client = (token: string, extra: Partial<ClaimsPlatformClientOptions> = {}) =>
  new ClaimsPlatformClient({ baseUrl: fake.url, token, timeoutMs: 1_000, backoffMs: 5, deadlineMs: 4_000, ...extra });

/** The body of an ok result (with its status checked when given); fails the test with the outcome otherwise. */
function ok<T>(result: ClaimsPlatformResult<T>, status?: number): T {
  if (result.outcome !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  if (status !== undefined) expect(result.status).toBe(status);
  return result.body;
}

const claimFields = (overrides: Partial<PlatformClaimFields> = {}): PlatformClaimFields => ({
  claim_number: 'CLM-100',
  insured_name: 'Pat Doe',
  loss_type: 'Fire',
  coverage_type: 'RCV',
  claim_type: 'Residential',
  zip_code: '30301',
  adjuster_name: 'Ada Adjuster',
  adjuster_id: 42,
  ...overrides,
});

const itemFields = (overrides: Partial<PlatformItemFields> = {}): PlatformItemFields => ({
  room_external_id: 'room-1',
  title: 'Sofa',
  quantity: 1,
  brand: 'Ikea',
  condition: 'Good',
  age: '3 years',
  estimated_price: 499.5,
  item_number: 1,
  ...overrides,
});

const rooms: PlatformRoom[] = [
  { external_id: 'room-1', name: 'Living room' },
  { external_id: 'room-2', name: 'Kitchen' },
];

/** A claim with its rooms synced: the key and the client. */
async function claimWithRooms(token: string, reference = `claim-${randomUUID()}`) {
  const c = client(token);
  const { claim_key } = ok(await c.upsertClaim(reference, claimFields()));
  ok(await c.syncRooms(claim_key, rooms));
  return { c, key: claim_key, reference };
}

describe('profiles', () => {
  it('answers a default set, then what the team was given', async () => {
    const token = await newTeam();
    const defaults: PlatformProfiles = ok(await client(token).profiles(), 200);
    expect(defaults.shopping_profiles).toHaveLength(2);
    expect(defaults.depreciation_profiles).toHaveLength(2);
    expect(defaults.shopping_profiles.filter((p) => p.is_default)).toHaveLength(1);
    expect(defaults.depreciation_profiles.filter((p) => p.is_default)).toHaveLength(1);

    const mine: PlatformProfiles = {
      shopping_profiles: [{ id: 'sp-9', name: 'Outlet', is_default: true }],
      depreciation_profiles: [{ id: 'dp-9', name: 'Linear', is_default: false }],
    };
    await control.setProfiles(token, mine);
    expect(ok(await client(token).profiles())).toEqual(mine);
  });
});

describe('upsertClaim', () => {
  it('creates (201, created true), then updates by external reference (200, same key, fields replaced)', async () => {
    const token = await newTeam();
    const c = client(token);
    const first: PlatformClaimAnswer = ok(await c.upsertClaim('claim-a', claimFields()), 201);
    expect(first).toEqual({
      claim_key: expect.stringContaining('LKQ 2026/'),
      claim_id: expect.any(String),
      created: true,
    });

    const second = ok(
      await c.upsertClaim('claim-a', claimFields({ insured_name: 'Sam Doe', shopping_profile_id: 'shop-premium' })),
      200,
    );
    expect(second).toEqual({ ...first, created: false });

    const [claim, ...others] = await control.claims(token);
    expect(others).toEqual([]);
    expect(claim).toMatchObject({ external_reference: 'claim-a', claim_key: first.claim_key });
    expect(claim.fields).toMatchObject({ claim_number: 'CLM-100', insured_name: 'Sam Doe', adjuster_id: 42 });
    expect(claim.fields.shopping_profile_id).toBe('shop-premium');
  });

  it('passes a 422 through with the platform detail (no claim number, a profile the team lacks)', async () => {
    const c = client(await newTeam());
    expect(await c.upsertClaim('claim-b', { claim_number: '' })).toEqual({
      outcome: 'unprocessable',
      detail: 'claim_number is required',
    });
    expect(await c.upsertClaim('claim-b', claimFields({ depreciation_profile_id: 'nope' }))).toEqual({
      outcome: 'unprocessable',
      detail: expect.stringContaining('depreciation_profile_id "nope"'),
    });
  });
});

describe('syncRooms', () => {
  it('creates missing rooms, renames changed ones and is idempotent', async () => {
    const token = await newTeam();
    const c = client(token);
    const { claim_key } = ok(await c.upsertClaim('claim-r', claimFields()));
    const first: PlatformRoomsAnswer = ok(await c.syncRooms(claim_key, rooms), 200);
    expect(first.rooms.map((r) => r.external_id)).toEqual(['room-1', 'room-2']);

    expect(ok(await c.syncRooms(claim_key, rooms))).toEqual(first);
    const renamed = ok(
      await c.syncRooms(claim_key, [
        { external_id: 'room-1', name: 'Lounge' },
        { external_id: 'room-3', name: 'Garage' },
      ]),
    );
    expect(renamed.rooms[0]).toEqual(first.rooms[0]);

    const [claim] = await control.claims(token);
    expect(claim.rooms.map((r) => [r.external_id, r.name])).toEqual([
      ['room-1', 'Lounge'],
      ['room-2', 'Kitchen'],
      ['room-3', 'Garage'],
    ]);
  });
});

describe('upsertItem', () => {
  it('creates, then updates by our item id', async () => {
    const token = await newTeam();
    const { c, key } = await claimWithRooms(token);
    const created: PlatformItemAnswer = ok(await c.upsertItem(key, 'item-1', itemFields()), 201);
    expect(created).toEqual({ item_id: expect.any(String), created: true });
    const updated = ok(await c.upsertItem(key, 'item-1', itemFields({ title: 'Sectional sofa', quantity: 2 })), 200);
    expect(updated).toEqual({ item_id: created.item_id, created: false });

    const [claim] = await control.claims(token);
    expect(claim.items).toHaveLength(1);
    expect(claim.items[0].fields).toMatchObject({ title: 'Sectional sofa', quantity: 2, room_external_id: 'room-1' });
  });

  it('passes the 422 of an unknown room, a bad quantity or a missing title through', async () => {
    const { c, key } = await claimWithRooms(await newTeam());
    expect(await c.upsertItem(key, 'item-2', itemFields({ room_external_id: 'room-9' }))).toEqual({
      outcome: 'unprocessable',
      detail: 'room_external_id "room-9" is not a synced room of this claim',
    });
    expect(await c.upsertItem(key, 'item-2', itemFields({ quantity: 0 }))).toMatchObject({
      outcome: 'unprocessable',
      detail: 'quantity must be a positive integer',
    });
    expect(await c.upsertItem(key, 'item-2', itemFields({ quantity: 1.5 }))).toMatchObject({
      outcome: 'unprocessable',
    });
    expect(await c.upsertItem(key, 'item-2', itemFields({ title: '' }))).toMatchObject({
      outcome: 'unprocessable',
      detail: 'title is required',
    });
  });
});

describe('attachPhoto and analyzeItem', () => {
  it('attaches photos idempotently per photo id, one primary; records the URL without downloading it', async () => {
    const token = await newTeam();
    const { c, key } = await claimWithRooms(token);
    ok(await c.upsertItem(key, 'item-1', itemFields()));
    const photo: PlatformPhoto = { url: 'https://media.example.test/p1.jpg?sig=abc', is_primary: true };
    const first: PlatformPhotoAnswer = ok(await c.attachPhoto(key, 'item-1', 'photo-1', photo), 201);
    expect(ok(await c.attachPhoto(key, 'item-1', 'photo-1', photo), 200)).toEqual({ ...first, created: false });
    ok(await c.attachPhoto(key, 'item-1', 'photo-2', { url: 'https://media.example.test/p2.jpg', is_primary: true }));

    const [claim] = await control.claims(token);
    expect(claim.items[0].photos).toEqual([
      { photo_external_id: 'photo-1', photo_id: first.photo_id, url: photo.url, is_primary: false },
      { photo_external_id: 'photo-2', photo_id: expect.any(String), url: expect.any(String), is_primary: true },
    ]);
  });

  it('queues the analysis once: queued, then already_queued', async () => {
    const token = await newTeam();
    const { c, key } = await claimWithRooms(token);
    ok(await c.upsertItem(key, 'item-1', itemFields()));
    const first: PlatformAnalyzeAnswer = ok(await c.analyzeItem(key, 'item-1'), 202);
    expect(first).toEqual({ status: 'queued' });
    expect(ok(await c.analyzeItem(key, 'item-1'), 202)).toEqual({ status: 'already_queued' });
    const [claim] = await control.claims(token);
    expect(claim.items[0]).toMatchObject({ analyze_requested: true, analyze_requests: 2 });
  });

  it('answers not_found for an unknown item', async () => {
    const { c, key } = await claimWithRooms(await newTeam());
    expect(await c.analyzeItem(key, 'ghost')).toEqual({
      outcome: 'not_found',
      detail: expect.stringMatching(/^POST \/api\/v1\/claims\/.+\/items\/ghost\/analyze: not_found$/),
    });
    expect(await c.attachPhoto(key, 'ghost', 'p', { url: 'https://x.test/a.jpg', is_primary: false })).toMatchObject({
      outcome: 'not_found',
    });
  });
});

describe('path encoding', () => {
  it("round-trips keys and ids with '/', spaces, '?', '#', '%' and Unicode as single segments", async () => {
    const token = await newTeam();
    const urls: string[] = [];
    const c = client(token, {
      fetch: (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    });
    const reference = 'claim/ü 1?#%';
    const item = 'item/✓ 2';
    const photo = 'photo #1/ñ';
    const { claim_key } = ok(await c.upsertClaim(reference, claimFields()));
    expect(claim_key).toMatch(/^LKQ 2026\/\S+ ü#\?%$/);
    ok(await c.syncRooms(claim_key, [{ external_id: 'räum/1', name: 'Küche' }]));
    ok(await c.upsertItem(claim_key, item, itemFields({ room_external_id: 'räum/1' })));
    ok(await c.attachPhoto(claim_key, item, photo, { url: 'https://media.example.test/ü.jpg', is_primary: true }));
    expect(ok(await c.analyzeItem(claim_key, item))).toEqual({ status: 'queued' });

    const [claim] = await control.claims(token);
    expect(claim).toMatchObject({ external_reference: reference, claim_key });
    expect(claim.items[0]).toMatchObject({ external_id: item, photos: [{ photo_external_id: photo }] });

    const sent = await control.requests({ token });
    expect(sent.map((r) => r.path)).toEqual([
      `/api/v1/claims/${encodeURIComponent(reference)}`,
      `/api/v1/claims/${encodeURIComponent(claim_key)}/rooms`,
      `/api/v1/claims/${encodeURIComponent(claim_key)}/items/${encodeURIComponent(item)}`,
      `/api/v1/claims/${encodeURIComponent(claim_key)}/items/${encodeURIComponent(item)}/photos/${encodeURIComponent(photo)}`,
      `/api/v1/claims/${encodeURIComponent(claim_key)}/items/${encodeURIComponent(item)}/analyze`,
    ]);
    expect(sent[1].decoded_path).toBe(`/api/v1/claims/${claim_key}/rooms`);
    expect(urls[0]).toBe(`${fake.url}/api/v1/claims/claim%2F%C3%BC%201%3F%23%25`);
  });

  it('does not send a segment a path cannot carry', async () => {
    const token = await newTeam();
    for (const key of ['', '.', '..', '\uD800'])
      expect(await client(token).syncRooms(key, rooms)).toMatchObject({
        outcome: 'unavailable',
        reason: 'rejected',
        mayHaveApplied: false,
        detail: expect.stringContaining('claims platform request not sent'),
      });
    expect(await control.requests({ token })).toEqual([]);
  });
});

describe('teams and tokens', () => {
  it("answers not_found for another team's claim, and works for a second token of the same team", async () => {
    const owner = await newTeam(`team-${randomUUID()}`);
    const { key } = await claimWithRooms(owner);
    const stranger = client(await newTeam());
    expect(await stranger.syncRooms(key, rooms)).toMatchObject({ outcome: 'not_found' });
    expect(await stranger.upsertItem(key, 'item-1', itemFields())).toMatchObject({ outcome: 'not_found' });

    const [claim] = await control.claims(owner);
    const colleague = `tok-${randomUUID()}`;
    await control.registerToken(colleague, claim.team);
    expect(ok(await client(colleague).upsertItem(key, 'item-1', itemFields()), 201)).toMatchObject({ created: true });
  });

  it('answers unauthorized for an unknown token, and for none without asking', async () => {
    expect(await client(`unknown-${randomUUID()}`).profiles()).toEqual({ outcome: 'unauthorized' });
    const calls = jest.fn();
    expect(await client('  ', { fetch: calls }).profiles()).toEqual({ outcome: 'unauthorized' });
    expect(calls).not.toHaveBeenCalled();
  });

  it('answers unavailable without a call when no base URL is configured', async () => {
    expect(await new ClaimsPlatformClient({ baseUrl: ' ', token: 't' }).profiles()).toMatchObject({
      outcome: 'unavailable',
      reason: 'rejected',
      detail: expect.stringContaining('CLAIMS_PLATFORM_BASE_URL is empty'),
    });
  });
});

describe('failures', () => {
  it('passes injected 401, 404 and 422 through without retrying', async () => {
    const token = await newTeam();
    const c = client(token);
    await control.failNext('401', { match: token });
    expect(await c.profiles()).toEqual({ outcome: 'unauthorized' });
    await control.failNext('404', { match: token });
    expect(await c.profiles()).toMatchObject({ outcome: 'not_found' });
    await control.failNext('422', { match: token, detail: 'zip_code is not a US ZIP code' });
    expect(await c.upsertClaim('c-422', claimFields())).toEqual({
      outcome: 'unprocessable',
      detail: 'zip_code is not a US ZIP code',
    });
    expect((await control.requests({ token })).map((r) => r.status)).toEqual([401, 404, 422]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('retries a 500, a 503 and a 429, then succeeds, logging each retry at warn', async () => {
    const token = await newTeam();
    await control.failNext('500', { match: token });
    await control.failNext('503', { match: token });
    await control.failNext('429', { match: token });
    expect(ok(await client(token, { attempts: 4 }).upsertClaim('c-retry', claimFields()), 201)).toMatchObject({
      created: true,
    });
    expect((await control.requests({ token })).map((r) => r.status)).toEqual([500, 503, 429, 201]);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledWith(
      'claims platform call failed; retrying',
      expect.objectContaining({ call: 'PUT /api/v1/claims/c-retry', attempt: 1, reason: 'server_error', status: 500 }),
    );
    expect(JSON.stringify(warn.mock.calls)).not.toContain(token);
  });

  it('gives up on a persistent 503: unavailable, may have been applied', async () => {
    const token = await newTeam();
    await control.failNext('503', { match: token, count: 10 });
    const result = await client(token).upsertClaim('c-503', claimFields());
    expect(result).toEqual({
      outcome: 'unavailable',
      reason: 'server_error',
      status: 503,
      detail: expect.stringMatching(
        /^claims platform unreachable: PUT \/api\/v1\/claims\/c-503: HTTP 503: .+ \(3 attempts\)$/,
      ),
      mayHaveApplied: true,
    });
    expect(await control.requests({ token })).toHaveLength(3);
  });

  it('gives up on a persistent 429 as surely not applied', async () => {
    const token = await newTeam();
    await control.failNext('429', { match: token, count: 10 });
    expect(await client(token, { attempts: 2 }).profiles()).toMatchObject({
      outcome: 'unavailable',
      reason: 'server_error',
      status: 429,
      mayHaveApplied: false,
    });
  });

  it('times out each attempt and the whole call within the deadline', async () => {
    const token = await newTeam();
    await control.failNext('timeout', { match: token, count: 10 });
    const started = Date.now();
    const result = await client(token, { timeoutMs: 150, deadlineMs: 400, attempts: 10 }).syncRooms('k', rooms);
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({
      outcome: 'unavailable',
      reason: 'timeout',
      mayHaveApplied: true,
      detail: expect.stringContaining('claims platform unreachable: PUT /api/v1/claims/k/rooms: no answer within'),
    });
    expect(elapsed).toBeLessThan(700);
    expect((await control.requests({ token })).length).toBeLessThanOrEqual(4);
  });

  it('recovers from a lost answer: the request was applied, the retry finds it (created false)', async () => {
    const token = await newTeam();
    await control.failNext('timeout', { match: token, afterApply: true });
    const answer = ok(await client(token, { timeoutMs: 200 }).upsertClaim('c-lost', claimFields()), 200);
    expect(answer.created).toBe(false);
    expect(await control.claims(token)).toHaveLength(1);
    const sent = await control.requests({ token });
    expect(sent.map((r) => [r.injected, r.applied, r.status])).toEqual([
      ['timeout', 201, null],
      [null, 200, 200],
    ]);
  });

  it('retries a reset connection, and reports a persistent one as a network failure that may have applied', async () => {
    const token = await newTeam();
    await control.failNext('reset', { match: token });
    ok(await client(token).profiles());
    await control.failNext('reset', { match: token, count: 3 });
    expect(await client(token).profiles()).toMatchObject({
      outcome: 'unavailable',
      reason: 'network',
      mayHaveApplied: true,
    });
  });

  it('reports a garbage 200 as unreadable', async () => {
    const token = await newTeam();
    await control.failNext('garbage', { match: token, count: 3 });
    expect(await client(token).profiles()).toEqual({
      outcome: 'unavailable',
      reason: 'unreadable',
      status: 200,
      detail: expect.stringContaining('unreadable answer (HTTP 200): <html>maintenance</html>'),
      mayHaveApplied: true,
    });
  });

  it('reports another status as rejected, not retried and not applied', async () => {
    const calls = jest.fn(async () => new Response('{"error":"forbidden"}', { status: 403 }));
    expect(await client('t', { fetch: calls }).profiles()).toEqual({
      outcome: 'unavailable',
      reason: 'rejected',
      status: 403,
      detail: 'claims platform unreachable: GET /api/v1/profiles: HTTP 403: forbidden',
      mayHaveApplied: false,
    });
    expect(calls).toHaveBeenCalledTimes(1);
  });

  it('reports nothing listening (ECONNREFUSED) as surely not applied', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const result = await new ClaimsPlatformClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 't',
      backoffMs: 5,
    }).profiles();
    expect(result).toEqual({
      outcome: 'unavailable',
      reason: 'network',
      detail: expect.stringMatching(
        new RegExp(`^claims platform unreachable: GET /api/v1/profiles: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}`),
      ),
      mayHaveApplied: false,
    });
  });
});

describe('the fake control API', () => {
  it('filters recorded requests by match and refuses an unknown token', async () => {
    const token = await newTeam();
    const c = client(token);
    ok(await c.profiles());
    ok(await c.upsertClaim('c-match', claimFields()));
    expect((await control.requests({ match: 'PUT /api/v1/claims/c-match' })).map((r) => r.token)).toEqual([token]);
    expect(await control.requests({ token, match: 'GET ' })).toHaveLength(1);
    await expect(control.claims(`never-${randomUUID()}`)).rejects.toThrow(/unknown token/);
    await expect(control.failNext('418' as never)).rejects.toThrow(/mode must be one of/);
  });
});
