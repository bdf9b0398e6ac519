/**
 * A fake estimation platform speaking the intake contract documented in
 * lib/integrations/estimation-platform.ts, over real HTTP on 127.0.0.1 and a
 * free port. `url` is the base URL to configure as ESTIMATION_PLATFORM_BASE_URL.
 *
 *   GET  /intake/catalog                              the firm's catalog {schedules}
 *   POST /intake/contents-inventory                   create (201 created: true, 200 created: false)
 *   GET  /intake/claims?q=                            the firm's claims {claims}, newest first
 *   POST /intake/contents-inventory/{claim_key}/items append {added, skipped, item_count}
 *
 * - Keys: every call needs a registered key in `X-API-Key` (or `Authorization:
 *   Bearer <key>`), else 401 {detail: 'Invalid API key'} (so an unauthenticated
 *   GET /intake/catalog answers 401: how an operator recognises the API host).
 *   Each key belongs to a firm (the key itself unless registered with one);
 *   several keys may share a firm.
 * - Firm isolation: a claim belongs to the firm whose key created (or seeded)
 *   it; search lists the firm's claims only, and appending to another firm's
 *   claim answers 404 {detail: 'Claim not found'}, like an unknown claim_key.
 * - Idempotency: a create repeating an external_reference of the firm adds
 *   nothing and answers 200 with created: false and the existing claim; an
 *   item whose external_id is already on the claim (or earlier in the same
 *   request) is skipped.
 * - Claim keys are opaque and awkward on purpose ("CLM 2026/<base64>+Ω #<n>":
 *   '/', '+', ' ', '#' and non-ASCII), so a client that does not URL-encode
 *   the key in the append path gets 404. claim_id is a uuid.
 * - Validation as FastAPI does it: 422 {detail: [{loc, msg, type}]} for a body
 *   that is not JSON or lacks external_reference, metadata.source_claim_number,
 *   created_by.email or items, for an item without external_id or title or
 *   whose quantity is not a positive integer, for a bad enum (coverage_type,
 *   claim_type, photo kind), and for a depreciation_schedule_id not in the
 *   firm's catalog or a shopping_profile_id not in the schedule (the default
 *   schedule when none is given).
 * - The catalog of a firm never set is DEFAULT_ESTIMATION_CATALOG: two
 *   schedules with stable ids, the first (the default) with two profiles of
 *   which the second is the default, the second with none.
 * - failNext(mode, count, match?, options?) makes the next `count` matching
 *   requests fail: 401, 404, 422 (detail 'Injected validation failure' unless
 *   `detail` is given, a string or a FastAPI list), 429 (Retry-After: 0), 500,
 *   503, timeout (never answers), reset (socket destroyed), garbage (200, not
 *   JSON). `match` is the request's API key, or a substring of "METHOD /path"
 *   (the raw path as sent, or decoded); `key` (exact API key) narrows further,
 *   so a test can target its own firm's calls to one route on a fake shared by
 *   the run. With `afterApply` the request is applied first (as an authorised,
 *   valid request would be), then the failure answers instead: "the platform
 *   applied it but the answer was lost".
 * - hold(match, ms?) keeps requests whose "KEY METHOD /path" (the API key
 *   sent, then the request) contains `match` unanswered (and not yet
 *   applied) until release(match), for `ms` at most: a platform that is slow
 *   while a test does something else; a match that starts with the key slows
 *   that firm's calls only.
 * - Every request is recorded (method, raw path, query, key, body, status
 *   answered, failure injected), in order.
 * - Control API for other processes (tests/support/fake-estimation.ts), never
 *   recorded, no auth; a `key` names the firm it belongs to:
 *     POST /__fake/keys {key, firm?}                                  → {key, firm}
 *     POST /__fake/catalog {key, schedules}                           sets the firm's catalog
 *     POST /__fake/claims {key, claim_number, policyholder_name, archived?, claim_key?}
 *                                                                     → the claim (a remote claim, no items)
 *     GET  /__fake/claims?key=                                        the firm's claims with their items
 *     GET  /__fake/requests?key=&match=                               recorded requests (key exact, match as above)
 *     POST /__fake/fail {mode, count?, match?, key?, afterApply?, detail?}
 *     POST /__fake/hold {match, ms?}         POST /__fake/release {match}
 *     POST /__fake/reset {all?}   forgets requests and pending failures (and with all: keys, catalogs, claims)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ESTIMATION_SOURCE_APP } from '../../lib/integrations/estimation-platform';
import {
  bearerToken,
  controlBody,
  isRecord,
  listenFake,
  misbehave,
  pathMatches,
  readBytes,
  requestHolds,
  sendJson,
  answerHoldControl,
} from './http';

const FAILURE_MODES = ['401', '404', '422', '429', '500', '503', 'timeout', 'reset', 'garbage'] as const;
export type EstimationFailureMode = (typeof FAILURE_MODES)[number];

const INJECTED_DETAIL = 'Injected validation failure';

interface FakeShoppingProfile {
  id: string;
  name: string;
  is_default: boolean;
}

export interface FakeSchedule {
  id: string;
  name: string;
  is_default: boolean;
  shopping_profiles: FakeShoppingProfile[];
}

/** The catalog of a firm whose catalog was never set. */
export const DEFAULT_ESTIMATION_CATALOG: FakeSchedule[] = [
  {
    id: '6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f01',
    name: 'Standard depreciation',
    is_default: true,
    shopping_profiles: [
      { id: '0c9b8a7d-6e5f-4a3b-9c2d-1e0f2a3b4c01', name: 'Like kind and quality', is_default: false },
      { id: '0c9b8a7d-6e5f-4a3b-9c2d-1e0f2a3b4c02', name: 'Big-box retail', is_default: true },
    ],
  },
  {
    id: '6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f02',
    name: 'No depreciation',
    is_default: false,
    shopping_profiles: [],
  },
];

