/**
 * A fake capture source (the field-capture system whose photos, videos and
 * voice notes the service imports) speaking the contract defined in
 * lib/integrations/capture-source.ts, over real HTTP on 127.0.0.1 and a free
 * port. `url` is the base URL to configure as CAPTURE_SOURCE_API_BASE_URL.
 *
 *   GET  /v1/whoami                                  200 {org: {id, name}, user: {id, name, email}}
 *   GET  /v1/teams                                   200 {data: [{id, name}], next_cursor}
 *   GET  /v1/teams/{team_id}/assignments             200 {data: [assignment], next_cursor}, newest first
 *   GET  /v1/assignments/{assignment_id}/tree        200 {assignment: {id, reference, title}, locations}
 *   GET  /v1/assignments/{assignment_id}/media       200 {data: [media], next_cursor}, in capture order
 *   POST /v1/media/sign                              200 {data: [{id, original_url, proxy_url, expires_at}]}
 *   GET  /files/{original|proxy|thumb}/{media_id}?expires=&sig=   the bytes (presigned: no token)
 *
 * - State lives in memory per organisation, seeded through the control API:
 *   an org has one or more tokens, teams, assignments (each with its tree of
 *   locations and groups) and media whose original BYTES are given (base64),
 *   size_bytes being their length (unless declared otherwise). A missing, unknown or revoked bearer token
 *   answers 401 {error: 'invalid_token'}, checked first; another org's team,
 *   assignment or media answers 404 {error: 'not_found'} like an unknown id
 *   (signing leaves it out, as it does unknown and unsynced media).
 * - Every list is cursor-paginated: `limit` 1-200 (default 50), `cursor` an
 *   opaque token (base64url of the offset) from the previous answer's
 *   `next_cursor`, null on the last page. A limit out of range or a cursor the
 *   fake did not make answers 422 {error: 'invalid_request', detail}, as does
 *   a signing body whose media_ids is not 1-200 ids or whose ttl_seconds is
 *   not an integer 60-3600 (default 3600).
 * - Media come in capture order (captured_at, then seeding order; captured_at
 *   defaults to the time of seeding). thumbnail_url is a URL on the fake,
 *   signed for an hour, serving a JPEG: a photo's seeded proxy, else a small
 *   fixed one (null for audio).
 * - Downloads are signed by the fake (HMAC of kind, id and expiry under a key
 *   of its own): a bad signature or a past expiry answers 403, an unknown
 *   media (or one unsynced since, a proxy of a non-photo) 404. The original
 *   serves the seeded bytes with the media's content_type; the proxy (photos
 *   only) a JPEG: the one seeded as proxy_base64, else the small fixed JPEG.
 *   Per media, set when seeding or with PATCH: `unreadable_original` (the
 *   original answers garbage of the same length, not an image, while the
 *   proxy stays a valid JPEG), `slow_ms` (an original or proxy download sends
 *   its headers at once and its bytes spread over that many ms) and
 *   `fail_downloads` (the next N original or proxy downloads answer 503).
 *   A capture source gone wrong, for the service's download guards:
 *   `declared_size_bytes` (the size_bytes listed, default the bytes' length:
 *   smaller means the body is larger than declared), `stall_after_bytes` (the
 *   original sends its headers and that many bytes, then nothing until the
 *   client hangs up), `redirect_to` (the original answers 302 to that URL)
 *   and `original_url` (signing answers that URL, verbatim, as the original's:
 *   another host, a file:// URL).
 * - failNext(mode, count, match?) makes the next `count` (matching) API
 *   requests fail: 401, 404, 422, 429 (Retry-After: 0), 500, 503, timeout
 *   (never answers), reset (socket destroyed), garbage (200, not JSON).
 *   `match` is the request's token, or a substring of "METHOD /path" (as sent
 *   or decoded). Downloads are not API requests: they fail with
 *   fail_downloads.
 * - Every API request is recorded (method, path, query, token, org, body,
 *   status answered, failure injected), in order; so is every download
 *   (kind, media, status, why it was refused, bytes sent).
 * - sendWebhook POSTs an event to a URL (our service's webhook) as the capture
 *   source does: the event JSON as the body (id and created_at filled in when
 *   absent), `X-Capture-Signature: sha256=<hex HMAC-SHA256 of the raw body
 *   under the secret>` (or a given signature verbatim, to forge one) and
 *   `X-Capture-Delivery: <delivery id, a new uuid unless given>`; it answers
 *   the status and body our service answered.
 * - Control API for other processes (tests/support/fake-capture-source.ts),
 *   never recorded, no auth:
 *     POST  /__fake/orgs {org_id?, name?, tokens?, teams?: [{id?, name}], user?}  → the org (added to when it exists)
 *     POST  /__fake/revoke {token}                   the token answers 401 from now on
 *     POST  /__fake/assignments {org_id, team_id, reference?, title, status?, created_at?, updated_at?,
 *                                locations: [{id?, name, groups?: [{id?, name}]}]}   → the assignment with its ids
 *     POST  /__fake/media {org_id, assignment_id, items: [{type, location_id, group_id?, filename, content_type?,
 *                          bytes_base64, proxy_base64?, captured_at?, synced?, submitted?, submission_id?,
 *                          unreadable_original?, slow_ms?, fail_downloads?, declared_size_bytes?,
 *                          stall_after_bytes?, redirect_to?, original_url?}]}          → the items with their ids
 *     PATCH /__fake/media/{id} {any item field but type}                              → the media
 *     POST  /__fake/sign {media_id, kind?, ttl_seconds}   → {url, expires_at}: a download URL of any ttl
 *                                                    (negative: one already expired), whatever the media's state
 *     GET   /__fake/requests?match=&token=           GET /__fake/downloads?media_id=&kind=
 *     POST  /__fake/fail {mode, count?, match?}
 *     POST  /__fake/webhook {url, secret, event: {id?, type, org_id, created_at?, data}, delivery_id?, signature?}
 *                                                    → {status, body, delivery_id, signature, event}
 *     POST  /__fake/reset {all?}   forgets requests, downloads and pending failures (with all: every org too)
 *   A bad control call answers 400 {error}; a webhook our service could not be reached for, 502 {error}.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  controlBody,
  isRecord,
  listenFake,
  misbehave,
  NOT_JSON,
  pathMatches,
  readApiRequest,
  readText,
  sendJson,
} from './http';

const FAILURE_MODES = ['401', '404', '422', '429', '500', '503', 'timeout', 'reset', 'garbage'] as const;
export type CaptureFailureMode = (typeof FAILURE_MODES)[number];

const MEDIA_TYPES = ['photo', 'video', 'audio'] as const;
type CaptureMediaType = (typeof MEDIA_TYPES)[number];

const DOWNLOAD_KINDS = ['original', 'proxy', 'thumb'] as const;
export type CaptureDownloadKind = (typeof DOWNLOAD_KINDS)[number];

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const SIGN_MAX_IDS = 200;
const TTL_MIN_S = 60;
const TTL_MAX_S = 3600;
const THUMBNAIL_TTL_S = 3600;

/** A 16×16 grey-blue JPEG: the proxy and thumbnail of media seeded without a proxy. */
const SMALL_JPEG = Buffer.from(
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8a' +
    'Gi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAA' +
    'AAAAAAAAAAAAAAAAAAP/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAAAwT/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oA' +
    'DAMBAAIRAxEAPwCwCgD/2Q==',
  'base64',
);

