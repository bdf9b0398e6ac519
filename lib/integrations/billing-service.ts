/**
 * Client of the billing service, the external prepaid credit ledger (spec:
 * Limits > Credit prices and charging, rule 4; Outbound credentials).
 *
 * Base URL: BILLING_APP_DOMAIN, either a bare domain ("billing.example.com",
 * https assumed) or a full base URL ("http://127.0.0.1:4010"). Every call
 * carries `Authorization: Bearer <BILLING_APP_API_KEY>`.
 *
 * The wire contract (paths, bodies, answers) is in billing-contract.ts.
 *
 * Outcomes are a discriminated result, never an opaque throw:
 *   - charged / refunded / ok: the service answered as above;
 *   - insufficient: a flat refusal (402), the caller answers 402;
 *   - unknown_reference: a refund of a spend the service does not hold (404);
 *   - unavailable: the service could not be used (network failure, timeout,
 *     5xx, a 200 whose body is empty or unreadable, any other status such as a
 *     401 from a wrong key, or a redirect, which is never followed). The
 *     caller fails open. What the body says reaches a detail only bounded and
 *     scrubbed (bodyExcerpt). The error is a
 *     BillingServiceUnreachable naming the call and the cause, and whether the
 *     request may have been applied even so (its answer lost).
 *
 * All three calls are idempotent (spend and refund by reference), so network
 * failures, timeouts, 5xx/429 and unreadable 200s are retried with exponential
 * backoff (lib/retry.ts); a 4xx is final. One call, retries and pauses
 * included, never takes longer than the deadline (DEFAULT_DEADLINE_MS), which
 * keeps a hung billing service well inside the 29 s of an HTTP function: the
 * caller gets `unavailable` and fails open instead of timing out.
 */
import { baseUrl as normalizeBaseUrl, settings as currentSettings, type Settings } from '../config';
import { logger } from '../observability/logger';
import {
  type AttemptFailure,
  attemptFailed,
  bodyExcerpt,
  isRecord,
  parseJson,
  refusedRedirect,
} from '../observability/outbound-failures';
import { sendOutbound } from '../observability/outbound-http';
import {
  BALANCE_PATH,
  type BalanceResult,
  BillingServiceUnreachable,
  REFUND_PATH,
  type RefundRequest,
  type RefundResult,
  SPEND_PATH,
  type SpendRequest,
  type SpendResult,
  type UnreachableReason,
} from './billing-contract';

/** One attempt. */
const DEFAULT_TIMEOUT_MS = 6_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_BACKOFF_MS = 300;
/** A whole call, retries and pauses included: well inside an HTTP function's 29 s, with room for the job's own writes. */
export const DEFAULT_DEADLINE_MS = 15_000;

export interface BillingClientOptions {
  /** BILLING_APP_DOMAIN: bare domain or full base URL. */
  domain: string;
  apiKey: string;
  /** BILLING_EXTERNAL_APP. */
  app: string;
  /** One attempt. */
  timeoutMs?: number;
  /** Extra attempts after the first for transient failures. */
  retries?: number;
  /** First backoff; doubles per retry. */
  backoffMs?: number;
  /** The whole call, retries and pauses included. */
  deadlineMs?: number;
}

/** An answer; `text` is the body's. */
type Answer = { status: number; body: unknown; text: string };

/** The body's words for a detail: bounded and scrubbed. */
const said = (text: string) => bodyExcerpt(text, 200) || 'no body';

const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;
const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;

export class BillingServiceClient {
  readonly baseUrl: string;
  readonly app: string;
  private readonly apiKey: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  readonly deadlineMs: number;

  constructor(options: BillingClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.domain);
    this.apiKey = options.apiKey.trim();
    this.app = options.app;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /** A client from the settings (BILLING_APP_DOMAIN, BILLING_APP_API_KEY, BILLING_EXTERNAL_APP). */
  static fromSettings(
    config: Pick<Settings, 'BILLING_APP_DOMAIN' | 'BILLING_APP_API_KEY' | 'BILLING_EXTERNAL_APP'> = currentSettings(),
    overrides: Partial<BillingClientOptions> = {},
  ) {
    return new BillingServiceClient({
      domain: config.BILLING_APP_DOMAIN,
      apiKey: config.BILLING_APP_API_KEY,
      app: config.BILLING_EXTERNAL_APP,
      ...overrides,
    });
  }

  get configured(): boolean {
    return Boolean(this.baseUrl && this.apiKey);
  }

  /** Spends credits up front; the spend doubles as the affordability gate. */
  async spend(request: SpendRequest): Promise<SpendResult> {
    const call = `POST ${SPEND_PATH}`;
    const body = {
      app: this.app,
      team_id: request.teamId,
      user_id: request.userId,
      amount: request.amount,
      reference: request.reference,
      description: request.description,
    };
    const res = await this.call(
      call,
      'POST',
      SPEND_PATH,
      body,
      (a) => a.status === 200 && isRecord(a.body) && str(a.body.transaction_id) !== null,
    );
    if (res instanceof BillingServiceUnreachable) return { outcome: 'unavailable', error: res };
    if (res.status === 200) {
      const b = res.body as Record<string, unknown>;
      return { outcome: 'charged', transactionId: str(b.transaction_id) as string, balance: num(b.balance) };
    }
    if (res.status === 402) {
      // A flat refusal even if the body is unreadable: the status says it all.
      const b = isRecord(res.body) ? res.body : {};
      return {
        outcome: 'insufficient',
        balance: num(b.balance),
        required: num(b.required) ?? request.amount,
        buyUrl: str(b.buy_url),
      };
    }
    return { outcome: 'unavailable', error: this.rejected(call, res) };
  }

