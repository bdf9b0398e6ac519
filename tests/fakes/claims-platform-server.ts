/**
 * A fake claims platform speaking the contract defined in
 * lib/integrations/claims-platform.ts, over real HTTP on 127.0.0.1 and a free
 * port. `url` is the base URL to configure as CLAIMS_PLATFORM_BASE_URL.
 *
 *   GET  /api/v1/profiles                                               200 {shopping_profiles, depreciation_profiles}
 *   PUT  /api/v1/claims/{external_reference}                            201/200 {claim_key, claim_id, created}
 *   PUT  /api/v1/claims/{claim_key}/rooms                               200 {rooms: [{external_id, room_id}]}
 *   PUT  /api/v1/claims/{claim_key}/items/{external_id}                 201/200 {item_id, created}
 *   PUT  /api/v1/claims/{claim_key}/items/{external_id}/photos/{id}     201/200 {photo_id, created}
 *   POST /api/v1/claims/{claim_key}/items/{external_id}/analyze         202 {status: 'queued' | 'already_queued'}
 *
 * - State lives in memory per team. A token maps to a team and must be
 *   registered first (POST /__fake/tokens; each token is its own team unless
 *   one is named); a missing or unknown bearer token answers 401
 *   {error: 'invalid_token'}, checked first.
 * - Claims are keyed by external_reference within the team; their claim_key
 *   is opaque and deliberately needs encoding in a path ("LKQ 2026/<hex> ü#?%"),
 *   so a client that does not encode every segment misses it. Path segments
 *   are percent-decoded one by one.
 * - 404 {error: 'not_found'}: an unknown claim_key or another team's, an
 *   unknown item, an unknown path. 422 {error: 'validation_failed', detail}:
 *   claim upsert without claim_number, or naming a profile the team does not
 *   have; rooms that are not [{external_id, name}] or repeat an external_id;
 *   an item without a title, with a quantity that is not a positive integer or
 *   a room_external_id that is not a synced room; a photo whose url is not
 *   http(s) or whose is_primary is not a boolean; a body that is not a JSON
 *   object; optional fields of the wrong type.
 * - PUTs replace what they name: a claim's or item's fields are the last body
 *   sent. Room sync creates and renames, never deletes. A photo attached as
 *   primary makes the item's other photos not primary. Photos are NOT
 *   downloaded: the URL is recorded. Analyze answers 202 queued the first
 *   time, already_queued after.
 * - Profiles: a default set (two shopping, two depreciation, one default
 *   each) until set for the team (POST /__fake/profiles).
 * - failNext(mode, count, match?, {afterApply, detail}) makes the next `count`
 *   (matching) requests fail: 401, 404, 422 (with `detail`, else a
 *   recognisable injected one), 429 (Retry-After: 0), 500, 503, timeout (never
 *   answers), reset (socket destroyed), garbage (200, not JSON). `match`
 *   restricts it to requests whose "METHOD path" (as sent or decoded) contains
 *   it or whose token equals it. With `afterApply` the request is applied
 *   first and only its answer fails: a lost answer.
 * - hold(match, ms?) keeps requests whose "METHOD path" contains `match`
 *   unanswered (and not yet applied) until release(match), for `ms` at most:
 *   a platform that is slow while a test does something else.
 * - Every API request is recorded (`requests`): method, path as sent and
 *   decoded, token, team, body, the status answered (null when none), the
 *   failure injected and the status the fake's own handling gave when it ran.
 * - Control API for other processes (tests/support/fake-claims-platform.ts),
 *   never recorded, no auth:
 *     POST /__fake/tokens {token, team?}      POST /__fake/profiles {token, shopping_profiles, depreciation_profiles}
 *     GET  /__fake/claims?token=              GET  /__fake/requests?token=&match=
 *     POST /__fake/fail {mode, count?, match?, afterApply?, detail?}
 *     POST /__fake/hold {match, ms?}         POST /__fake/release {match}
 *     POST /__fake/reset (forgets recorded requests, pending failures and holds; teams and claims stay)
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  controlBody,
  isRecord,
  listenFake,
  misbehave,
  NOT_JSON,
  readApiRequest,
  readText,
  requestHolds,
  sendJson,
  answerHoldControl,
} from './http';

const FAILURE_MODES = ['401', '404', '422', '429', '500', '503', 'timeout', 'reset', 'garbage'] as const;
export type ClaimsPlatformFailureMode = (typeof FAILURE_MODES)[number];

const INJECTED_422 = 'injected validation failure (fake claims platform)';

interface FakeProfile {
  id: string;
  name: string;
  is_default: boolean;
}

export interface FakePlatformProfiles {
  shopping_profiles: FakeProfile[];
  depreciation_profiles: FakeProfile[];
}

const DEFAULT_PROFILES: FakePlatformProfiles = {
  shopping_profiles: [
    { id: 'shop-standard', name: 'Standard retail', is_default: true },
    { id: 'shop-premium', name: 'Premium retail', is_default: false },
  ],
  depreciation_profiles: [
    { id: 'dep-standard', name: 'Standard depreciation', is_default: true },
    { id: 'dep-none', name: 'No depreciation', is_default: false },
  ],
};

interface FakePlatformPhoto {
  photo_external_id: string;
  photo_id: string;
  url: string;
  is_primary: boolean;
}

interface FakePlatformItem {
  external_id: string;
  item_id: string;
  /** The last body sent for the item. */
  fields: Record<string, unknown>;
  photos: FakePlatformPhoto[];
  analyze_requested: boolean;
  /** Analyze calls received (the first queues, the others answer already_queued). */
  analyze_requests: number;
}