/** What an unreadable original is made of (repeated to the seeded length): no image format starts so. */
const GARBAGE = Buffer.from('NOT AN IMAGE: capture source garbage. ');

/** Content types by file extension, for media seeded without one. */
const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  heic: 'image/heic',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  m4a: 'audio/mp4',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
};
const TYPE_CONTENT_TYPES: Record<CaptureMediaType, string> = {
  photo: 'image/jpeg',
  video: 'video/mp4',
  audio: 'audio/mp4',
};

interface CaptureTeam {
  id: string;
  name: string;
}

interface CaptureUser {
  id: string;
  name: string;
  email: string;
}

/** An organisation as the control API answers it. */
export interface FakeCaptureOrg {
  org_id: string;
  name: string;
  /** Its valid tokens (revoked ones left out). */
  tokens: string[];
  teams: CaptureTeam[];
  /** Who whoami says made the tokens. */
  user: CaptureUser;
}

export interface CaptureOrgSeed {
  /** Default: a generated id; an existing org's id adds to it (tokens, teams, a new name). */
  org_id?: string;
  name?: string;
  /** Default (for a new org): one generated token. */
  tokens?: string[];
  /** A team whose id the org has is renamed. */
  teams?: { id?: string; name: string }[];
  user?: Partial<CaptureUser>;
}

interface CaptureLocation {
  id: string;
  name: string;
  groups: { id: string; name: string }[];
}

/** An assignment as the control API answers it. */
export interface FakeCaptureAssignment {
  org_id: string;
  team_id: string;
  id: string;
  reference: string;
  title: string;
  status: 'open' | 'closed';
  created_at: string;
  updated_at: string;
  locations: CaptureLocation[];
}

export interface CaptureAssignmentSeed {
  org_id: string;
  team_id: string;
  id?: string;
  /** The insurer's claim number (default ''). */
  reference?: string;
  title: string;
  /** Default 'open'. */
  status?: 'open' | 'closed';
  /** Default: now (assignments list newest first). */
  created_at?: string;
  /** Default: created_at. */
  updated_at?: string;
  locations?: { id?: string; name: string; groups?: { id?: string; name: string }[] }[];
}

/** One media item to seed (POST /__fake/media). */
export interface CaptureMediaSeed {
  id?: string;
  type: CaptureMediaType;
  /** A location of the assignment, or null. */
  location_id: string | null;
  /** A group of that location, or null (the default). */
  group_id?: string | null;
  filename: string;
  /** Default: from the filename's extension, else by type. */
  content_type?: string;
  /** The original's bytes. */
  bytes_base64: string;
  /** The proxy JPEG, also its thumbnail (photos only; default: the small fixed JPEG). */
  proxy_base64?: string;
  /** Default: the time of seeding; null is kept. */
  captured_at?: string | null;
  /** Default true. */
  synced?: boolean;
  /** Default false. */
  submitted?: boolean;
  /** Default: null, or a generated id when submitted. */
  submission_id?: string | null;
  /** The original download answers garbage (not an image); the proxy stays a valid JPEG. */
  unreadable_original?: boolean;
  /** Original and proxy downloads send their bytes spread over this many ms. */
  slow_ms?: number;
  /** The next N original or proxy downloads answer 503. */
  fail_downloads?: number;
  /** The size_bytes the API lists (default: the original's length). */
  declared_size_bytes?: number | null;
  /** The original download sends its headers and this many bytes, then stalls (null: it does not). */
  stall_after_bytes?: number | null;
  /** The original download answers 302 to this URL (null: it does not). */
  redirect_to?: string | null;
  /** Signing answers this as the original's URL instead of the fake's own (null: the fake's). */
  original_url?: string | null;
}

/** A media item as the control API answers it (the API's fields, its place and its test behaviours). */
export interface FakeCaptureMedia {
  id: string;
  org_id: string;
  assignment_id: string;
  type: CaptureMediaType;
  location_id: string | null;
  group_id: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  captured_at: string | null;
  synced: boolean;
  submitted: boolean;
  submission_id: string | null;
  /** Whether a proxy_base64 was seeded (photos without one serve the small fixed JPEG). */
  has_proxy: boolean;
  unreadable_original: boolean;
  slow_ms: number;
  /** Original or proxy downloads still to answer 503. */
  fail_downloads: number;
  declared_size_bytes: number | null;
  stall_after_bytes: number | null;
  redirect_to: string | null;
  original_url: string | null;
}

/** PATCH /__fake/media/{id}: any seeded field but the type. */
export type CaptureMediaPatch = Partial<Omit<CaptureMediaSeed, 'id' | 'type'>>;

