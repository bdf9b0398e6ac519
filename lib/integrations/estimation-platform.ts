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
import { baseUrl as normalizeBaseUrl, type Settings } from '../config';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';
import { causeOf, retryAfterMs } from './http-failures';

/** The `<source_app>` path segment naming this service on the platform. */
export const ESTIMATION_SOURCE_APP = 'contents-inventory';

const CATALOG_PATH = '/intake/catalog';
const CREATE_PATH = `/intake/${ESTIMATION_SOURCE_APP}`;
const SEARCH_PATH = '/intake/claims';

/** One attempt. */
const DEFAULT_TIMEOUT_MS = 8_000;
/** Attempts in all, the first included. */
const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 500;
/** A whole call, retries and pauses included: inside an HTTP function's 29 s, with room for the caller's writes. */
const DEFAULT_DEADLINE_MS = 20_000;
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

type EstimationUnavailableReason = 'network' | 'timeout' | 'server_error' | 'unreadable' | 'rejected';

interface EstimationUnavailable {
  outcome: 'unavailable';
  reason: EstimationUnavailableReason;
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** A sentence naming the call and the cause. */
  detail: string;
  /** The request may have reached the platform and been applied (by any attempt), its answer lost. */
  mayHaveApplied: boolean;
}

export type EstimationResult<T> =
  | { outcome: 'ok'; status: number; body: T }
  | { outcome: 'unauthorized' }
  | { outcome: 'not_found'; detail: string }
  | { outcome: 'unprocessable'; detail: string }
  | EstimationUnavailable;

export interface EstimationClientOptions {
  /** ESTIMATION_PLATFORM_BASE_URL: bare domain or full base URL of the API host. */
  baseUrl: string;
  /** The team's key (X-API-Key). */
  apiKey: string;
  /** One attempt (default 8 s). */
  timeoutMs?: number;
  /** Attempts in all, the first included (default 3). */
  attempts?: number;
  /** First backoff; doubles per retry, jittered (default 500 ms). */
  backoffMs?: number;
  /** The whole call, retries and pauses included (default 20 s). */
  deadlineMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

// --- Internals ----------------------------------------------------------------------------------

/** A final answer: 2xx, or a 4xx that is not retried. */
interface Answer {
  status: number;
  text: string;
}

/** One failed attempt, as the retry policy sees it. */
class AttemptFailed extends Error {
  constructor(
    readonly reason: EstimationUnavailableReason,
    /** What went wrong, without the call (e.g. "HTTP 503: ..."). */
    readonly problem: string,
    readonly mayHaveApplied: boolean,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs: number | null = null,
  ) {
    super(problem);
  }
}

/** Connection failures that happen before a request is sent: it cannot have been applied. */
const NOT_SENT =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPROTO|ERR_SSL|ERR_TLS|CERT|certificate|SSL routines|wrong version number|self[- ]signed/i;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

const snippet = (text: string) => text.trim().replace(/\s+/g, ' ').slice(0, 300) || 'no body';

/** A network failure in words: the socket's own message when it has one ("connect ECONNREFUSED 127.0.0.1:9"). */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { message?: unknown; code?: unknown } })?.cause;
  const said = typeof cause?.message === 'string' && cause.message ? cause.message : '';
  if (!said) return causeOf(err);
  const code = typeof cause?.code === 'string' && !said.includes(cause.code) ? ` (${cause.code})` : '';
  return `${said}${code}`;
}

/** The platform's `detail` as text: a string as is, a FastAPI list as "loc: msg; ...", else the body. */
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
  return snippet(text);
}