/** A claim as the fake holds it (GET /__fake/claims). */
export interface FakePlatformClaim {
  team: string;
  external_reference: string;
  claim_key: string;
  claim_id: string;
  /** The last body sent for the claim. */
  fields: Record<string, unknown>;
  rooms: { external_id: string; room_id: string; name: string }[];
  items: FakePlatformItem[];
}

/** One API request received. */
export interface RecordedPlatformRequest {
  method: string;
  /** The path as sent (percent-encoded). */
  path: string;
  /** The path with each segment decoded. */
  decoded_path: string;
  /** The bearer token, null when none. */
  token: string | null;
  /** The token's team, null when the token is unknown. */
  team: string | null;
  body: unknown;
  /** The status answered; null when no answer came (timeout, reset). */
  status: number | null;
  /** The failure injected, if any. */
  injected: ClaimsPlatformFailureMode | null;
  /** The status the fake's own handling gave: it ran and may have changed state; null when it did not run. */
  applied: number | null;
  at: string;
}

interface FailOptions {
  /** Apply the request, then fail its answer (a lost answer). */
  afterApply?: boolean;
  /** The 422's detail. */
  detail?: string;
}

export interface FakeClaimsPlatform {
  /** Base URL (the origin), e.g. http://127.0.0.1:41234; the control API lives here too. */
  url: string;
  requests: RecordedPlatformRequest[];
  /** Lets `token` in, as `team` (default: its own team). */
  registerToken(token: string, team?: string): void;
  setProfiles(token: string, profiles: FakePlatformProfiles): void;
  /** The claims of the token's team, with rooms, items, photos and analyze flags. */
  claims(token: string): FakePlatformClaim[];
  failNext(mode: ClaimsPlatformFailureMode, count?: number, match?: string, options?: FailOptions): void;
  /** Keep matching requests unanswered and unapplied until release(match), for `ms` at most. */
  hold(match: string, ms?: number): void;
  release(match: string): void;
  /** Forget recorded requests, pending failures and holds (teams and their claims stay). */
  reset(): void;
  close(): Promise<void>;
}

interface PendingFailure extends FailOptions {
  mode: ClaimsPlatformFailureMode;
  remaining: number;
  match?: string;
}

interface ItemState {
  item_id: string;
  fields: Record<string, unknown>;
  photos: Map<string, { photo_id: string; url: string; is_primary: boolean }>;
  analyze_requests: number;
}

interface ClaimState {
  team: string;
  external_reference: string;
  claim_key: string;
  claim_id: string;
  fields: Record<string, unknown>;
  rooms: Map<string, { room_id: string; name: string }>;
  items: Map<string, ItemState>;
}