/** One API request received. */
export interface RecordedCaptureRequest {
  method: string;
  /** The path as sent (percent-encoded). */
  path: string;
  query: Record<string, string>;
  /** The bearer token, null when none. */
  token: string | null;
  /** The token's org, null when the token is not valid. */
  org_id: string | null;
  /** Parsed JSON, the raw text when it is not JSON, null when empty. */
  body: unknown;
  /** The status answered; null when none was (timeout, reset). */
  status: number | null;
  /** The failure injected, if any. */
  failure: CaptureFailureMode | null;
  at: string;
}

/** One download (of a signed URL) received. */
export interface RecordedCaptureDownload {
  kind: CaptureDownloadKind;
  media_id: string;
  /** The path and query as sent. */
  url: string;
  status: number;
  /** Why it was refused: bad_signature, expired (403), not_found (404), injected (fail_downloads, 503). */
  refused: 'bad_signature' | 'expired' | 'not_found' | 'injected' | null;
  /** Bytes in the answer's body (0 when refused). */
  bytes: number;
  /** The pace of a slow download, in ms (0 when not slowed). */
  slow_ms: number;
  at: string;
}

export interface CaptureWebhookSend {
  /** Where to POST it (our service's webhook). */
  url: string;
  /** The shared secret the signature is made with (not needed when `signature` is given). */
  secret?: string;
  event: { id?: string; type: string; org_id: string; created_at?: string; data: unknown };
  /** Default: a new uuid. */
  delivery_id?: string;
  /** Sent verbatim instead of the real signature (a forged one). */
  signature?: string;
}

export interface CaptureWebhookResult {
  /** Our service's answer: its status and body (JSON parsed, else the text; null when empty). */
  status: number;
  body: unknown;
  delivery_id: string;
  /** The X-Capture-Signature sent. */
  signature: string;
  /** The event sent (id and created_at filled in). */
  event: Record<string, unknown>;
}

export interface FakeCaptureSource {
  /** Base URL (the origin), e.g. http://127.0.0.1:41234; the control API and the downloads live here too. */
  url: string;
  requests: RecordedCaptureRequest[];
  downloads: RecordedCaptureDownload[];
  seedOrg(seed?: CaptureOrgSeed): FakeCaptureOrg;
  /** The token answers 401 from now on. */
  revokeToken(token: string): void;
  seedAssignment(seed: CaptureAssignmentSeed): FakeCaptureAssignment;
  seedMedia(orgId: string, assignmentId: string, items: CaptureMediaSeed[]): FakeCaptureMedia[];
  updateMedia(id: string, patch: CaptureMediaPatch): FakeCaptureMedia;
  /** A signed download URL of any ttl (negative: already expired), whatever the media's state. */
  signUrl(mediaId: string, kind: CaptureDownloadKind, ttlSeconds: number): { url: string; expires_at: string };
  failNext(mode: CaptureFailureMode, count?: number, match?: string): void;
  sendWebhook(send: CaptureWebhookSend): Promise<CaptureWebhookResult>;
  /** Forget recorded requests, downloads and pending failures; with `all`, every org too. */
  reset(all?: boolean): void;
  close(): Promise<void>;
}

interface OrgState {
  id: string;
  name: string;
  user: CaptureUser;
  /** By id, in seeding order. */
  teams: Map<string, CaptureTeam>;
}

interface AssignmentState extends FakeCaptureAssignment {
  seq: number;
}

interface MediaState {
  id: string;
  org_id: string;
  assignment_id: string;
  seq: number;
  type: CaptureMediaType;
  location_id: string | null;
  group_id: string | null;
  filename: string;
  content_type: string;
  bytes: Buffer;
  proxy: Buffer | null;
  captured_at: string | null;
  synced: boolean;
  submitted: boolean;
  submission_id: string | null;
  unreadable_original: boolean;
  slow_ms: number;
  fail_downloads: number;
  declared_size_bytes: number | null;
  stall_after_bytes: number | null;
  redirect_to: string | null;
  original_url: string | null;
}

interface PendingFailure {
  mode: CaptureFailureMode;
  remaining: number;
  match?: string;
}

type Reply = [status: number, body: unknown];

/** A body that was sent but is not JSON. */

/** A bad control call: answered with its status (400 unless said). */
class ControlError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;
const notFound = (): Reply => [404, { error: 'not_found' }];
const invalid = (detail: string): Reply => [422, { error: 'invalid_request', detail }];
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cursor of the page starting at `offset`: opaque to clients, base64url of the offset. */
const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

function offsetOf(cursor: string): number | null {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match && cursorOf(Number(match[1])) === cursor ? Number(match[1]) : null;
}

/** One page of `items` per the query's cursor and limit, or a 422. */
function paginate<T>(items: T[], query: URLSearchParams): Reply {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null || rawLimit === '' ? DEFAULT_LIMIT : Number(rawLimit);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT))
    return invalid(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  const cursor = query.get('cursor');
  const offset = cursor ? offsetOf(cursor) : 0;
  if (offset === null) return invalid('cursor is not one this API gave');
  const data = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? cursorOf(offset + limit) : null;
  return [200, { data, next_cursor: next }];
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!nonEmpty(value)) throw new ControlError(`${name} must be a non-empty string`);
  return value;
}

function timestamp(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    throw new ControlError(`${name} must be an ISO timestamp`);
  return new Date(value).toISOString();
}

function count(value: unknown, name: string): number {
  if (value === undefined) return 0;
  if (!(Number.isInteger(value) && (value as number) >= 0))
    throw new ControlError(`${name} must be a non-negative integer`);
  return value as number;
}

function optionalCount(value: unknown, name: string): number | null {
  return value === undefined || value === null ? null : count(value, name);
}

function optionalText(value: unknown, name: string): string | null {
  return value === undefined || value === null ? null : (optionalString(value, name) as string);
}

function flag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ControlError(`${name} must be a boolean`);
  return value;
}

function base64(value: unknown, name: string): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value.replace(/\s/g, '')))
    throw new ControlError(`${name} must be a base64 string`);
  return Buffer.from(value, 'base64');
}

