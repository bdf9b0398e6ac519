/**
 * Client of the billing service, the external prepaid credit ledger (spec:
 * Limits > Credit prices and charging, rule 4; Outbound credentials).
 *
 * Base URL: BILLING_APP_DOMAIN, either a bare domain ("billing.example.com",
 * https assumed) or a full base URL ("http://127.0.0.1:4010"). Every call
 * carries `Authorization: Bearer <BILLING_APP_API_KEY>`.
 *
 * Contract (the spec fixes the paths; the bodies are ours):
 *
 *   POST /api/v1/credits/spend
 *     request  {app: BILLING_EXTERNAL_APP, team_id: Team.external_id (integer),
 *               user_id: User.external_id (string or null), amount: whole credits (> 0),
 *               reference: string, description: string}
 *     200      {transaction_id: string, balance: number}
 *     402      {error: 'insufficient_credits', balance: number, required: number, buy_url: string}
 *     Idempotent per (app, team_id, reference): repeating a reference returns the
 *     first answer and never charges twice.
 *
 *   POST /api/v1/credits/refund
 *     request  {app, team_id, reference}        (reference of the spend to undo)
 *     200      {transaction_id: string, balance: number, refunded: true}
 *     Idempotent per reference: a second refund returns the same answer and
 *     restores nothing more. 404 when no spend carries the reference.
 *
 *   GET /api/v1/credits/balance?app=<app>&team_id=<team external id>
 *     200      {balance: number, buy_url: string}
 *
 *   Any call: 401 for a wrong or missing key.
 *
 * Outcomes are a discriminated result, never an opaque throw:
 *   - charged / refunded / ok: the service answered as above;
 *   - insufficient: a flat refusal (402), the caller answers 402;
 *   - unavailable: the service could not be used (network failure, timeout,
 *     5xx, a 200 whose body is empty or unreadable, any other status such as a
 *     401 from a wrong key). The caller fails open. The error is a
 *     BillingServiceUnreachable naming the call and the cause.
 *
 * All three calls are idempotent (spend and refund by reference), so network
 * failures, timeouts, 5xx/429 and unreadable 200s are retried a couple of
 * times with exponential backoff; a 4xx is final.
 */
import { baseUrl as normalizeBaseUrl, settings as currentSettings, type Settings } from '../config';
import { logger } from '../observability/logger';

export const SPEND_PATH = '/api/v1/credits/spend';
export const REFUND_PATH = '/api/v1/credits/refund';
export const BALANCE_PATH = '/api/v1/credits/balance';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_BACKOFF_MS = 300;

export type UnreachableReason = 'not_configured' | 'network' | 'timeout' | 'server_error' | 'unreadable' | 'rejected';

/** The billing service could not be used; `reason` says why. Never a flat refusal. */
export class BillingServiceUnreachable extends Error {
  constructor(
    readonly reason: UnreachableReason,
    readonly call: string,
    readonly detail: string,
    /** HTTP status when the service answered. */
    readonly status?: number,
  ) {
    super(`billing service unreachable: ${call} ${reason}${status ? ` (HTTP ${status})` : ''}: ${detail}`);
    this.name = 'BillingServiceUnreachable';
  }
}

export interface SpendRequest {
  /** Team.external_id. */
  teamId: number;
  /** User.external_id; null when the user has none. */
  userId: string | null;
  /** Whole credits, > 0. */
  amount: number;
  /** Idempotency key, e.g. job:<job_id>:<round>. */
  reference: string;
  description: string;
}

export type SpendResult =
  | { outcome: 'charged'; transactionId: string; balance: number | null }
  | { outcome: 'insufficient'; balance: number | null; required: number; buyUrl: string | null }
  | { outcome: 'unavailable'; error: BillingServiceUnreachable };

export type RefundResult =
  | { outcome: 'refunded'; transactionId: string | null; balance: number | null }
  | { outcome: 'unavailable'; error: BillingServiceUnreachable };

export type BalanceResult =
  | { outcome: 'ok'; balance: number; buyUrl: string | null }
  | { outcome: 'unavailable'; error: BillingServiceUnreachable };

export interface BillingClientOptions {
  /** BILLING_APP_DOMAIN: bare domain or full base URL. */
  domain: string;
  apiKey: string;
  /** BILLING_EXTERNAL_APP. */
  app: string;
  timeoutMs?: number;
  /** Extra attempts after the first for transient failures. */
  retries?: number;
  /** First backoff; doubles per retry. */
  backoffMs?: number;
}

