/**
 * Client of the claims platform's API, the identity provider's claims system:
 * a claim's rooms, inventory items and item photos are sent there, and the
 * platform's own analysis of an item is started from here. The spec names the
 * calls but does not publish the API, so this comment is the contract's one
 * written definition (tests/fakes/claims-platform-server.ts speaks it too).
 *
 * Base URL: CLAIMS_PLATFORM_BASE_URL, a bare domain (https assumed) or a full
 * base URL. Every call authenticates as the team with the team's API token:
 * `Authorization: Bearer <team_token>`. JSON in and out.
 *
 *   GET /api/v1/profiles
 *     200  {shopping_profiles: [{id: string, name: string, is_default: boolean}],
 *           depreciation_profiles: [{id, name, is_default}]}
 *     The team's shopping and depreciation profiles (the submit modal's choices).
 *
 *   PUT /api/v1/claims/{external_reference}
 *     request  {claim_number, insured_name?, loss_type?, coverage_type?, claim_type?,
 *               zip_code?, adjuster_name?, adjuster_id?: integer,
 *               shopping_profile_id?, depreciation_profile_id?}
 *     201 (created) or 200 (updated)  {claim_key: string, claim_id: string, created: boolean}
 *     Creates or updates the team's remote claim by our claim id (external_reference).
 *     The claim_key is opaque and is what the calls below address the claim by.
 *
 *   PUT /api/v1/claims/{claim_key}/rooms
 *     request  {rooms: [{external_id, name}]}
 *     200      {rooms: [{external_id, room_id}]}
 *     Room sync: creates missing rooms, renames changed ones; idempotent.
 *
 *   PUT /api/v1/claims/{claim_key}/items/{external_id}
 *     request  {room_external_id, title, quantity, brand?, sku?, condition?, age?,
 *               description?, estimated_price?, model?, serial?, damage?, item_number?}
 *     201 (created) or 200 (updated)  {item_id: string, created: boolean}
 *     Creates or updates one item by our item id; 422 when room_external_id is
 *     not a synced room of the claim.
 *
 *   PUT /api/v1/claims/{claim_key}/items/{external_id}/photos/{photo_external_id}
 *     request  {url, is_primary: boolean}
 *     201 (created) or 200 (updated)  {photo_id: string, created: boolean}
 *     Attaches a photo by URL (the platform downloads it); idempotent per
 *     photo_external_id.
 *
 *   POST /api/v1/claims/{claim_key}/items/{external_id}/analyze
 *     request  {}
 *     202      {status: 'queued'}, or {status: 'already_queued'} when asked before
 *     Starts the platform's own analysis of the item; idempotent.
 *
 *   Errors, any call:
 *     401 {error: 'invalid_token'}                       missing or invalid token
 *     404 {error: 'not_found'}                           unknown claim_key (or another
 *                                                        team's), unknown item
 *     422 {error: 'validation_failed', detail: string}   the request does not validate
 *     5xx                                                anything else going wrong
 *
 * Every path segment is percent-encoded (encodeURIComponent): a claim_key is
 * opaque and may hold '/', '?', '#', '%', spaces or any Unicode. A segment
 * that cannot travel in a path at all ('', '.', '..', or a broken UTF-16
 * string, which URL parsing would drop or fold) is not sent: the call answers
 * `unavailable` ('rejected', mayHaveApplied false).
 *
 * Outcomes are a discriminated result (ClaimsPlatformResult), never an opaque
 * throw:
 *   - ok: {status, body}, the answer validated against the contract;
 *   - unauthorized: 401, the team's token is missing or refused;
 *   - not_found: 404, `detail` names the call and the platform's words;
 *   - unprocessable: 422, `detail` is the platform's own detail;
 *   - unavailable: the platform could not be used. `reason` is 'network',
 *     'timeout', 'server_error' (5xx, or a 429 still refused after the
 *     retries), 'unreadable' (a 2xx whose body is not the contract's) or
 *     'rejected' (any other status, or a request that could not be sent);
 *     `status` when the platform answered; `detail` a readable sentence,
 *     e.g. "claims platform unreachable: PUT /api/v1/claims/abc: connect
 *     ECONNREFUSED 127.0.0.1:4010"; `mayHaveApplied` true when the request may
 *     have been applied even so (a timeout, a dropped connection, a 5xx, an
 *     unreadable 2xx, in any attempt), false when it surely was not (nothing
 *     listening, DNS, TLS, a 4xx).
 *
 * Every call is idempotent (PUT by our ids, analyze by item), so network
 * failures, timeouts, 5xx, 429 (honouring Retry-After) and unreadable 2xx are
 * retried with jittered exponential backoff (lib/retry.ts), each retry logged
 * at warn; a 4xx is final. Each attempt has its own timeout (timeoutMs,
 * default 8 s) and a whole call, retries and pauses included, never takes
 * longer than deadlineMs (default 20 s). The token is never logged.
 */