/** Garbage of `length` bytes (at least the marker's) that no image decoder takes. */
function garbageOf(length: number): Buffer {
  const size = Math.max(length, GARBAGE.length);
  const out = Buffer.alloc(size);
  for (let at = 0; at < size; at += GARBAGE.length) GARBAGE.copy(out, at);
  return out;
}

/** The size_bytes the API lists: the declared one when seeded, else the original's length. */
const listedSize = (m: MediaState) => m.declared_size_bytes ?? m.bytes.length;

function contentTypeOf(filename: string, type: CaptureMediaType): string {
  const ext = /\.([^./]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[ext] ?? TYPE_CONTENT_TYPES[type];
}

export async function startFakeCaptureSource(options: { port?: number } = {}): Promise<FakeCaptureSource> {
  const orgs = new Map<string, OrgState>();
  /** Valid token → org id. */
  const tokens = new Map<string, string>();
  const assignments = new Map<string, AssignmentState>();
  const media = new Map<string, MediaState>();
  const requests: RecordedCaptureRequest[] = [];
  const downloads: RecordedCaptureDownload[] = [];
  const failures: PendingFailure[] = [];
  /** Signs the download URLs. */
  const signingKey = randomBytes(32);
  let seq = 0;

  // ---- Seeding ----

  function orgView(org: OrgState): FakeCaptureOrg {
    return {
      org_id: org.id,
      name: org.name,
      tokens: [...tokens].filter(([, id]) => id === org.id).map(([token]) => token),
      teams: [...org.teams.values()].map((t) => ({ ...t })),
      user: { ...org.user },
    };
  }

  function seedOrg(seed: CaptureOrgSeed = {}): FakeCaptureOrg {
    if (!isRecord(seed)) throw new ControlError('the org must be an object');
    const orgId = optionalString(seed.org_id, 'org_id') ?? newId('org');
    const name = optionalString(seed.name, 'name');
    if (seed.tokens !== undefined && !(Array.isArray(seed.tokens) && seed.tokens.every(nonEmpty)))
      throw new ControlError('tokens must be a list of non-empty strings');
    for (const token of seed.tokens ?? []) {
      const owner = tokens.get(token);
      if (owner !== undefined && owner !== orgId) throw new ControlError(`token ${token} belongs to org ${owner}`);
    }
    if (seed.teams !== undefined && !(Array.isArray(seed.teams) && seed.teams.every((t) => isRecord(t))))
      throw new ControlError('teams must be a list of {id?, name}');
    const teams = (seed.teams ?? []).map((t, i) => ({
      id: optionalString(t.id, `teams[${i}].id`) ?? newId('team'),
      name: optionalString(t.name, `teams[${i}].name`) ?? '',
    }));
    if (teams.some((t) => !t.name)) throw new ControlError('every team needs a name');
    if (seed.user !== undefined && !isRecord(seed.user)) throw new ControlError('user must be {id?, name?, email?}');
    const user = {
      id: optionalString(seed.user?.id, 'user.id'),
      name: optionalString(seed.user?.name, 'user.name'),
      email: optionalString(seed.user?.email, 'user.email'),
    };

    let org = orgs.get(orgId);
    if (!org) {
      org = {
        id: orgId,
        name: name ?? `Capture org ${orgId}`,
        user: {
          id: user.id ?? newId('usr'),
          name: user.name ?? 'Field Admin',
          email: user.email ?? `admin@${orgId.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.example.test`,
        },
        teams: new Map(),
      };
      orgs.set(orgId, org);
      if (!seed.tokens?.length) tokens.set(newId('cst'), orgId);
    } else {
      if (name) org.name = name;
      org.user = {
        id: user.id ?? org.user.id,
        name: user.name ?? org.user.name,
        email: user.email ?? org.user.email,
      };
    }
    for (const token of seed.tokens ?? []) tokens.set(token, orgId);
    for (const team of teams) org.teams.set(team.id, team);
    return orgView(org);
  }

  function revokeToken(token: string) {
    if (!tokens.delete(token)) throw new ControlError(`unknown token ${token}`);
  }

  function orgOf(orgId: unknown): OrgState {
    const org = typeof orgId === 'string' ? orgs.get(orgId) : undefined;
    if (!org) throw new ControlError(`unknown org_id ${String(orgId)}: seed it first (POST /__fake/orgs)`);
    return org;
  }

  const assignmentView = ({ seq: _, ...a }: AssignmentState): FakeCaptureAssignment => structuredClone(a);

  function seedAssignment(seed: CaptureAssignmentSeed): FakeCaptureAssignment {
    if (!isRecord(seed)) throw new ControlError('the assignment must be an object');
    const org = orgOf(seed.org_id);
    if (typeof seed.team_id !== 'string' || !org.teams.has(seed.team_id))
      throw new ControlError(`team_id ${String(seed.team_id)} is not a team of org ${org.id}`);
    const id = optionalString(seed.id, 'id') ?? newId('asg');
    if (assignments.has(id)) throw new ControlError(`assignment ${id} exists`);
    if (seed.reference !== undefined && typeof seed.reference !== 'string')
      throw new ControlError('reference must be a string');
    if (!nonEmpty(seed.title)) throw new ControlError('title must be a non-empty string');
    const status = seed.status ?? 'open';
    if (status !== 'open' && status !== 'closed') throw new ControlError("status must be 'open' or 'closed'");
    const created = timestamp(seed.created_at, 'created_at') ?? new Date().toISOString();
    const updated = timestamp(seed.updated_at, 'updated_at') ?? created;
    const rawLocations = seed.locations ?? [];
    if (!Array.isArray(rawLocations) || !rawLocations.every((l) => isRecord(l)))
      throw new ControlError('locations must be a list of {id?, name, groups?}');
    const locationIds = new Set<string>();
    const locations = rawLocations.map((l, i): CaptureLocation => {
      const locationId = optionalString(l.id, `locations[${i}].id`) ?? newId('loc');
      if (locationIds.has(locationId)) throw new ControlError(`location id ${locationId} is repeated`);
      locationIds.add(locationId);
      if (!nonEmpty(l.name)) throw new ControlError(`locations[${i}].name must be a non-empty string`);
      const groups = l.groups ?? [];
      if (!Array.isArray(groups) || !groups.every((g) => isRecord(g)))
        throw new ControlError(`locations[${i}].groups must be a list of {id?, name}`);
      return {
        id: locationId,
        name: l.name,
        groups: groups.map((g, j) => {
          if (!nonEmpty(g.name)) throw new ControlError(`locations[${i}].groups[${j}].name must be a non-empty string`);
          return { id: optionalString(g.id, `locations[${i}].groups[${j}].id`) ?? newId('grp'), name: g.name };
        }),
      };
    });
    const assignment: AssignmentState = {
      org_id: org.id,
      team_id: seed.team_id,
      id,
      reference: seed.reference ?? '',
      title: seed.title,
      status,
      created_at: created,
      updated_at: updated,
      locations,
      seq: seq++,
    };
    assignments.set(id, assignment);
    return assignmentView(assignment);
  }

  function mediaView(m: MediaState): FakeCaptureMedia {
    return {
      id: m.id,
      org_id: m.org_id,
      assignment_id: m.assignment_id,
      type: m.type,
      location_id: m.location_id,
      group_id: m.group_id,
      filename: m.filename,
      content_type: m.content_type,
      size_bytes: listedSize(m),
      captured_at: m.captured_at,
      synced: m.synced,
      submitted: m.submitted,
      submission_id: m.submission_id,
      has_proxy: m.proxy !== null,
      unreadable_original: m.unreadable_original,
      slow_ms: m.slow_ms,
      fail_downloads: m.fail_downloads,
      declared_size_bytes: m.declared_size_bytes,
      stall_after_bytes: m.stall_after_bytes,
      redirect_to: m.redirect_to,
      original_url: m.original_url,
    };
  }

  /** A media item from its seed (checked against the assignment's tree); nothing is stored. */
  function buildMedia(
    assignment: AssignmentState,
    item: Record<string, unknown>,
    at: string,
    existing?: MediaState,
  ): MediaState {
    const type = item.type as CaptureMediaType;
    if (!MEDIA_TYPES.includes(type)) throw new ControlError(`${at}.type must be one of ${MEDIA_TYPES.join(', ')}`);
    if (item.location_id === undefined) throw new ControlError(`${at}.location_id is required (null for none)`);
    const locationId = item.location_id === null ? null : optionalString(item.location_id, `${at}.location_id`)!;
    const location = locationId === null ? null : assignment.locations.find((l) => l.id === locationId);
    if (location === undefined)
      throw new ControlError(`${at}.location_id ${locationId} is not a location of assignment ${assignment.id}`);
    const groupId =
      item.group_id === undefined || item.group_id === null ? null : optionalString(item.group_id, `${at}.group_id`)!;
    if (groupId !== null && !location?.groups.some((g) => g.id === groupId))
      throw new ControlError(`${at}.group_id ${groupId} is not a group of location ${locationId}`);
    if (!nonEmpty(item.filename)) throw new ControlError(`${at}.filename must be a non-empty string`);
    const contentType = optionalString(item.content_type, `${at}.content_type`) ?? contentTypeOf(item.filename, type);
    const bytes = base64(item.bytes_base64, `${at}.bytes_base64`);
    let proxy: Buffer | null = null;
    if (item.proxy_base64 !== undefined && item.proxy_base64 !== null) {
      if (type !== 'photo') throw new ControlError(`${at}.proxy_base64: only photos have a proxy`);
      proxy = base64(item.proxy_base64, `${at}.proxy_base64`);
    }
    let capturedAt: string | null;
    if (item.captured_at === null) capturedAt = null;
    else capturedAt = timestamp(item.captured_at, `${at}.captured_at`) ?? new Date().toISOString();
    const submitted = flag(item.submitted, `${at}.submitted`, false);
    if (item.submission_id !== undefined && item.submission_id !== null && !nonEmpty(item.submission_id))
      throw new ControlError(`${at}.submission_id must be a non-empty string or null`);
    const submissionId = nonEmpty(item.submission_id) ? item.submission_id : submitted ? newId('sub') : null;
    const id = existing?.id ?? optionalString(item.id, `${at}.id`) ?? newId('med');
    if (!existing && media.has(id)) throw new ControlError(`media ${id} exists`);
    return {
      id,
      org_id: assignment.org_id,
      assignment_id: assignment.id,
      seq: existing?.seq ?? seq++,
      type,
      location_id: locationId,
      group_id: groupId,
      filename: item.filename,
      content_type: contentType,
      bytes,
      proxy,
      captured_at: capturedAt,
      synced: flag(item.synced, `${at}.synced`, true),
      submitted,
      submission_id: submissionId,
      unreadable_original: flag(item.unreadable_original, `${at}.unreadable_original`, false),
      slow_ms: count(item.slow_ms, `${at}.slow_ms`),
      fail_downloads: count(item.fail_downloads, `${at}.fail_downloads`),
      declared_size_bytes: optionalCount(item.declared_size_bytes, `${at}.declared_size_bytes`),
      stall_after_bytes: optionalCount(item.stall_after_bytes, `${at}.stall_after_bytes`),
      redirect_to: optionalText(item.redirect_to, `${at}.redirect_to`),
      original_url: optionalText(item.original_url, `${at}.original_url`),
    };
  }

  function seedMedia(orgId: string, assignmentId: string, items: CaptureMediaSeed[]): FakeCaptureMedia[] {
    const org = orgOf(orgId);
    const assignment = assignments.get(assignmentId);
    if (!assignment || assignment.org_id !== org.id)
      throw new ControlError(`assignment_id ${String(assignmentId)} is not an assignment of org ${org.id}`);
    if (!Array.isArray(items) || !items.length || !items.every((i) => isRecord(i)))
      throw new ControlError('items must be a non-empty list of media');
    // All checked before any is stored: a bad batch adds nothing.
    const made = items.map((item, i) =>
      buildMedia(assignment, item as unknown as Record<string, unknown>, `items[${i}]`),
    );
    const ids = new Set(made.map((m) => m.id));
    if (ids.size !== made.length) throw new ControlError('items repeat an id');
    for (const m of made) media.set(m.id, m);
    return made.map(mediaView);
  }

  function updateMedia(id: string, patch: CaptureMediaPatch): FakeCaptureMedia {
    const current = media.get(id);
    if (!current) throw new ControlError(`unknown media ${id}`, 404);
    if (!isRecord(patch)) throw new ControlError('the patch must be an object');
    if ('type' in patch || 'id' in patch) throw new ControlError("a media's id and type cannot change");
    const merged: Record<string, unknown> = {
      type: current.type,
      location_id: current.location_id,
      group_id: current.group_id,
      filename: current.filename,
      content_type: current.content_type,
      bytes_base64: current.bytes.toString('base64'),
      proxy_base64: current.proxy?.toString('base64'),
      captured_at: current.captured_at,
      synced: current.synced,
      submitted: current.submitted,
      // Unsubmitting forgets the submission unless one is given.
      submission_id: patch.submitted === false ? null : current.submission_id,
      unreadable_original: current.unreadable_original,
      slow_ms: current.slow_ms,
      fail_downloads: current.fail_downloads,
      declared_size_bytes: current.declared_size_bytes,
      stall_after_bytes: current.stall_after_bytes,
      redirect_to: current.redirect_to,
      original_url: current.original_url,
      ...patch,
    };
    const updated = buildMedia(assignments.get(current.assignment_id)!, merged, 'patch', current);
    media.set(id, updated);
    return mediaView(updated);
  }

  function failNext(mode: CaptureFailureMode, n = 1, match?: string) {
    if (!FAILURE_MODES.includes(mode)) throw new ControlError(`mode must be one of ${FAILURE_MODES.join(', ')}`);
    if (!(Number.isInteger(n) && n >= 1)) throw new ControlError('count must be a positive integer');
    failures.push({ mode, remaining: n, match: match || undefined });
  }

  function reset(all = false) {
    requests.length = 0;
    downloads.length = 0;
    failures.length = 0;
    if (all) {
      orgs.clear();
      tokens.clear();
      assignments.clear();
      media.clear();
    }
  }

  // ---- Webhooks ----

  async function sendWebhook(send: CaptureWebhookSend): Promise<CaptureWebhookResult> {
    if (!isRecord(send)) throw new ControlError('the webhook must be an object');
    let target: URL;
    try {
      target = new URL(String(send.url));
    } catch {
      throw new ControlError('url must be an http(s) URL');
    }
    if (!/^https?:$/.test(target.protocol)) throw new ControlError('url must be an http(s) URL');
    const given = send.event as unknown;
    if (!isRecord(given) || !nonEmpty(given.type) || !nonEmpty(given.org_id))
      throw new ControlError('event must be {id?, type, org_id, created_at?, data}');
    if (send.signature !== undefined && typeof send.signature !== 'string')
      throw new ControlError('signature must be a string');
    if (send.signature === undefined && typeof send.secret !== 'string')
      throw new ControlError('secret must be a string (or give a signature)');
    const deliveryId = optionalString(send.delivery_id, 'delivery_id') ?? randomUUID();
    const event = {
      ...given,
      id: given.id ?? randomUUID(),
      created_at: given.created_at ?? new Date().toISOString(),
    };
    const raw = JSON.stringify(event);
    const signature =
      send.signature ??
      `sha256=${createHmac('sha256', send.secret as string)
        .update(raw)
        .digest('hex')}`;
    let status: number;
    let text: string;
    try {
      const res = await fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-capture-signature': signature,
          'x-capture-delivery': deliveryId,
        },
        body: raw,
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      throw new ControlError(`webhook to ${target.href} failed: ${(err as Error).message}`, 502);
    }
    let body: unknown = text || null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: the text as it came.
    }
    return { status, body, delivery_id: deliveryId, signature, event };
  }

  // ---- Signed downloads ----

  const signatureOf = (kind: CaptureDownloadKind, id: string, expires: number) =>
    createHmac('sha256', signingKey).update(`${kind}\n${id}\n${expires}`).digest('hex');

  function signedUrl(kind: CaptureDownloadKind, id: string, ttlSeconds: number) {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), sig: signatureOf(kind, id, expires) });
    return { url: `${server.url}/files/${kind}/${encodeURIComponent(id)}?${query}`, expires };
  }

  function signUrl(mediaId: string, kind: CaptureDownloadKind, ttlSeconds: number) {
    if (!media.has(mediaId)) throw new ControlError(`unknown media ${mediaId}`, 404);
    if (!DOWNLOAD_KINDS.includes(kind)) throw new ControlError(`kind must be one of ${DOWNLOAD_KINDS.join(', ')}`);
    if (!Number.isInteger(ttlSeconds)) throw new ControlError('ttl_seconds must be an integer');
    const { url, expires } = signedUrl(kind, mediaId, ttlSeconds);
    return { url, expires_at: new Date(expires * 1000).toISOString() };
  }

  function validSignature(kind: CaptureDownloadKind, id: string, expires: string | null, sig: string | null) {
    if (!expires || !/^\d+$/.test(expires) || !sig) return false;
    const wanted = Buffer.from(signatureOf(kind, id, Number(expires)));
    const given = Buffer.from(sig);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }

  /** Sends `bytes` in pieces spread over `ms` (headers at once); stops when the client goes away. */
  async function trickle(res: ServerResponse, bytes: Buffer, ms: number) {
    res.flushHeaders();
    const pieces = Math.max(1, Math.min(10, bytes.length));
    const size = Math.ceil(bytes.length / pieces);
    for (let i = 0; i < pieces; i++) {
      await sleep(ms / pieces);
      if (res.destroyed) return;
      res.write(bytes.subarray(i * size, (i + 1) * size));
    }
    res.end();
  }

  async function download(req: IncomingMessage, res: ServerResponse, kind: CaptureDownloadKind, rawId: string) {
    const url = new URL(req.url ?? '/', 'http://fake');
    let id = rawId;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      // A malformed escape: no such media.
    }
    const record: RecordedCaptureDownload = {
      kind,
      media_id: id,
      url: req.url ?? '',
      status: 0,
      refused: null,
      bytes: 0,
      slow_ms: 0,
      at: new Date().toISOString(),
    };
    downloads.push(record);
    const refuse = (status: number, refused: RecordedCaptureDownload['refused'], error: string) => {
      record.refused = refused;
      record.status = sendJson(res, status, { error });
    };
    const expires = url.searchParams.get('expires');
    if (!validSignature(kind, id, expires, url.searchParams.get('sig')))
      return refuse(403, 'bad_signature', 'signature_mismatch');
    if (Number(expires) * 1000 < Date.now()) return refuse(403, 'expired', 'url_expired');
    const m = media.get(id);
    if (
      !m ||
      (kind === 'original' && !m.synced) ||
      (kind === 'proxy' && m.type !== 'photo') ||
      (kind === 'thumb' && m.type === 'audio')
    )
      return refuse(404, 'not_found', 'not_found');
    if (kind !== 'thumb' && m.fail_downloads > 0) {
      m.fail_downloads -= 1;
      return refuse(503, 'injected', 'service_unavailable (injected)');
    }
    if (kind === 'original' && m.redirect_to !== null) {
      record.status = 302;
      res.writeHead(302, { location: m.redirect_to });
      res.end();
      return;
    }
    const bytes =
      kind === 'original' ? (m.unreadable_original ? garbageOf(m.bytes.length) : m.bytes) : (m.proxy ?? SMALL_JPEG);
    record.status = 200;
    record.bytes = bytes.length;
    res.writeHead(200, {
      'content-type': kind === 'original' ? m.content_type : 'image/jpeg',
      'content-length': bytes.length,
    });
    if (kind === 'original' && m.stall_after_bytes !== null) {
      // The headers and the first bytes, then nothing: close() drops the answer.
      record.bytes = Math.min(m.stall_after_bytes, bytes.length);
      res.write(bytes.subarray(0, record.bytes));
      server.hang(res);
    } else if (kind !== 'thumb' && m.slow_ms > 0) {
      record.slow_ms = m.slow_ms;
      await trickle(res, bytes, m.slow_ms);
    } else res.end(bytes);
  }

  // ---- The API ----

  const teamsOf = (org: OrgState) => [...org.teams.values()].map(({ id, name }) => ({ id, name }));

  function assignmentsOf(org: OrgState, teamId: string) {
    return [...assignments.values()]
      .filter((a) => a.org_id === org.id && a.team_id === teamId)
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.seq - a.seq)
      .map(({ id, reference, title, status, created_at, updated_at }) => ({
        id,
        reference,
        title,
        status,
        created_at,
        updated_at,
      }));
  }

  function mediaOf(assignment: AssignmentState) {
    // Capture order: captured_at (none last), then seeding order.
    const key = (m: MediaState) => m.captured_at ?? '\uffff';
    return [...media.values()]
      .filter((m) => m.assignment_id === assignment.id)
      .sort((a, b) => key(a).localeCompare(key(b)) || a.seq - b.seq)
      .map((m) => ({
        id: m.id,
        type: m.type,
        location_id: m.location_id,
        group_id: m.group_id,
        filename: m.filename,
        content_type: m.content_type,
        size_bytes: listedSize(m),
        captured_at: m.captured_at,
        synced: m.synced,
        submitted: m.submitted,
        submission_id: m.submission_id,
        thumbnail_url: m.type === 'audio' ? null : signedUrl('thumb', m.id, THUMBNAIL_TTL_S).url,
      }));
  }

  function sign(org: OrgState, body: unknown): Reply {
    if (body === NOT_JSON || !isRecord(body)) return invalid('body must be a JSON object');
    const ids = body.media_ids;
    if (!Array.isArray(ids) || !ids.every(nonEmpty)) return invalid('media_ids must be a list of media ids');
    if (ids.length < 1 || ids.length > SIGN_MAX_IDS)
      return invalid(`media_ids must hold 1 to ${SIGN_MAX_IDS} ids (got ${ids.length})`);
    const ttl = body.ttl_seconds === undefined ? TTL_MAX_S : body.ttl_seconds;
    if (!(Number.isInteger(ttl) && (ttl as number) >= TTL_MIN_S && (ttl as number) <= TTL_MAX_S))
      return invalid(`ttl_seconds must be an integer from ${TTL_MIN_S} to ${TTL_MAX_S}`);
    const data = [...new Set(ids as string[])]
      .map((id) => media.get(id))
      .filter((m): m is MediaState => m !== undefined && m.org_id === org.id && m.synced)
      .map((m) => {
        const original = signedUrl('original', m.id, ttl as number);
        return {
          id: m.id,
          original_url: m.original_url ?? original.url,
          proxy_url: m.type === 'photo' ? signedUrl('proxy', m.id, ttl as number).url : null,
          expires_at: new Date(original.expires * 1000).toISOString(),
        };
      });
    return [200, { data }];
  }

  /** Applies one API request (auth first, then the route). */
  function apply(
    method: string,
    segments: string[] | null,
    org: OrgState | null,
    query: URLSearchParams,
    body: unknown,
  ) {
    if (!org) return [401, { error: 'invalid_token' }] as Reply;
    if (segments === null || segments.includes('')) return notFound();
    const [version, first, second, third, ...rest] = segments;
    if (version !== 'v1' || rest.length) return notFound();
    const expect = (wanted: string): Reply | null =>
      method === wanted ? null : [405, { error: 'method_not_allowed' }];

    if (first === 'whoami' && second === undefined)
      return expect('GET') ?? [200, { org: { id: org.id, name: org.name }, user: { ...org.user } }];
    if (first === 'teams' && second === undefined) return expect('GET') ?? paginate(teamsOf(org), query);
    if (first === 'teams' && third === 'assignments') {
      if (!org.teams.has(second)) return notFound();
      return expect('GET') ?? paginate(assignmentsOf(org, second), query);
    }
    if (first === 'assignments' && second !== undefined && (third === 'tree' || third === 'media')) {
      const assignment = assignments.get(second);
      if (!assignment || assignment.org_id !== org.id) return notFound();
      if (third === 'media') return expect('GET') ?? paginate(mediaOf(assignment), query);
      return (
        expect('GET') ?? [
          200,
          {
            assignment: { id: assignment.id, reference: assignment.reference, title: assignment.title },
            locations: structuredClone(assignment.locations),
          },
        ]
      );
    }
    if (first === 'media' && second === 'sign' && third === undefined) return expect('POST') ?? sign(org, body);
    return notFound();
  }

  const matches = (r: RecordedCaptureRequest, match: string) =>
    (r.token !== null && r.token === match) || pathMatches(r.method, r.path, match);

  function takeFailure(r: RecordedCaptureRequest): PendingFailure | null {
    const index = failures.findIndex((f) => !f.match || matches(r, f.match));
    if (index < 0) return null;
    const failure = failures[index];
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure;
  }

  /** Answers with an injected failure; null when no answer is sent (timeout, reset). */
  function fail(mode: CaptureFailureMode, req: IncomingMessage, res: ServerResponse): number | null {
    switch (mode) {
      case '401':
        return sendJson(res, 401, { error: 'invalid_token' });
      case '404':
        return sendJson(res, 404, { error: 'not_found' });
      case '422':
        return sendJson(res, 422, {
          error: 'invalid_request',
          detail: 'injected validation failure (fake capture source)',
        });
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
        return misbehave(server, mode, req, res);
    }
  }

  function api(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams, text: string) {
    const { body, segments, token } = readApiRequest(req, rawPath, text);
    const orgId = token === null ? undefined : tokens.get(token);
    const record: RecordedCaptureRequest = {
      method: req.method ?? 'GET',
      path: rawPath,
      query: Object.fromEntries(query),
      token,
      org_id: orgId ?? null,
      body: body === NOT_JSON ? text : (body ?? null),
      status: null,
      failure: null,
      at: new Date().toISOString(),
    };
    requests.push(record);
    const failure = takeFailure(record);
    if (failure) {
      record.failure = failure.mode;
      record.status = fail(failure.mode, req, res);
      return;
    }
    const org = orgId === undefined ? null : orgs.get(orgId)!;
    const [status, answer] = apply(record.method, segments, org, query, body);
    record.status = sendJson(res, status, answer);
  }

  // ---- The control API ----

  async function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    try {
      if (method === 'POST' && path === '/__fake/orgs') return sendJson(res, 200, seedOrg(body as CaptureOrgSeed));
      if (method === 'POST' && path === '/__fake/revoke') {
        revokeToken(String(body.token));
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/assignments')
        return sendJson(res, 200, seedAssignment(body as unknown as CaptureAssignmentSeed));
      if (method === 'POST' && path === '/__fake/media')
        return sendJson(
          res,
          200,
          seedMedia(body.org_id as string, body.assignment_id as string, body.items as CaptureMediaSeed[]),
        );
      if (method === 'PATCH' && path.startsWith('/__fake/media/'))
        return sendJson(res, 200, updateMedia(decodeURIComponent(path.slice('/__fake/media/'.length)), body));
      if (method === 'POST' && path === '/__fake/sign')
        return sendJson(
          res,
          200,
          signUrl(String(body.media_id), (body.kind ?? 'original') as CaptureDownloadKind, body.ttl_seconds as number),
        );
      if (method === 'GET' && path === '/__fake/requests') {
        const token = query.get('token');
        const match = query.get('match');
        return sendJson(
          res,
          200,
          requests.filter((r) => (token === null || r.token === token) && (!match || matches(r, match))),
        );
      }
      if (method === 'GET' && path === '/__fake/downloads') {
        const mediaId = query.get('media_id');
        const kind = query.get('kind');
        return sendJson(
          res,
          200,
          downloads.filter((d) => (mediaId === null || d.media_id === mediaId) && (kind === null || d.kind === kind)),
        );
      }
      if (method === 'POST' && path === '/__fake/fail') {
        failNext(
          body.mode as CaptureFailureMode,
          body.count === undefined ? 1 : (body.count as number),
          typeof body.match === 'string' ? body.match : undefined,
        );
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/webhook')
        return sendJson(res, 200, await sendWebhook(body as unknown as CaptureWebhookSend));
      if (method === 'POST' && path === '/__fake/reset') {
        reset(body.all === true);
        return sendJson(res, 200, { ok: true });
      }
    } catch (err) {
      if (err instanceof ControlError) return sendJson(res, err.status, { error: err.message });
      throw err;
    }
    return sendJson(res, 404, { error: 'unknown control path' });
  }

  const server = await listenFake(async (req, res) => {
    try {
      // The raw path: segments stay percent-encoded until split.
      const target = req.url ?? '/';
      const at = target.indexOf('?');
      const rawPath = at < 0 ? target : target.slice(0, at);
      const query = new URLSearchParams(at < 0 ? '' : target.slice(at + 1));
      const text = await readText(req);
      if (rawPath.startsWith('/__fake/')) {
        await control(rawPath, req.method ?? 'GET', query, text, res);
        return;
      }
      const file = /^\/files\/([a-z]+)\/([^/]+)$/.exec(rawPath);
      if (file && (req.method === 'GET' || req.method === 'HEAD')) {
        const kind = file[1] as CaptureDownloadKind;
        if (DOWNLOAD_KINDS.includes(kind)) {
          await download(req, res, kind, file[2]);
          return;
        }
      }
      api(req, res, rawPath, query, text);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
      else res.destroy();
    }
  }, options.port);

  return {
    url: server.url,
    requests,
    downloads,
    seedOrg,
    revokeToken,
    seedAssignment,
    seedMedia,
    updateMedia,
    signUrl,
    failNext,
    sendWebhook,
    reset,
    close: () => server.close(),
  };
}