  /** Refunds the spend with this reference (or `amount` of it under `refundReference`); idempotent per refund. */
  async refund(request: RefundRequest): Promise<RefundResult> {
    const call = `POST ${REFUND_PATH}`;
    const partial =
      request.amount !== undefined
        ? { refund_reference: request.refundReference ?? request.reference, amount: request.amount }
        : {};
    const body = { app: this.app, team_id: request.teamId, reference: request.reference, ...partial };
    const res = await this.call(
      call,
      'POST',
      REFUND_PATH,
      body,
      (a) => a.status === 200 && isRecord(a.body) && a.body.refunded === true,
    );
    if (res instanceof BillingServiceUnreachable) return { outcome: 'unavailable', error: res };
    if (res.status === 200) {
      const b = res.body as Record<string, unknown>;
      return { outcome: 'refunded', transactionId: str(b.transaction_id), balance: num(b.balance) };
    }
    if (res.status === 404) return { outcome: 'unknown_reference' };
    if (res.status === 409) return { outcome: 'nothing_left', detail: said(res.text) };
    return { outcome: 'unavailable', error: this.rejected(call, res) };
  }

  /** The team's balance and the page where credits are bought. */
  async balance(request: { teamId: number }): Promise<BalanceResult> {
    const call = `GET ${BALANCE_PATH}`;
    const query = new URLSearchParams({ app: this.app, team_id: String(request.teamId) });
    const res = await this.call(
      call,
      'GET',
      `${BALANCE_PATH}?${query}`,
      undefined,
      (a) => a.status === 200 && isRecord(a.body) && num(a.body.balance) !== null,
    );
    if (res instanceof BillingServiceUnreachable) return { outcome: 'unavailable', error: res };
    if (res.status === 200) {
      const b = res.body as Record<string, unknown>;
      return { outcome: 'ok', balance: num(b.balance) as number, buyUrl: str(b.buy_url) };
    }
    return { outcome: 'unavailable', error: this.rejected(call, res) };
  }

  private rejected(call: string, res: { status: number; text: string }) {
    return new BillingServiceUnreachable('rejected', call, refusedRedirect(res.status) ?? said(res.text), res.status);
  }

  /**
   * One call with retries (the outbound core), all of it within deadlineMs.
   * Returns the final answer (a 200 that `valid` accepts, or a non-retryable
   * status) or the reason the service could not be used.
   */
  private async call(
    call: string,
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    valid: (a: Answer) => boolean,
  ): Promise<Answer | BillingServiceUnreachable> {
    if (!this.configured)
      return new BillingServiceUnreachable(
        'not_configured',
        call,
        'BILLING_APP_DOMAIN or BILLING_APP_API_KEY is empty',
      );
    const result = await sendOutbound(
      {
        timeoutMs: this.timeoutMs,
        deadlineMs: this.deadlineMs,
        attempts: this.retries + 1,
        backoffMs: this.backoffMs,
        jitter: false,
        onRetry: (failure, attempt) =>
          logger.warn('billing service call failed; retrying', {
            call,
            attempt,
            reason: reasonOf(failure),
            status: failure.status ?? undefined,
            detail: failure.message,
          }),
      },
      {
        url: `${this.baseUrl}${path}`,
        method,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      },
      ({ status, text }) => {
        const a: Answer = { status, body: parseJson(text) ?? null, text };
        if (status === 200) {
          if (valid(a)) return a;
          // Spec rule 9: an unreadable or empty 200 is retried like a 5xx.
          const message = text.trim() ? `unexpected body: ${said(text)}` : 'empty body';
          throw attemptFailed({ kind: 'unreadable', status, message, retryable: true, mayHaveApplied: true });
        }
        if (status >= 500 || status === 429)
          throw attemptFailed({
            kind: 'server_error',
            status,
            message: said(text),
            retryable: true,
            mayHaveApplied: status >= 500,
          });
        return a;
      },
    );
    if (result.ok) return result.value;
    const { failure } = result;
    // A refused redirect is a final answer, as any other status the service gives.
    if (failure.kind === 'redirect') return this.rejected(call, { status: failure.status ?? 0, text: '' });
    return new BillingServiceUnreachable(
      reasonOf(failure),
      call,
      failure.message,
      failure.status ?? undefined,
      result.mayHaveApplied,
    );
  }
}

/** The core's kinds of failure as the billing service's reasons. */
function reasonOf(failure: AttemptFailure): UnreachableReason {
  if (failure.kind === 'too_large') return 'unreadable';
  return failure.kind as UnreachableReason;
}