import * as z from 'zod';
import { NOT_SENT } from '../observability/outbound-failures';
import { errorBodySpec, type JsonHttpOptions, type JsonHttpResult, JsonHttpClient } from './json-http';

export interface ClaimsPlatformClientOptions extends JsonHttpOptions {
  /** CLAIMS_PLATFORM_BASE_URL: bare domain or full base URL. */
  baseUrl: string;
  /** The team's API token (sent as the bearer token). */
  token: string;
}

// ---- Requests ----

/** PUT /api/v1/claims/{external_reference}. Absent or null fields are not set on the remote claim. */
export interface PlatformClaimFields {
  claim_number: string;
  insured_name?: string | null;
  loss_type?: string | null;
  coverage_type?: string | null;
  claim_type?: string | null;
  zip_code?: string | null;
  adjuster_name?: string | null;
  adjuster_id?: number | null;
  shopping_profile_id?: string | null;
  depreciation_profile_id?: string | null;
}

/** One room of PUT /api/v1/claims/{claim_key}/rooms. */
export interface PlatformRoom {
  /** Our room id. */
  external_id: string;
  name: string;
}

/** PUT /api/v1/claims/{claim_key}/items/{external_id}. */
export interface PlatformItemFields {
  /** Our id of a room already synced to the claim. */
  room_external_id: string;
  title: string;
  /** A positive integer. */
  quantity: number;
  brand?: string | null;
  sku?: string | null;
  condition?: string | null;
  age?: string | null;
  description?: string | null;
  estimated_price?: number | null;
  model?: string | null;
  serial?: string | null;
  damage?: string | null;
  item_number?: number | null;
}

/** PUT /api/v1/claims/{claim_key}/items/{external_id}/photos/{photo_external_id}. */
export interface PlatformPhoto {
  /** Where the platform downloads the photo from. */
  url: string;
  is_primary: boolean;
}

// ---- Answers ----

const profile = z.object({ id: z.string(), name: z.string(), is_default: z.boolean() });
const profilesAnswer = z.object({ shopping_profiles: z.array(profile), depreciation_profiles: z.array(profile) });
const claimAnswer = z.object({ claim_key: z.string().min(1), claim_id: z.string(), created: z.boolean() });
const roomsAnswer = z.object({ rooms: z.array(z.object({ external_id: z.string(), room_id: z.string() })) });
const itemAnswer = z.object({ item_id: z.string(), created: z.boolean() });
const photoAnswer = z.object({ photo_id: z.string(), created: z.boolean() });
const analyzeAnswer = z.object({ status: z.enum(['queued', 'already_queued']) });

export type PlatformProfiles = z.infer<typeof profilesAnswer>;
export type PlatformClaimAnswer = z.infer<typeof claimAnswer>;
export type PlatformRoomsAnswer = z.infer<typeof roomsAnswer>;
export type PlatformItemAnswer = z.infer<typeof itemAnswer>;
export type PlatformPhotoAnswer = z.infer<typeof photoAnswer>;
export type PlatformAnalyzeAnswer = z.infer<typeof analyzeAnswer>;

/** What a call came to. */
export type ClaimsPlatformResult<T> = JsonHttpResult<T>;

type Method = 'GET' | 'PUT' | 'POST';

/** Failures of a URL fetch refuses before sending (a bad port, a URL that does not parse). */
const URL_REFUSED = /bad port|Invalid URL|Failed to parse URL/i;

