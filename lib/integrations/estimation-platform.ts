/**
 * Client of the estimation platform's intake API, which prices inventory
 * items: we send it claims and their items.
 *
 * Base URL: ESTIMATION_PLATFORM_BASE_URL, the API host (not the web app),
 * either a bare domain (https assumed) or a full base URL. Every call carries
 * the team's own key in `X-API-Key` (the platform also accepts
 * `Authorization: Bearer <key>`); the caller passes the key of the team it
 * acts for. `<source_app>` is ESTIMATION_SOURCE_APP, a fixed path segment
 * naming this service.
 *
 * Contract (fixed by our spec):
 *
 *   GET  /intake/catalog
 *     200  {schedules: [{id: uuid, name, is_default: boolean,
 *                        shopping_profiles: [{id: uuid, name, is_default: boolean}]}]}
 *          (the depreciation schedules, each with its shopping profiles; a schedule may have none)
 *
 *   POST /intake/<source_app>
 *     request  {external_reference, peril?, coverage_type?: 'acv'|'rcv',
 *               claim_type?: 'residential'|'commercial', depreciation_schedule_id?: uuid,
 *               shopping_profile_id?: uuid, metadata: {source_claim_number, adjuster_name?},
 *               loss_address?: {zip}, policyholder?: {name}, created_by: {user_id?, email},
 *               items: Item[]}
 *     201  {claim_id: uuid, claim_key, status: 'intake', item_count, created: true}
 *     200  the same with created: false: a claim with this external_reference
 *          already exists for the key's firm; nothing is added, the answer names it.
 *          Creates the claim, its rooms and items and starts pricing; idempotent
 *          on external_reference (the dedupe key), per firm.
 *
 *   GET  /intake/claims?q=<text>
 *     200  {claims: [{claim_id, claim_key, claim_number, policyholder_name, archived: boolean}]}
 *          the key's firm's claims only; q matches the claim number or the
 *          policyholder, case-insensitively; an empty q lists them all.
 *
 *   POST /intake/<source_app>/{claim_key}/items      (claim_key URL-encoded: it is opaque)
 *     request  {items: Item[]}
 *     200  {added, skipped, item_count}: idempotent per item external_id (an
 *          item already on the claim is skipped).
 *     404  {detail: 'Claim not found'}: unknown claim_key, or another firm's.
 *
 *   Item: {external_id, title, quantity (positive integer), brand?, sku?, condition?, age?,
 *          description?, room?, estimated_price?: number,
 *          details?: {model?, serial?, damage?, item_number?},
 *          photos?: [{url, kind: 'primary'|'additional'}], image_url?}
 *
 *   Any call: 401 {detail: 'Invalid API key'} for a missing or unknown key;
 *   422 {detail: string | [{loc, msg, type}]} for a body that fails validation;
 *   5xx for other failures.
 *
 * Outcomes are a discriminated result (EstimationResult), never an opaque throw:
 *   - ok: the platform answered 2xx with a body of the contract's shape
 *     (`status` is 200 or 201, `body` the validated answer);
 *   - unauthorized: 401, the team's key was refused;
 *   - not_found: 404 with the platform's detail (on append: the claim is not
 *     the firm's; on another call it means the base URL is not the API host);
 *   - unprocessable: 422, with the platform's detail as text (a FastAPI list
 *     is joined as "loc: msg; loc: msg");
 *   - unavailable: the platform could not be used: `reason` network, timeout,
 *     server_error (5xx), unreadable (a 2xx whose body is not JSON or not of
 *     the contract's shape) or rejected (any other status, e.g. 403, or a 429
 *     still refused after the retries); `detail` is a sentence naming the call
 *     and the cause; `mayHaveApplied` says whether the request may have
 *     reached the platform and been applied, its answer lost (a timeout, a
 *     connection dropped after sending, a 5xx, an unreadable 2xx), false when
 *     it surely was not (connection refused, DNS, TLS, a 4xx).
 *
 * All four calls are idempotent on the platform, so network failures,
 * timeouts, 5xx and 429 are retried with jittered exponential backoff
 * (lib/retry.ts; a Retry-After is honoured); any other 4xx is final. An
 * unreadable 2xx is not retried: the platform answered, and another attempt
 * would get the same body. Each attempt has its own timeout (timeoutMs,
 * default 8 s) and one call, retries and pauses included, never takes longer
 * than deadlineMs (default 20 s), which fits an HTTP function's 29 s.
 *
 * Configuration is the caller's check: the constructor throws an Error when
 * the base URL or the key is empty or unusable (a key must be printable ASCII
 * without spaces, as a header value), and appendItems throws for an empty
 * claim key, so a client never makes a call that cannot succeed.
 */