/** A claim on the platform, with its items as received. */
export interface FakeEstimationClaim {
  claim_id: string;
  claim_key: string;
  firm: string;
  claim_number: string;
  policyholder_name: string | null;
  archived: boolean;
  status: string;
  /** The create's dedupe key; null for a seeded claim. */
  external_reference: string | null;
  /** The create's body without its items; null for a seeded claim. */
  request: Record<string, unknown> | null;
  items: Record<string, unknown>[];
  created_at: string;
}

export interface RecordedEstimationRequest {
  method: string;
  /** The path as sent (claim keys still URL-encoded). */
  path: string;
  query: Record<string, string>;
  /** X-API-Key, else the Bearer token; null when none. */
  key: string | null;
  /** Parsed JSON, or the raw text when it is not JSON; null when empty. */
  body: unknown;
  /** The status answered; null when none was (timeout, reset). */
  status: number | null;
  /** The failure injected, if any. */
  failure: EstimationFailureMode | null;
  at: string;
}

export interface EstimationFailOptions {
  /** Only requests with exactly this API key. */
  key?: string;
  /** Apply the request first, then fail. */
  afterApply?: boolean;
  /** The 422's detail (default 'Injected validation failure'). */
  detail?: unknown;
}

export interface FakeEstimationPlatform {
  /** Base URL (the origin), e.g. http://127.0.0.1:41234; the control API lives here too. */
  url: string;
  requests: RecordedEstimationRequest[];
  registerKey(key: string, firm?: string): { key: string; firm: string };
  setCatalog(key: string, schedules: FakeSchedule[]): void;
  seedClaim(
    key: string,
    claim: { claim_number: string; policyholder_name: string | null; archived?: boolean; claim_key?: string },
  ): FakeEstimationClaim;
  /** The firm's claims (of this key's firm), oldest first. */
  claims(key: string): FakeEstimationClaim[];
  failNext(mode: EstimationFailureMode, count?: number, match?: string, options?: EstimationFailOptions): void;
  /** Keep matching requests unanswered and unapplied until release(match), for `ms` at most. */
  hold(match: string, ms?: number): void;
  release(match: string): void;
  /** Forget recorded requests and pending failures; with `all`, keys, catalogs and claims too. */
  reset(all?: boolean): void;
  close(): Promise<void>;
}