interface TeamState {
  profiles: FakePlatformProfiles | null;
  /** By external_reference. */
  claims: Map<string, ClaimState>;
}

type Reply = [status: number, body: unknown];

/** A body that was sent but is not JSON. */

const id = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;
const invalid = (detail: string): Reply => [422, { error: 'validation_failed', detail }];
const notFound = (): Reply => [404, { error: 'not_found' }];

const CLAIM_TEXT_FIELDS = [
  'insured_name',
  'loss_type',
  'coverage_type',
  'claim_type',
  'zip_code',
  'adjuster_name',
  'shopping_profile_id',
  'depreciation_profile_id',
] as const;
const ITEM_TEXT_FIELDS = ['brand', 'sku', 'condition', 'age', 'description', 'model', 'serial', 'damage'] as const;

/** The first optional field that is neither absent, null nor of its type. */
function wrongOptional(body: Record<string, unknown>, text: readonly string[], integers: string[], numbers: string[]) {
  for (const name of text)
    if (body[name] !== undefined && body[name] !== null && typeof body[name] !== 'string')
      return `${name} must be a string or null`;
  for (const name of integers)
    if (body[name] !== undefined && body[name] !== null && !Number.isInteger(body[name]))
      return `${name} must be an integer or null`;
  for (const name of numbers) {
    const v = body[name];
    if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isFinite(v) && v >= 0))
      return `${name} must be a non-negative number or null`;
  }
  return null;
}

/** The named fields of a body, those sent only. */
const pick = (body: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.filter((n) => body[n] !== undefined).map((n) => [n, body[n]]));

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

function validProfiles(value: unknown): value is FakePlatformProfiles {
  const list = (v: unknown) =>
    Array.isArray(v) &&
    v.every((p) => isRecord(p) && nonEmpty(p.id) && typeof p.name === 'string' && typeof p.is_default === 'boolean');
  return isRecord(value) && list(value.shopping_profiles) && list(value.depreciation_profiles);
}