/** How the claims platform's answers and failures read (lib/integrations/json-http.ts does the rest). */
const CLAIMS_PLATFORM = errorBodySpec('claims platform', (cause) => URL_REFUSED.test(cause) || NOT_SENT.test(cause));

/**
 * The path of a call under /api/v1, every segment percent-encoded so an
 * opaque key stays one segment; null when a segment cannot travel in a path.
 */
function apiPath(segments: string[]): string | null {
  try {
    if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
    return `/api/v1/${segments.map(encodeURIComponent).join('/')}`;
  } catch {
    // URIError: a lone surrogate.
    return null;
  }
}

export class ClaimsPlatformClient extends JsonHttpClient {
  private readonly token: string;

  constructor(options: ClaimsPlatformClientOptions) {
    const token = options.token.trim();
    super(options, { ...CLAIMS_PLATFORM, headers: { authorization: `Bearer ${token}` } });
    this.token = token;
  }

  /** The team's shopping and depreciation profiles. */
  profiles(): Promise<ClaimsPlatformResult<PlatformProfiles>> {
    return this.call('GET', ['profiles'], undefined, profilesAnswer);
  }

  /** Creates (201, created true) or updates (200) the remote claim of our claim id; its claim_key addresses it. */
  upsertClaim(
    externalReference: string,
    fields: PlatformClaimFields,
  ): Promise<ClaimsPlatformResult<PlatformClaimAnswer>> {
    return this.call('PUT', ['claims', externalReference], fields, claimAnswer);
  }

  /** Creates the missing rooms and renames changed ones; each room's platform id. */
  syncRooms(claimKey: string, rooms: PlatformRoom[]): Promise<ClaimsPlatformResult<PlatformRoomsAnswer>> {
    return this.call('PUT', ['claims', claimKey, 'rooms'], { rooms }, roomsAnswer);
  }

  /** Creates or updates one item by our item id; unprocessable when its room is not synced. */
  upsertItem(
    claimKey: string,
    externalId: string,
    fields: PlatformItemFields,
  ): Promise<ClaimsPlatformResult<PlatformItemAnswer>> {
    return this.call('PUT', ['claims', claimKey, 'items', externalId], fields, itemAnswer);
  }

  /** Attaches a photo by URL (the platform downloads it); idempotent per photo id. */
  attachPhoto(
    claimKey: string,
    itemExternalId: string,
    photoExternalId: string,
    photo: PlatformPhoto,
  ): Promise<ClaimsPlatformResult<PlatformPhotoAnswer>> {
    const body = { url: photo.url, is_primary: photo.is_primary };
    return this.call(
      'PUT',
      ['claims', claimKey, 'items', itemExternalId, 'photos', photoExternalId],
      body,
      photoAnswer,
    );
  }

  /** Starts the platform's analysis of the item: queued, or already_queued when asked before. */
  analyzeItem(claimKey: string, itemExternalId: string): Promise<ClaimsPlatformResult<PlatformAnalyzeAnswer>> {
    return this.call('POST', ['claims', claimKey, 'items', itemExternalId, 'analyze'], {}, analyzeAnswer);
  }

  /** One call with retries (json-http.ts), all of it within deadlineMs; a path that cannot be sent is not. */
  private async call<T>(
    method: Method,
    segments: string[],
    body: unknown,
    schema: z.ZodType<T>,
  ): Promise<ClaimsPlatformResult<T>> {
    const path = apiPath(segments);
    if (path === null) {
      const call = `${method} /api/v1/${segments.map((s) => JSON.stringify(s)).join('/')}`;
      return {
        outcome: 'unavailable',
        reason: 'rejected',
        detail: `claims platform request not sent: ${call}: an empty, dot or malformed path segment cannot be sent`,
        mayHaveApplied: false,
      };
    }
    if (!this.baseUrl)
      return {
        outcome: 'unavailable',
        reason: 'rejected',
        detail: `claims platform not configured: ${method} ${path}: CLAIMS_PLATFORM_BASE_URL is empty`,
        mayHaveApplied: false,
      };
    // A missing token is what the platform would refuse: no need to ask.
    if (!this.token) return { outcome: 'unauthorized' };
    return this.request({ method, path, body, schema });
  }
}