interface PendingFailure extends EstimationFailOptions {
  mode: EstimationFailureMode;
  remaining: number;
  match?: string;
}

type Loc = (string | number)[];
interface Problem {
  loc: Loc;
  msg: string;
  type: string;
}

/** A handler's answer: the status and the JSON body. */
type Reply = [number, unknown];

/** A clear error for a bad control call (answered 400). */
class ControlError extends Error {}

/** FastAPI's checks of one string field (required unless `optional`). */
function checkString(problems: Problem[], value: unknown, loc: Loc, optional = false, nonEmpty = true) {
  if (value === undefined || value === null) {
    if (!optional) problems.push({ loc, msg: 'Field required', type: 'missing' });
  } else if (typeof value !== 'string')
    problems.push({ loc, msg: 'Input should be a valid string', type: 'string_type' });
  else if (nonEmpty && !value.trim())
    problems.push({ loc, msg: 'String should have at least 1 character', type: 'string_too_short' });
}

function checkEnum(problems: Problem[], value: unknown, loc: Loc, allowed: string[]) {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || !allowed.includes(value))
    problems.push({ loc, msg: `Input should be ${allowed.map((a) => `'${a}'`).join(' or ')}`, type: 'enum' });
}

/** An object field: true when present and an object (its fields are then checked by the caller). */
function checkObject(
  problems: Problem[],
  value: unknown,
  loc: Loc,
  optional = false,
): value is Record<string, unknown> {
  if (value === undefined || value === null) {
    if (!optional) problems.push({ loc, msg: 'Field required', type: 'missing' });
    return false;
  }
  if (!isRecord(value)) {
    problems.push({ loc, msg: 'Input should be a valid dictionary or object', type: 'model_type' });
    return false;
  }
  return true;
}

function checkItems(problems: Problem[], value: unknown, loc: Loc) {
  if (value === undefined || value === null) {
    problems.push({ loc, msg: 'Field required', type: 'missing' });
    return;
  }
  if (!Array.isArray(value)) {
    problems.push({ loc, msg: 'Input should be a valid list', type: 'list_type' });
    return;
  }
  value.forEach((item, i) => {
    const at = [...loc, i];
    if (!checkObject(problems, item, at)) return;
    checkString(problems, item.external_id, [...at, 'external_id']);
    checkString(problems, item.title, [...at, 'title']);
    const quantity = item.quantity;
    if (quantity === undefined || quantity === null)
      problems.push({ loc: [...at, 'quantity'], msg: 'Field required', type: 'missing' });
    else if (typeof quantity !== 'number' || !Number.isInteger(quantity))
      problems.push({ loc: [...at, 'quantity'], msg: 'Input should be a valid integer', type: 'int_type' });
    else if (quantity <= 0)
      problems.push({ loc: [...at, 'quantity'], msg: 'Input should be greater than 0', type: 'greater_than' });
    for (const name of ['brand', 'sku', 'condition', 'age', 'description', 'room', 'image_url'])
      checkString(problems, item[name], [...at, name], true, false);
    const price = item.estimated_price;
    if (price !== undefined && price !== null && (typeof price !== 'number' || !Number.isFinite(price) || price < 0))
      problems.push({
        loc: [...at, 'estimated_price'],
        msg: 'Input should be greater than or equal to 0',
        type: 'greater_than_equal',
      });
    if (checkObject(problems, item.details, [...at, 'details'], true))
      for (const name of ['model', 'serial', 'damage', 'item_number'])
        checkString(problems, item.details[name], [...at, 'details', name], true, false);
    if (item.photos !== undefined && item.photos !== null) {
      if (!Array.isArray(item.photos))
        problems.push({ loc: [...at, 'photos'], msg: 'Input should be a valid list', type: 'list_type' });
      else
        item.photos.forEach((photo, p) => {
          const ploc = [...at, 'photos', p];
          if (!checkObject(problems, photo, ploc)) return;
          checkString(problems, photo.url, [...ploc, 'url']);
          if (photo.kind === undefined)
            problems.push({ loc: [...ploc, 'kind'], msg: 'Field required', type: 'missing' });
          else checkEnum(problems, photo.kind, [...ploc, 'kind'], ['primary', 'additional']);
        });
    }
  });
}