type Attempt =
  | { kind: 'answer'; status: number; body: unknown; text: string }
  | { kind: 'failure'; reason: 'network' | 'timeout'; detail: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function causeOf(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code ?? e?.cause?.message;
  return [e?.message ?? String(err), code].filter(Boolean).join(': ');
}

export class BillingServiceClient {
  readonly baseUrl: string;
  readonly app: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(options: BillingClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.domain);
    this.apiKey = options.apiKey.trim();
    this.app = options.app;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  }

  /** A client from the settings (BILLING_APP_DOMAIN, BILLING_APP_API_KEY, BILLING_EXTERNAL_APP). */
  static fromSettings(config: Pick<Settings, 'BILLING_APP_DOMAIN' | 'BILLING_APP_API_KEY' | 'BILLING_EXTERNAL_APP'> = currentSettings(), overrides: Partial<BillingClientOptions> = {}) {
    return new BillingServiceClient({ domain: config.BILLING_APP_DOMAIN, apiKey: config.BILLING_APP_API_KEY, app: config.BILLING_EXTERNAL_APP, ...overrides });
  }

  get configured(): boolean {
    return Boolean(this.baseUrl && this.apiKey);
  }

  /** Spends credits up front; the spend doubles as the affordability gate. */
  async spend(request: SpendRequest): Promise<SpendResult> {
    const call = `POST ${SPEND_PATH}`;
    const body = { app: this.app, team_id: request.teamId, user_id: request.userId, amount: request.amount, reference: request.reference, description: request.description };
    const res = await this.call(call, 'POST', SPEND_PATH, body, (a) => a.status === 200 && isRecord(a.body) && str(a.body.transaction_id) !== null);
    if (res instanceof BillingServiceUnreachable) return { outcome: 'unavailable', error: res };
    if (res.status === 200) {
      const b = res.body as Record<string, unknown>;
      return { outcome: 'charged', transactionId: str(b.transaction_id) as string, balance: num(b.balance) };
    }
    if (res.status === 402) {
      // A flat refusal even if the body is unreadable: the status says it all.
      const b = isRecord(res.body) ? res.body : {};
      return { outcome: 'insufficient', balance: num(b.balance), required: num(b.required) ?? request.amount, buyUrl: str(b.buy_url) };
    }
    return { outcome: 'unavailable', error: this.rejected(call, res) };
  }

  /** Refunds the spend with this reference; idempotent per reference. */
  async refund(request: { teamId: number; reference: string }): Promise<RefundResult> {
    const call = `POST ${REFUND_PATH}`;
    const body = { app: this.app, team_id: request.teamId, reference: request.reference };
    const res = await this.call(call, 'POST', REFUND_PATH, body, (a) => a.status === 200 && isRecord(a.body) && a.body.refunded === true);
    if (res instanceof BillingServiceUnreachable) return { outcome: 'unavailable', error: res };
    if (res.status === 200) {
      const b = res.body as Record<string, unknown>;
      return { outcome: 'refunded', transactionId: str(b.transaction_id), balance: num(b.balance) };
    }
    return { outcome: 'unavailable', error: this.rejected(call, res) };
  }

  /** The team's balance and the page where credits are bought. */
  async balance(request: { teamId: number }): Promise<BalanceResult> {
    const call = `GET ${BALANCE_PATH}`;
    const query = new URLSearchParams({ app: this.app, team_id: String(request.teamId) });
    const res = await this.call(call, 'GET', `${BALANCE_PATH}?${query}`, undefined, (a) => a.status === 200 && isRecord(a.body) && num(a.body.balance) !== null);
    if (res instanceof BillingServiceUnreachable) return { outcome: 'unavailable', error: res };
    if (res.status === 200) {
      const b = res.body as Record<string, unknown>;
      return { outcome: 'ok', balance: num(b.balance) as number, buyUrl: str(b.buy_url) };
    }
    return { outcome: 'unavailable', error: this.rejected(call, res) };
  }

  private rejected(call: string, res: { status: number; text: string }) {
    return new BillingServiceUnreachable('rejected', call, res.text.slice(0, 200) || 'no body', res.status);
  }

  /**
   * One call with retries. Returns the final answer (a 200 that `valid`
   * accepts, or a non-retryable status) or the reason the service could not be
   * used.
   */
  private async call(call: string, method: 'GET' | 'POST', path: string, body: unknown, valid: (a: { status: number; body: unknown }) => boolean): Promise<{ status: number; body: unknown; text: string } | BillingServiceUnreachable> {
    if (!this.configured) return new BillingServiceUnreachable('not_configured', call, 'BILLING_APP_DOMAIN or BILLING_APP_API_KEY is empty');
    let last: BillingServiceUnreachable | undefined;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(this.backoffMs * 2 ** (attempt - 1));
      const a = await this.attempt(method, path, body);
      if (a.kind === 'failure') {
        last = new BillingServiceUnreachable(a.reason, call, a.detail);
      } else if (a.status === 200) {
        if (valid(a)) return a;
        // Spec rule 9: an unreadable or empty 200 is retried like a 5xx.
        last = new BillingServiceUnreachable('unreadable', call, a.text ? `unexpected body: ${a.text.slice(0, 200)}` : 'empty body', 200);
      } else if (a.status >= 500 || a.status === 429) {
        last = new BillingServiceUnreachable('server_error', call, a.text.slice(0, 200) || 'no body', a.status);
      } else {
        return a;
      }
      if (attempt < this.retries) logger.warn('billing service call failed; retrying', { call, attempt: attempt + 1, reason: last.reason, status: last.status, detail: last.detail });
    }
    return last as BillingServiceUnreachable;
  }

  private async attempt(method: 'GET' | 'POST', path: string, body: unknown): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: controller.signal,
      });
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { kind: 'answer', status: res.status, body: parsed, text };
    } catch (err) {
      if (controller.signal.aborted) return { kind: 'failure', reason: 'timeout', detail: `no answer within ${this.timeoutMs} ms` };
      return { kind: 'failure', reason: 'network', detail: causeOf(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}