export async function startFakeClaimsPlatform(options: { port?: number } = {}): Promise<FakeClaimsPlatform> {
  const tokens = new Map<string, string>();
  const teams = new Map<string, TeamState>();
  /** Every claim by its key, whatever the team (another team's key is a 404, not a miss). */
  const byKey = new Map<string, ClaimState>();
  const requests: RecordedPlatformRequest[] = [];
  const failures: PendingFailure[] = [];

  function registerToken(token: string, team = token) {
    if (!nonEmpty(token)) throw new Error('token must be a non-empty string');
    if (!nonEmpty(team)) throw new Error('team must be a non-empty string');
    tokens.set(token, team);
    if (!teams.has(team)) teams.set(team, { profiles: null, claims: new Map() });
  }

  function teamOfToken(token: string): TeamState {
    const team = tokens.get(token);
    if (team === undefined) throw new Error(`unknown token: register it first (POST /__fake/tokens)`);
    return teams.get(team)!;
  }

  function setProfiles(token: string, profiles: FakePlatformProfiles) {
    if (!validProfiles(profiles))
      throw new Error('profiles must be {shopping_profiles, depreciation_profiles}: [{id, name, is_default}]');
    teamOfToken(token).profiles = structuredClone(profiles);
  }

  function claims(token: string): FakePlatformClaim[] {
    return [...teamOfToken(token).claims.values()].map((c) => ({
      team: c.team,
      external_reference: c.external_reference,
      claim_key: c.claim_key,
      claim_id: c.claim_id,
      fields: structuredClone(c.fields),
      rooms: [...c.rooms].map(([external_id, r]) => ({ external_id, room_id: r.room_id, name: r.name })),
      items: [...c.items].map(([external_id, item]) => ({
        external_id,
        item_id: item.item_id,
        fields: structuredClone(item.fields),
        photos: [...item.photos].map(([photo_external_id, p]) => ({ photo_external_id, ...p })),
        analyze_requested: item.analyze_requests > 0,
        analyze_requests: item.analyze_requests,
      })),
    }));
  }

  function failNext(mode: ClaimsPlatformFailureMode, count = 1, match?: string, opts: FailOptions = {}) {
    if (!FAILURE_MODES.includes(mode)) throw new Error(`mode must be one of ${FAILURE_MODES.join(', ')}`);
    if (!(Number.isInteger(count) && count >= 1)) throw new Error('count must be a positive integer');
    failures.push({
      mode,
      remaining: count,
      match: match || undefined,
      afterApply: opts.afterApply === true,
      detail: opts.detail,
    });
  }

  const holds = requestHolds();

  function reset() {
    requests.length = 0;
    failures.length = 0;
    holds.releaseAll();
  }

  const matches = (r: RecordedPlatformRequest, match: string) =>
    r.token === match || `${r.method} ${r.path}`.includes(match) || `${r.method} ${r.decoded_path}`.includes(match);

  function takeFailure(r: RecordedPlatformRequest): PendingFailure | null {
    const index = failures.findIndex((f) => !f.match || matches(r, f.match));
    if (index < 0) return null;
    const failure = failures[index];
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure;
  }

  // ---- The contract ----

  function profilesOf(team: TeamState): FakePlatformProfiles {
    return team.profiles ?? DEFAULT_PROFILES;
  }

  function upsertClaim(teamName: string, team: TeamState, ref: string, body: Record<string, unknown>): Reply {
    if (!nonEmpty(body.claim_number)) return invalid('claim_number is required');
    const wrong = wrongOptional(body, CLAIM_TEXT_FIELDS, ['adjuster_id'], []);
    if (wrong) return invalid(wrong);
    const profiles = profilesOf(team);
    for (const [field, list, kind] of [
      ['shopping_profile_id', profiles.shopping_profiles, 'shopping'],
      ['depreciation_profile_id', profiles.depreciation_profiles, 'depreciation'],
    ] as const) {
      const chosen = body[field];
      if (typeof chosen === 'string' && !list.some((p) => p.id === chosen))
        return invalid(`${field} "${chosen}" is not one of the team's ${kind} profiles`);
    }
    const fields = pick(body, ['claim_number', ...CLAIM_TEXT_FIELDS, 'adjuster_id']);
    const existing = team.claims.get(ref);
    if (existing) {
      existing.fields = fields;
      return [200, { claim_key: existing.claim_key, claim_id: existing.claim_id, created: false }];
    }
    const claim: ClaimState = {
      team: teamName,
      external_reference: ref,
      // Opaque, and full of what a path must encode.
      claim_key: `LKQ 2026/${randomBytes(4).toString('hex')} ü#?%`,
      claim_id: id('clm'),
      fields,
      rooms: new Map(),
      items: new Map(),
    };
    team.claims.set(ref, claim);
    byKey.set(claim.claim_key, claim);
    return [201, { claim_key: claim.claim_key, claim_id: claim.claim_id, created: true }];
  }

  function syncRooms(claim: ClaimState, body: Record<string, unknown>): Reply {
    const rooms = body.rooms;
    if (!Array.isArray(rooms)) return invalid('rooms must be a list of {external_id, name}');
    const seen = new Set<string>();
    for (const [i, room] of rooms.entries()) {
      if (!isRecord(room) || !nonEmpty(room.external_id)) return invalid(`rooms[${i}].external_id is required`);
      if (!nonEmpty(room.name)) return invalid(`rooms[${i}].name is required`);
      if (seen.has(room.external_id)) return invalid(`rooms[${i}].external_id "${room.external_id}" is repeated`);
      seen.add(room.external_id);
    }
    const answer = (rooms as { external_id: string; name: string }[]).map(({ external_id, name }) => {
      const existing = claim.rooms.get(external_id);
      if (existing) {
        existing.name = name;
        return { external_id, room_id: existing.room_id };
      }
      const room_id = id('room');
      claim.rooms.set(external_id, { room_id, name });
      return { external_id, room_id };
    });
    return [200, { rooms: answer }];
  }

  function upsertItem(claim: ClaimState, externalId: string, body: Record<string, unknown>): Reply {
    if (!nonEmpty(body.title)) return invalid('title is required');
    if (!(Number.isInteger(body.quantity) && (body.quantity as number) > 0))
      return invalid('quantity must be a positive integer');
    if (!nonEmpty(body.room_external_id)) return invalid('room_external_id is required');
    if (!claim.rooms.has(body.room_external_id))
      return invalid(`room_external_id "${body.room_external_id}" is not a synced room of this claim`);
    const wrong = wrongOptional(body, ITEM_TEXT_FIELDS, ['item_number'], ['estimated_price']);
    if (wrong) return invalid(wrong);
    const fields = pick(body, [
      'room_external_id',
      'title',
      'quantity',
      ...ITEM_TEXT_FIELDS,
      'estimated_price',
      'item_number',
    ]);
    const existing = claim.items.get(externalId);
    if (existing) {
      existing.fields = fields;
      return [200, { item_id: existing.item_id, created: false }];
    }
    const item: ItemState = { item_id: id('itm'), fields, photos: new Map(), analyze_requests: 0 };
    claim.items.set(externalId, item);
    return [201, { item_id: item.item_id, created: true }];
  }

  function attachPhoto(item: ItemState, photoExternalId: string, body: Record<string, unknown>): Reply {
    let url: URL | null = null;
    try {
      url = typeof body.url === 'string' ? new URL(body.url) : null;
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol)) return invalid('url must be an http(s) URL');
    if (typeof body.is_primary !== 'boolean') return invalid('is_primary must be a boolean');
    if (body.is_primary) for (const other of item.photos.values()) other.is_primary = false;
    const existing = item.photos.get(photoExternalId);
    if (existing) {
      existing.url = body.url as string;
      existing.is_primary = body.is_primary;
      return [200, { photo_id: existing.photo_id, created: false }];
    }
    const photo_id = id('pho');
    item.photos.set(photoExternalId, { photo_id, url: body.url as string, is_primary: body.is_primary });
    return [201, { photo_id, created: true }];
  }

  /** Applies one API request (auth first, then the route); the answer is sent by the caller, or lost. */
  function apply(method: string, segments: string[] | null, token: string | null, body: unknown): Reply {
    const teamName = token === null ? undefined : tokens.get(token);
    if (teamName === undefined) return [401, { error: 'invalid_token' }];
    const team = teams.get(teamName)!;
    if (segments === null || segments.includes('')) return notFound();
    const [api, version, first, second, third, fourth, fifth, sixth, ...rest] = segments;
    const expect = (wanted: string): Reply | null =>
      method === wanted ? null : [405, { error: 'method_not_allowed' }];
    if (api !== 'api' || version !== 'v1') return notFound();
    const object = (): Reply | null =>
      body === NOT_JSON || !isRecord(body) ? invalid('body must be a JSON object') : null;

    if (first === 'profiles' && second === undefined) return expect('GET') ?? [200, profilesOf(team)];
    if (first !== 'claims' || second === undefined || rest.length) return notFound();
    if (third === undefined)
      return expect('PUT') ?? object() ?? upsertClaim(teamName, team, second, body as Record<string, unknown>);

    const claim = byKey.get(second);
    const known = claim && claim.team === teamName ? claim : null;
    if (third === 'rooms' && fourth === undefined)
      return expect('PUT') ?? (known ? (object() ?? syncRooms(known, body as Record<string, unknown>)) : notFound());
    if (third !== 'items' || fourth === undefined) return notFound();
    if (fifth === undefined)
      return (
        expect('PUT') ?? (known ? (object() ?? upsertItem(known, fourth, body as Record<string, unknown>)) : notFound())
      );
    const item = known?.items.get(fourth);
    if (fifth === 'photos' && sixth !== undefined)
      return (
        expect('PUT') ?? (item ? (object() ?? attachPhoto(item, sixth, body as Record<string, unknown>)) : notFound())
      );
    if (fifth === 'analyze' && sixth === undefined) {
      const refused = expect('POST') ?? (item ? null : notFound());
      if (refused) return refused;
      if (body !== undefined && (body === NOT_JSON || !isRecord(body))) return invalid('body must be a JSON object');
      item!.analyze_requests += 1;
      return [202, { status: item!.analyze_requests === 1 ? 'queued' : 'already_queued' }];
    }
    return notFound();
  }

  /** Answers with an injected failure; null when no answer is sent (timeout, reset). */
  function fail(failure: PendingFailure, req: IncomingMessage, res: ServerResponse): number | null {
    switch (failure.mode) {
      case '401':
        return sendJson(res, 401, { error: 'invalid_token' });
      case '404':
        return sendJson(res, 404, { error: 'not_found' });
      case '422':
        return sendJson(res, 422, { error: 'validation_failed', detail: failure.detail || INJECTED_422 });
      case '429':
        res.setHeader('retry-after', '0');
        return sendJson(res, 429, { error: 'rate_limited' });
      case '500':
        return sendJson(res, 500, { error: 'internal_error (injected)' });
      case '503':
        return sendJson(res, 503, { error: 'service_unavailable (injected)' });
      case 'garbage':
      case 'reset':
      case 'timeout':
        return misbehave(server, failure.mode, req, res);
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, rawPath: string, text: string) {
    const { body, segments, token } = readApiRequest(req, rawPath, text);
    const record: RecordedPlatformRequest = {
      method: req.method ?? 'GET',
      path: rawPath,
      decoded_path: segments ? `/${segments.join('/')}` : rawPath,
      token,
      team: token === null ? null : (tokens.get(token) ?? null),
      body: body === NOT_JSON ? text : body,
      status: null,
      injected: null,
      applied: null,
      at: new Date().toISOString(),
    };
    requests.push(record);
    await holds.heldBack(`${record.method} ${record.path}`);
    if (record.decoded_path !== record.path) await holds.heldBack(`${record.method} ${record.decoded_path}`);
    const failure = takeFailure(record);
    if (failure) record.injected = failure.mode;
    if (failure && !failure.afterApply) {
      record.status = fail(failure, req, res);
      return;
    }
    const [status, answer] = apply(record.method, segments, token, body);
    record.applied = status;
    record.status = failure ? fail(failure, req, res) : sendJson(res, status, answer);
  }

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    try {
      if (method === 'POST' && path === '/__fake/tokens') {
        registerToken(body.token as string, body.team === undefined ? undefined : (body.team as string));
        return sendJson(res, 200, { ok: true, team: tokens.get(body.token as string) });
      }
      if (method === 'POST' && path === '/__fake/profiles') {
        const { token, ...profiles } = body;
        setProfiles(token as string, profiles as unknown as FakePlatformProfiles);
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'GET' && path === '/__fake/claims') return sendJson(res, 200, claims(query.get('token') ?? ''));
      if (method === 'GET' && path === '/__fake/requests') {
        const token = query.get('token');
        const match = query.get('match');
        return sendJson(
          res,
          200,
          requests.filter((r) => (token === null || r.token === token) && (!match || matches(r, match))),
        );
      }
      if (method === 'POST' && path === '/__fake/fail') {
        failNext(
          body.mode as ClaimsPlatformFailureMode,
          body.count === undefined ? 1 : (body.count as number),
          typeof body.match === 'string' ? body.match : undefined,
          { afterApply: body.afterApply === true, detail: typeof body.detail === 'string' ? body.detail : undefined },
        );
        return sendJson(res, 200, { ok: true });
      }
      if (answerHoldControl(holds, { method, path, body }, res)) return;
      if (method === 'POST' && path === '/__fake/reset') {
        reset();
        return sendJson(res, 200, { ok: true });
      }
    } catch (err) {
      return sendJson(res, 400, { error: (err as Error).message });
    }
    return sendJson(res, 404, { error: 'unknown control path' });
  }

  const server = await listenFake(async (req, res) => {
    try {
      // The raw path: segments stay percent-encoded until split.
      const target = req.url ?? '/';
      const at = target.indexOf('?');
      const rawPath = at < 0 ? target : target.slice(0, at);
      const rawQuery = at < 0 ? '' : target.slice(at + 1);
      const text = await readText(req);
      if (rawPath.startsWith('/__fake/')) {
        control(rawPath, req.method ?? 'GET', new URLSearchParams(rawQuery), text, res);
        return;
      }
      await api(req, res, rawPath, text);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
    }
  }, options.port);

  return {
    url: server.url,
    requests,
    registerToken,
    setProfiles,
    claims,
    failNext,
    hold: holds.hold,
    release: holds.release,
    reset,
    close: () => server.close(),
  };
}