export class EstimationPlatformClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly deadlineMs: number;
  private readonly fetch: typeof fetch;

  /** Throws an Error when the base URL or the key is empty or unusable (see the module comment). */
  constructor(options: EstimationClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? '');
    this.apiKey = (options.apiKey ?? '').trim();
    if (!this.baseUrl) throw new Error('estimation platform client: no base URL (ESTIMATION_PLATFORM_BASE_URL)');
    if (!URL.canParse(this.baseUrl))
      throw new Error(`estimation platform client: the base URL ${JSON.stringify(options.baseUrl)} is not a URL`);
    if (!this.apiKey) throw new Error("estimation platform client: no API key (the team's estimation key)");
    if (!/^[\x21-\x7e]+$/.test(this.apiKey))
      throw new Error('estimation platform client: the API key must be printable ASCII without spaces');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.attempts = Math.max(1, Math.floor(options.attempts ?? DEFAULT_ATTEMPTS));
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
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
    return this.call('GET', CATALOG_PATH, `GET ${CATALOG_PATH}`, undefined, catalogSchema);
  }

  /** POST /intake/<source_app>: creates the claim and its items, or names the existing one (created: false). */
  createClaim(payload: EstimationClaimPayload): Promise<EstimationResult<EstimationCreatedClaim>> {
    return this.call('POST', CREATE_PATH, `POST ${CREATE_PATH}`, payload, createdClaimSchema);
  }

  /** GET /intake/claims?q=: the firm's claims whose number or policyholder contains q (all of them for ''). */
  searchClaims(q = ''): Promise<EstimationResult<EstimationClaimSearch>> {
    // The query stays out of the call's name: it may carry a policyholder's name into the logs.
    const query = new URLSearchParams({ q });
    return this.call('GET', `${SEARCH_PATH}?${query}`, `GET ${SEARCH_PATH}`, undefined, claimSearchSchema);
  }

  /** POST /intake/<source_app>/{claim_key}/items: adds the items the claim does not have yet. Throws for an empty key. */
  appendItems(claimKey: string, items: EstimationItem[]): Promise<EstimationResult<EstimationAppendedItems>> {
    if (!claimKey) throw new Error('estimation platform client: appendItems needs a claim key');
    const path = `${CREATE_PATH}/${encodeURIComponent(claimKey)}/items`;
    return this.call('POST', path, `POST ${path}`, { items }, appendedItemsSchema);
  }

  /** One call with retries (lib/retry.ts), all of it within deadlineMs. */
  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    call: string,
    body: unknown,
    schema: z.ZodType<T>,
  ): Promise<EstimationResult<T>> {
    const deadline = Date.now() + this.deadlineMs;
    const minAttemptMs = Math.min(MIN_ATTEMPT_MS, this.timeoutMs);
    // Once any attempt may have been applied, the call as a whole may have been.
    let mayHaveApplied = false;
    let made = 0;
    let answer: Answer;
    try {
      answer = await withRetry(
        async (attempt) => {
          made = attempt;
          try {
            return await this.attempt(method, path, body, deadline - Date.now());
          } catch (err) {
            if (err instanceof AttemptFailed) mayHaveApplied ||= err.mayHaveApplied;
            throw err;
          }
        },
        {
          attempts: this.attempts,
          backoffMs: this.backoffMs,
          jitter: true,
          // Transient failures only, and only when the pause leaves time for another attempt.
          retryable: (err) => {
            if (!(err instanceof AttemptFailed) || !err.retryable) return false;
            const pause = Math.max(this.backoffMs * 2 ** (made - 1), err.retryAfterMs ?? 0);
            return Date.now() + pause + minAttemptMs <= deadline;
          },
          minPauseMs: (err) => (err instanceof AttemptFailed ? err.retryAfterMs : null),
          onRetry: (err, attempt) => {
            const e = err as AttemptFailed;
            logger.warn('estimation platform call failed; retrying', {
              call,
              attempt,
              reason: e.reason,
              status: e.status,
              detail: e.problem,
            });
          },
        },
      );
    } catch (err) {
      const e = err instanceof AttemptFailed ? err : new AttemptFailed('network', networkCause(err), true, false);
      const tried = made > 1 ? ` (after ${made} attempts)` : '';
      return {
        outcome: 'unavailable',
        reason: e.reason,
        ...(e.status !== undefined ? { status: e.status } : {}),
        detail: `estimation platform unreachable: ${call}: ${e.problem}${tried}`,
        mayHaveApplied: mayHaveApplied || e.mayHaveApplied,
      };
    }

    const { status, text } = answer;
    if (status >= 200 && status < 300) {
      const parsed = schema.safeParse(parseJson(text));
      if (parsed.success) return { outcome: 'ok', status, body: parsed.data };
      const why =
        parseJson(text) === undefined
          ? `not JSON: ${snippet(text)}`
          : `not the contract's shape (${parsed.error.issues
              .slice(0, 3)
              .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
              .join('; ')})`;
      return {
        outcome: 'unavailable',
        reason: 'unreadable',
        status,
        detail: `estimation platform unreachable: ${call}: HTTP ${status} with an unreadable body, ${why}`,
        mayHaveApplied: true,
      };
    }
    if (status === 401) return { outcome: 'unauthorized' };
    if (status === 404) return { outcome: 'not_found', detail: detailText(text) };
    if (status === 422) return { outcome: 'unprocessable', detail: detailText(text) };
    return {
      outcome: 'unavailable',
      reason: 'rejected',
      status,
      detail: `estimation platform unreachable: ${call}: HTTP ${status}: ${detailText(text)}`,
      mayHaveApplied,
    };
  }

  /** One request, given at most `budgetMs`: the final answer, or AttemptFailed. */
  private async attempt(method: 'GET' | 'POST', path: string, body: unknown, budgetMs: number): Promise<Answer> {
    if (budgetMs <= 0)
      throw new AttemptFailed('timeout', `no time left within the ${this.deadlineMs} ms deadline`, false, false);
    const timeoutMs = Math.min(this.timeoutMs, budgetMs);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await this.fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          'x-api-key': this.apiKey,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: controller.signal,
      });
      text = await res.text();
    } catch (err) {
      if (controller.signal.aborted) throw new AttemptFailed('timeout', `no answer within ${timeoutMs} ms`, true, true);
      const cause = networkCause(err);
      const sent = !NOT_SENT.test(`${cause} ${causeOf(err)}`);
      throw new AttemptFailed('network', cause, sent, true);
    } finally {
      clearTimeout(timer);
    }
    const { status } = res;
    if (status >= 500)
      throw new AttemptFailed(
        'server_error',
        `HTTP ${status}: ${detailText(text)}`,
        true,
        true,
        status,
        retryAfterMs(res.headers.get('retry-after')),
      );
    if (status === 429)
      throw new AttemptFailed(
        'rejected',
        `HTTP 429: ${detailText(text)}`,
        false,
        true,
        status,
        retryAfterMs(res.headers.get('retry-after')),
      );
    return { status, text };
  }
}