import * as z from 'zod';
import type { Settings } from '../config';
import { causeOf, isRecord, NOT_SENT, networkCause, parseJson } from '../observability/outbound-failures';
import { type JsonHttpOptions, type JsonHttpResult, type JsonHttpSpec, JsonHttpClient } from './json-http';

/** The `<source_app>` path segment naming this service on the platform. */
export const ESTIMATION_SOURCE_APP = 'contents-inventory';

const CATALOG_PATH = '/intake/catalog';
const CREATE_PATH = `/intake/${ESTIMATION_SOURCE_APP}`;
const SEARCH_PATH = '/intake/claims';

/** An attempt that would get less time than this (or the attempt timeout, if shorter) is not started. */
const MIN_ATTEMPT_MS = 250;

// --- Requests -----------------------------------------------------------------------------------

export interface EstimationItemPhoto {
  url: string;
  kind: 'primary' | 'additional';
}

export interface EstimationItem {
  /** Our id of the item: the platform's dedupe key within a claim. */
  external_id: string;
  title: string;
  /** A positive integer. */
  quantity: number;
  brand?: string;
  sku?: string;
  condition?: string;
  age?: string;
  description?: string;
  /** Room name; the platform creates the claim's rooms from these. */
  room?: string;
  estimated_price?: number;
  details?: { model?: string; serial?: string; damage?: string; item_number?: string };
  photos?: EstimationItemPhoto[];
  image_url?: string;
}

export interface EstimationClaimPayload {
  /** Our dedupe key: a repeated create with it names the existing claim and adds nothing. */
  external_reference: string;
  peril?: string;
  coverage_type?: 'acv' | 'rcv';
  claim_type?: 'residential' | 'commercial';
  depreciation_schedule_id?: string;
  shopping_profile_id?: string;
  metadata: { source_claim_number: string; adjuster_name?: string };
  loss_address?: { zip: string };
  policyholder?: { name: string };
  created_by: { user_id?: string; email: string };
  items: EstimationItem[];
}

// --- Answers (validated with zod; unknown fields are dropped) -----------------------------------

const id = z.string().min(1);
const count = z.number().int().nonnegative();

const catalogSchema = z.object({
  schedules: z.array(
    z.object({
      id,
      name: z.string(),
      is_default: z.boolean(),
      shopping_profiles: z.array(z.object({ id, name: z.string(), is_default: z.boolean() })).default([]),
    }),
  ),
});

const createdClaimSchema = z.object({
  claim_id: id,
  claim_key: id,
  status: z.string(),
  item_count: count,
  created: z.boolean(),
});

const claimSearchSchema = z.object({
  claims: z.array(
    z.object({
      claim_id: id,
      claim_key: id,
      claim_number: z.string(),
      // A claim created without a policyholder may have none.
      policyholder_name: z.string().nullable().default(null),
      archived: z.boolean(),
    }),
  ),
});

const appendedItemsSchema = z.object({ added: count, skipped: count, item_count: count });

/** GET /intake/catalog: depreciation schedules with their shopping profiles. */
export type EstimationCatalog = z.infer<typeof catalogSchema>;
/** POST /intake/<source_app>: the claim created (created: true) or the existing one (created: false). */
type EstimationCreatedClaim = z.infer<typeof createdClaimSchema>;
/** GET /intake/claims: the firm's claims. */
type EstimationClaimSearch = z.infer<typeof claimSearchSchema>;
/** POST /intake/<source_app>/{claim_key}/items. */
type EstimationAppendedItems = z.infer<typeof appendedItemsSchema>;

// --- Outcomes -----------------------------------------------------------------------------------

export type EstimationResult<T> = JsonHttpResult<T>;

export interface EstimationClientOptions extends JsonHttpOptions {
  /** ESTIMATION_PLATFORM_BASE_URL: bare domain or full base URL of the API host. */
  baseUrl: string;
  /** The team's key (X-API-Key). */
  apiKey: string;
}

// --- Internals ----------------------------------------------------------------------------------

/** The platform's `detail` as text: a string as is, a FastAPI list as "loc: msg; ...", else the body (json-http cuts it). */
function detailText(text: string): string {
  const body = parseJson(text);
  const detail = isRecord(body) ? body.detail : undefined;
  if (typeof detail === 'string' && detail) return detail;
  if (Array.isArray(detail) && detail.length)
    return detail
      .map((entry) => {
        if (!isRecord(entry)) return JSON.stringify(entry);
        const loc = Array.isArray(entry.loc) ? entry.loc.join('.') : typeof entry.loc === 'string' ? entry.loc : '';
        const msg = typeof entry.msg === 'string' ? entry.msg : JSON.stringify(entry);
        return loc ? `${loc}: ${msg}` : msg;
      })
      .join('; ');
  return text;
}