/** A claim key as the platform makes them: long, with '/', '+', ' ', '#' and non-ASCII characters. */
const newClaimKey = (sequence: number) =>
  `CLM ${new Date().getUTCFullYear()}/${randomBytes(12).toString('base64')}+Ω #${sequence}`;

export async function startFakeEstimationPlatform(options: { port?: number } = {}): Promise<FakeEstimationPlatform> {
  /** API key → firm. */
  const keys = new Map<string, string>();
  const catalogs = new Map<string, FakeSchedule[]>();
  /** claim_key → claim. */
  const claims = new Map<string, FakeEstimationClaim>();
  /** firm + external_reference → claim_key. */
  const references = new Map<string, string>();
  const requests: RecordedEstimationRequest[] = [];
  const failures: PendingFailure[] = [];
  const holds = requestHolds();
  let sequence = 0;

  const firmOf = (key: string) => {
    const firm = keys.get(key);
    if (firm === undefined) throw new ControlError(`unknown key ${JSON.stringify(key)}: register it first`);
    return firm;
  };

  function registerKey(key: string, firm?: string) {
    if (typeof key !== 'string' || !key) throw new ControlError('key must be a non-empty string');
    if (firm !== undefined && (typeof firm !== 'string' || !firm))
      throw new ControlError('firm must be a non-empty string');
    keys.set(key, firm ?? key);
    return { key, firm: firm ?? key };
  }

  function setCatalog(key: string, schedules: FakeSchedule[]) {
    const firm = firmOf(key);
    if (!Array.isArray(schedules)) throw new ControlError('schedules must be a list');
    catalogs.set(firm, structuredClone(schedules));
  }

  const catalogOf = (firm: string) => catalogs.get(firm) ?? DEFAULT_ESTIMATION_CATALOG;

  function addClaim(
    fields: Omit<FakeEstimationClaim, 'claim_id' | 'created_at' | 'status' | 'claim_key'> & {
      claim_key?: string;
    },
  ): FakeEstimationClaim {
    sequence += 1;
    const claim: FakeEstimationClaim = {
      ...fields,
      claim_id: randomUUID(),
      claim_key: fields.claim_key ?? newClaimKey(sequence),
      status: 'intake',
      created_at: new Date().toISOString(),
    };
    if (claims.has(claim.claim_key)) throw new ControlError(`claim_key ${JSON.stringify(claim.claim_key)} is taken`);
    claims.set(claim.claim_key, claim);
    return claim;
  }

  function seedClaim(
    key: string,
    claim: { claim_number: string; policyholder_name: string | null; archived?: boolean; claim_key?: string },
  ): FakeEstimationClaim {
    const firm = firmOf(key);
    if (typeof claim?.claim_number !== 'string' || !claim.claim_number)
      throw new ControlError('claim_number must be a non-empty string');
    if (claim.claim_key !== undefined && (typeof claim.claim_key !== 'string' || !claim.claim_key))
      throw new ControlError('claim_key must be a non-empty string');
    return structuredClone(
      addClaim({
        firm,
        claim_number: claim.claim_number,
        policyholder_name: claim.policyholder_name ?? null,
        archived: claim.archived === true,
        external_reference: null,
        request: null,
        items: [],
        claim_key: claim.claim_key,
      }),
    );
  }

  const claimsOf = (firm: string) => [...claims.values()].filter((c) => c.firm === firm);

  function failNext(mode: EstimationFailureMode, count = 1, match?: string, extra: EstimationFailOptions = {}) {
    if (!FAILURE_MODES.includes(mode)) throw new ControlError(`mode must be one of ${FAILURE_MODES.join(', ')}`);
    if (!(Number.isInteger(count) && count >= 1)) throw new ControlError('count must be a positive integer');
    failures.push({
      mode,
      remaining: count,
      match: match || undefined,
      key: extra.key || undefined,
      afterApply: extra.afterApply === true,
      detail: extra.detail,
    });
  }

  function reset(all = false) {
    requests.length = 0;
    failures.length = 0;
    holds.releaseAll();
    if (all) {
      keys.clear();
      catalogs.clear();
      claims.clear();
      references.clear();
    }
  }

  /** Whether `match` names this request: its key, or a substring of "METHOD /path" (raw or decoded). */
  function matches(r: Pick<RecordedEstimationRequest, 'method' | 'path' | 'key'>, match: string): boolean {
    return (r.key !== null && r.key === match) || pathMatches(r.method, r.path, match);
  }

  function takeFailure(r: RecordedEstimationRequest): PendingFailure | null {
    const index = failures.findIndex((f) => (!f.key || f.key === r.key) && (!f.match || matches(r, f.match)));
    if (index < 0) return null;
    const failure = failures[index];
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure;
  }

  // --- The intake API ---------------------------------------------------------------------------

  function create(firm: string, body: unknown): Reply {
    if (!isRecord(body))
      return [
        422,
        {
          detail: [
            {
              loc: ['body'],
              msg: 'Input should be a valid dictionary or object to extract fields from',
              type: 'model_attributes_type',
            },
          ],
        },
      ];
    const problems: Problem[] = [];
    checkString(problems, body.external_reference, ['body', 'external_reference']);
    checkString(problems, body.peril, ['body', 'peril'], true, false);
    checkEnum(problems, body.coverage_type, ['body', 'coverage_type'], ['acv', 'rcv']);
    checkEnum(problems, body.claim_type, ['body', 'claim_type'], ['residential', 'commercial']);
    checkString(problems, body.depreciation_schedule_id, ['body', 'depreciation_schedule_id'], true);
    checkString(problems, body.shopping_profile_id, ['body', 'shopping_profile_id'], true);
    if (checkObject(problems, body.metadata, ['body', 'metadata'])) {
      checkString(problems, body.metadata.source_claim_number, ['body', 'metadata', 'source_claim_number']);
      checkString(problems, body.metadata.adjuster_name, ['body', 'metadata', 'adjuster_name'], true, false);
    }
    if (checkObject(problems, body.loss_address, ['body', 'loss_address'], true))
      checkString(problems, body.loss_address.zip, ['body', 'loss_address', 'zip']);
    if (checkObject(problems, body.policyholder, ['body', 'policyholder'], true))
      checkString(problems, body.policyholder.name, ['body', 'policyholder', 'name']);
    if (checkObject(problems, body.created_by, ['body', 'created_by'])) {
      checkString(problems, body.created_by.email, ['body', 'created_by', 'email']);
      checkString(problems, body.created_by.user_id, ['body', 'created_by', 'user_id'], true, false);
    }
    checkItems(problems, body.items, ['body', 'items']);
    if (!problems.length) {
      // The catalog choices must be the firm's own.
      const catalog = catalogOf(firm);
      const scheduleId = body.depreciation_schedule_id as string | undefined;
      const schedule = scheduleId ? catalog.find((s) => s.id === scheduleId) : catalog.find((s) => s.is_default);
      if (scheduleId && !schedule)
        problems.push({
          loc: ['body', 'depreciation_schedule_id'],
          msg: 'Unknown depreciation schedule',
          type: 'value_error',
        });
      const profileId = body.shopping_profile_id as string | undefined;
      if (profileId && !problems.length && !schedule?.shopping_profiles.some((p) => p.id === profileId))
        problems.push({
          loc: ['body', 'shopping_profile_id'],
          msg: 'Shopping profile does not belong to the depreciation schedule',
          type: 'value_error',
        });
    }
    if (problems.length) return [422, { detail: problems }];

    const reference = `${firm}#${body.external_reference as string}`;
    const existing = claims.get(references.get(reference) ?? '');
    if (existing) return [200, createdAnswer(existing, false)];
    const { items, ...request } = body;
    const claim = addClaim({
      firm,
      claim_number: (body.metadata as Record<string, unknown>).source_claim_number as string,
      policyholder_name: isRecord(body.policyholder) ? (body.policyholder.name as string) : null,
      archived: false,
      external_reference: body.external_reference as string,
      request: structuredClone(request),
      items: [],
    });
    references.set(reference, claim.claim_key);
    addItems(claim, items as Record<string, unknown>[]);
    return [201, createdAnswer(claim, true)];
  }

  const createdAnswer = (claim: FakeEstimationClaim, created: boolean) => ({
    claim_id: claim.claim_id,
    claim_key: claim.claim_key,
    status: claim.status,
    item_count: claim.items.length,
    created,
  });

  /** Adds the items whose external_id the claim does not have yet. */
  function addItems(claim: FakeEstimationClaim, items: Record<string, unknown>[]) {
    let added = 0;
    let skipped = 0;
    for (const item of items) {
      if (claim.items.some((i) => i.external_id === item.external_id)) skipped += 1;
      else {
        claim.items.push(structuredClone(item));
        added += 1;
      }
    }
    return { added, skipped, item_count: claim.items.length };
  }

  function append(firm: string, claimKey: string, body: unknown): Reply {
    const claim = claims.get(claimKey);
    if (!claim || claim.firm !== firm) return [404, { detail: 'Claim not found' }];
    if (!isRecord(body))
      return [
        422,
        {
          detail: [
            {
              loc: ['body'],
              msg: 'Input should be a valid dictionary or object to extract fields from',
              type: 'model_attributes_type',
            },
          ],
        },
      ];
    const problems: Problem[] = [];
    checkItems(problems, body.items, ['body', 'items']);
    if (problems.length) return [422, { detail: problems }];
    return [200, addItems(claim, body.items as Record<string, unknown>[])];
  }

  function search(firm: string, q: string): Reply {
    const needle = q.trim().toLowerCase();
    const found = claimsOf(firm)
      .filter(
        (c) =>
          !needle ||
          c.claim_number.toLowerCase().includes(needle) ||
          (c.policyholder_name ?? '').toLowerCase().includes(needle),
      )
      .reverse()
      .map(({ claim_id, claim_key, claim_number, policyholder_name, archived }) => ({
        claim_id,
        claim_key,
        claim_number,
        policyholder_name,
        archived,
      }));
    return [200, { claims: found }];
  }

  /** Applies one authorised call; the answer is sent by the caller (or lost). */
  function handle(method: string, rawPath: string, query: URLSearchParams, firm: string, body: unknown): Reply {
    const segments = rawPath.split('/');
    let parts: string[];
    try {
      parts = segments.map((s) => decodeURIComponent(s));
    } catch {
      return [404, { detail: 'Not Found' }];
    }
    if (method === 'GET' && rawPath === '/intake/catalog') return [200, { schedules: catalogOf(firm) }];
    if (method === 'GET' && rawPath === '/intake/claims') return search(firm, query.get('q') ?? '');
    if (method === 'POST' && parts.length === 3 && parts[1] === 'intake') {
      if (parts[2] !== ESTIMATION_SOURCE_APP) return [404, { detail: 'Unknown source app' }];
      return create(firm, body);
    }
    if (method === 'POST' && parts.length === 5 && parts[1] === 'intake' && parts[4] === 'items') {
      if (parts[2] !== ESTIMATION_SOURCE_APP) return [404, { detail: 'Unknown source app' }];
      return append(firm, parts[3], body);
    }
    return [404, { detail: 'Not Found' }];
  }

  /** The answer to a request with its key: 401 unless registered, else the call applied. */
  function authorisedReply(r: RecordedEstimationRequest, query: URLSearchParams, bodyError: boolean): Reply {
    const firm = r.key === null ? undefined : keys.get(r.key);
    if (firm === undefined) return [401, { detail: 'Invalid API key' }];
    if (bodyError) return [422, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] }];
    return handle(r.method, r.path, query, firm, r.body);
  }

  /** Answers with an injected failure (timeout and reset never answer); returns the status, null when none. */
  function fail(failure: PendingFailure, req: IncomingMessage, res: ServerResponse): number | null {
    switch (failure.mode) {
      case '401':
        return sendJson(res, 401, { detail: 'Invalid API key' });
      case '404':
        return sendJson(res, 404, { detail: 'Claim not found' });
      case '422':
        return sendJson(res, 422, { detail: failure.detail ?? INJECTED_DETAIL });
      case '429':
        res.setHeader('retry-after', '0');
        return sendJson(res, 429, { detail: 'Too Many Requests (injected)' });
      case '500':
      case '503':
        return sendJson(res, Number(failure.mode), { detail: 'Internal Server Error (injected)' });
      case 'garbage':
      case 'reset':
      case 'timeout':
        return misbehave(server, failure.mode, req, res);
    }
  }

  function keyOf(req: IncomingMessage): string | null {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (key) return key;
    return bearerToken(req);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, raw: string) {
    let body: unknown = null;
    let bodyError = false;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        bodyError = true;
      }
    }
    const record: RecordedEstimationRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      key: keyOf(req),
      body,
      status: null,
      failure: null,
      at: new Date().toISOString(),
    };
    requests.push(record);
    await holds.heldBack(`${record.key ?? ''} ${record.method} ${record.path}`);
    const failure = takeFailure(record);
    if (failure) {
      record.failure = failure.mode;
      if (failure.afterApply) authorisedReply(record, url.searchParams, bodyError);
      record.status = fail(failure, req, res);
      return;
    }
    const [status, answer] = authorisedReply(record, url.searchParams, bodyError);
    record.status = sendJson(res, status, answer);
  }

  // --- The control API --------------------------------------------------------------------------

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    try {
      if (method === 'POST' && path === '/__fake/keys')
        return sendJson(res, 200, registerKey(body.key as string, body.firm as string | undefined));
      if (method === 'POST' && path === '/__fake/catalog') {
        setCatalog(body.key as string, body.schedules as FakeSchedule[]);
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/claims')
        return sendJson(res, 200, seedClaim(body.key as string, body as unknown as Parameters<typeof seedClaim>[1]));
      if (method === 'GET' && path === '/__fake/claims')
        return sendJson(res, 200, claimsOf(firmOf(query.get('key') ?? '')));
      if (method === 'GET' && path === '/__fake/requests') {
        const key = query.get('key');
        const match = query.get('match');
        return sendJson(
          res,
          200,
          requests.filter((r) => (!key || r.key === key) && (!match || matches(r, match))),
        );
      }
      if (method === 'POST' && path === '/__fake/fail') {
        failNext(
          body.mode as EstimationFailureMode,
          body.count === undefined ? 1 : (body.count as number),
          typeof body.match === 'string' ? body.match : undefined,
          {
            key: typeof body.key === 'string' ? body.key : undefined,
            afterApply: body.afterApply === true,
            detail: body.detail,
          },
        );
        return sendJson(res, 200, { ok: true });
      }
      if (answerHoldControl(holds, { method, path, body }, res)) return;
      if (method === 'POST' && path === '/__fake/reset') {
        reset(body.all === true);
        return sendJson(res, 200, { ok: true });
      }
    } catch (err) {
      if (err instanceof ControlError) return sendJson(res, 400, { error: err.message });
      throw err;
    }
    return sendJson(res, 404, { error: 'unknown control path' });
  }

  const server = await listenFake(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = (await readBytes(req)).toString('utf8');
      if (url.pathname.startsWith('/__fake/')) {
        control(url.pathname, req.method ?? 'GET', url.searchParams, raw, res);
        return;
      }
      await api(req, res, url, raw);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { detail: String(err) });
    }
  }, options.port);

  return {
    url: server.url,
    requests,
    registerKey,
    setCatalog,
    seedClaim,
    claims: (key) => structuredClone(claimsOf(firmOf(key))),
    failNext,
    hold: holds.hold,
    release: holds.release,
    reset,
    close: () => server.close(),
  };
}