/** How the estimation platform's answers and failures read (lib/integrations/json-http.ts does the rest). */
const ESTIMATION_PLATFORM: Omit<JsonHttpSpec, 'headers'> = {
  name: 'estimation platform',
  words: detailText,
  tooManyRequests: 'rejected',
  // The platform answered: another attempt would get the same body.
  retryUnreadable: false,
  unreadable: (status, excerpt, error) =>
    `HTTP ${status} with an unreadable body, ${
      error === undefined
        ? `not JSON: ${excerpt || 'no body'}`
        : `not the contract's shape (${error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
            .join('; ')})`
    }`,
  networkCause: (err) => networkCause(err),
  notSent: (cause, err) => NOT_SENT.test(`${cause} ${causeOf(err)}`),
  minAttemptMs: MIN_ATTEMPT_MS,
  // A final answer (an unreadable 2xx, a 4xx) is the platform's, whatever came before it.
  attemptsNote: (attempts, answered) => (!answered && attempts > 1 ? ` (after ${attempts} attempts)` : ''),
};

export class EstimationPlatformClient extends JsonHttpClient {
  /** Throws an Error when the base URL or the key is empty or unusable (see the module comment). */
  constructor(options: EstimationClientOptions) {
    const apiKey = (options.apiKey ?? '').trim();
    super({ ...options, baseUrl: options.baseUrl ?? '' }, { ...ESTIMATION_PLATFORM, headers: { 'x-api-key': apiKey } });
    if (!this.baseUrl) throw new Error('estimation platform client: no base URL (ESTIMATION_PLATFORM_BASE_URL)');
    if (!URL.canParse(this.baseUrl))
      throw new Error(`estimation platform client: the base URL ${JSON.stringify(options.baseUrl)} is not a URL`);
    if (!apiKey) throw new Error("estimation platform client: no API key (the team's estimation key)");
    if (!/^[\x21-\x7e]+$/.test(apiKey))
      throw new Error('estimation platform client: the API key must be printable ASCII without spaces');
  }

  /** A client for one team: ESTIMATION_PLATFORM_BASE_URL from the settings, the team's key from the caller. */
  static fromSettings(
    config: Pick<Settings, 'ESTIMATION_PLATFORM_BASE_URL'>,
    apiKey: string,
    overrides: Partial<Omit<EstimationClientOptions, 'baseUrl' | 'apiKey'>> = {},
  ): EstimationPlatformClient {
    return new EstimationPlatformClient({ baseUrl: config.ESTIMATION_PLATFORM_BASE_URL, apiKey, ...overrides });
  }

  /** GET /intake/catalog: the depreciation schedules and their shopping profiles. */
  catalog(): Promise<EstimationResult<EstimationCatalog>> {
    return this.request({ method: 'GET', path: CATALOG_PATH, schema: catalogSchema });
  }

  /** POST /intake/<source_app>: creates the claim and its items, or names the existing one (created: false). */
  createClaim(payload: EstimationClaimPayload): Promise<EstimationResult<EstimationCreatedClaim>> {
    return this.request({ method: 'POST', path: CREATE_PATH, body: payload, schema: createdClaimSchema });
  }

  /** GET /intake/claims?q=: the firm's claims whose number or policyholder contains q (all of them for ''). */
  searchClaims(q = ''): Promise<EstimationResult<EstimationClaimSearch>> {
    // The query stays out of the call's name: it may carry a policyholder's name into the logs.
    const query = new URLSearchParams({ q });
    return this.request({
      method: 'GET',
      path: `${SEARCH_PATH}?${query}`,
      call: `GET ${SEARCH_PATH}`,
      schema: claimSearchSchema,
    });
  }

  /** POST /intake/<source_app>/{claim_key}/items: adds the items the claim does not have yet. Throws for an empty key. */
  appendItems(claimKey: string, items: EstimationItem[]): Promise<EstimationResult<EstimationAppendedItems>> {
    if (!claimKey) throw new Error('estimation platform client: appendItems needs a claim key');
    const path = `${CREATE_PATH}/${encodeURIComponent(claimKey)}/items`;
    return this.request({ method: 'POST', path, body: { items }, schema: appendedItemsSchema });
  }
}
