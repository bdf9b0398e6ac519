/**
 * The machinery of our JSON-over-HTTP platform clients (lib/integrations/
 * claims-platform.ts, estimation-platform.ts): one call with retries
 * (lib/retry.ts) within a deadline, each attempt with its own timeout, and
 * every way it can end mapped to a discriminated result, never an opaque throw:
 *   - ok: a 2xx whose body validates against the call's zod schema;
 *   - unauthorized (401), not_found (404), unprocessable (422): final;
 *   - unavailable: `reason` 'network', 'timeout', 'server_error' (5xx, or a 429
 *     still refused after the retries, unless the client names it 'rejected'),
 *     'unreadable' (a 2xx whose body is not the contract's) or 'rejected' (any
 *     other status, a redirect among them: none is followed); `status` when
 *     the platform answered; `detail` a sentence
 *     "<name> unreachable: <call>: <problem>"; `mayHaveApplied` true when any
 *     attempt may have been applied (a timeout, a dropped connection, a 5xx,
 *     an unreadable 2xx), false when none can have been (nothing listening,
 *     DNS, TLS, a 4xx).
 * Network failures, timeouts, 5xx and 429 (honouring Retry-After) are retried
 * with jittered exponential backoff, each retry logged at warn; an unreadable
 * 2xx only when the client says so. Whatever the body says reaches a detail or
 * a log line only bounded and scrubbed (bodyExcerpt). What differs between
 * the platforms (the credentials, how their error bodies read, wording) is the
 * client's JsonHttpSpec.
 */
import type * as z from 'zod';
import { baseUrl as normalizeBaseUrl } from '../config';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';
import {
  answerText,
  bodyExcerpt,
  causeOf,
  NO_REDIRECTS,
  refusedRedirect,
  retryAfterMs,
} from '../observability/outbound-failures';

/** One attempt. */
const DEFAULT_TIMEOUT_MS = 8_000;
/** Attempts in all, the first included. */
const DEFAULT_ATTEMPTS = 3;
/** Pause before the first retry; doubles per retry, jittered. */
const DEFAULT_BACKOFF_MS = 500;
/** A whole call, retries and pauses included: inside the 29 s of an HTTP function. */
const DEFAULT_DEADLINE_MS = 20_000;

type UnavailableReason = 'network' | 'timeout' | 'server_error' | 'unreadable' | 'rejected';

interface Unavailable {
  outcome: 'unavailable';
  reason: UnavailableReason;
  /** HTTP status when the platform answered. */
  status?: number;
  /** A readable sentence naming the call and the cause. */
  detail: string;
  /** The request may have been applied even so (by any attempt), its answer lost or garbled. */
  mayHaveApplied: boolean;
}

/** What a call came to. */
export type JsonHttpResult<T> =
  | { outcome: 'ok'; status: number; body: T }
  | { outcome: 'unauthorized' }
  | { outcome: 'not_found'; detail: string }
  | { outcome: 'unprocessable'; detail: string }
  | Unavailable;

/** A final answer of one call: a validated 2xx or a 4xx the caller is told about as such. */
type Final<T> = Exclude<JsonHttpResult<T>, Unavailable>;

/** Timing and transport of a client (the defaults: 8 s an attempt, 3 attempts, 500 ms backoff, 20 s a call). */
export interface JsonHttpOptions {
  /** Bare domain (https assumed) or full base URL. */
  baseUrl: string;
  /** One attempt, in ms. */
  timeoutMs?: number;
  /** Attempts in all, the first included. */
  attempts?: number;
  /** Pause before the first retry, in ms; doubles per retry, jittered. */
  backoffMs?: number;
  /** A whole call, retries and pauses included, in ms. */
  deadlineMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** What one platform does its own way. */
export interface JsonHttpSpec {
  /** 'claims platform': starts every `detail` ("<name> unreachable: ...") and the retry log line. */
  name: string;
  /** The credentials, sent with every request (never logged). */
  headers: Record<string, string>;
  /** The platform's own words in an error answer's body (bounded and scrubbed by the caller). */
  words: (text: string) => string;
  /** A 404's detail from the platform's words, bounded and scrubbed (default: those words). */
  notFoundDetail?: (call: string, said: string) => string;
  /** The reason of a 429 still refused after the retries. */
  tooManyRequests: 'server_error' | 'rejected';
  /** Whether an unreadable 2xx is worth another attempt. */
  retryUnreadable: boolean;
  /** An unreadable 2xx in words from an excerpt of the body; `error` is undefined when the body is not JSON. */
  unreadable: (status: number, excerpt: string, error: z.ZodError | undefined) => string;
  /** A fetch failure in words. */
  networkCause: (err: unknown) => string;
  /** Whether a fetch failure surely happened before the request was sent (it cannot have been applied). */
  notSent: (cause: string, err: unknown) => boolean;
  /** A retry is made only when it leaves more than 0 ms, and at least this, for its attempt. */
  minAttemptMs: number;
  /** Appended to an unavailable detail; `answered` when the last attempt got a final (not retried) answer. */
  attemptsNote: (attempts: number, answered: boolean) => string;
}

/** One call: `call` names it in details and logs (default "<method> <path>"). */
export interface JsonHttpRequest<T> {
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  call?: string;
  body?: unknown;
  schema: z.ZodType<T>;
}

/** Connection failures that happen before a request is sent: it cannot have been applied. */
export const NOT_SENT =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPROTO|ERR_SSL|ERR_TLS|CERT|certificate|SSL routines|wrong version number|self[- ]signed/i;

/**
 * A fetch failure in words: the socket's own message ("connect ECONNREFUSED
 * 127.0.0.1:4010") with its code; fetch's own words when the socket said
 * nothing (or, with `bareCode`, the socket's code alone when it has one).
 */
export function networkCause(err: unknown, bareCode = false): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const message = typeof cause?.message === 'string' ? cause.message : '';
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (!message) return bareCode && code ? code : causeOf(err);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body as JSON; undefined when empty or not JSON. */
export const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

/** A platform's own words in an error answer: the JSON `detail`, else `error`, else the body (the caller cuts it). */
function errorBodyWords(text: string): string {
  const body = parseJson(text);
  if (isRecord(body)) {
    if (typeof body.detail === 'string' && body.detail) return body.detail;
    if (typeof body.error === 'string' && body.error) return body.error;
  }
  return text;
}

/**
 * How a platform reads whose errors are `{error, detail?}` JSON and whose
 * calls are all safe to repeat (an unreadable 2xx is retried too): the
 * claims platform and the capture source. `notSent` says which fetch
 * failures surely happened before the request left.
 */
export function errorBodySpec(name: string, notSent: (cause: string) => boolean): Omit<JsonHttpSpec, 'headers'> {
  return {
    name,
    words: errorBodyWords,
    notFoundDetail: (call, said) => `${call}: ${said}`,
    tooManyRequests: 'server_error',
    retryUnreadable: true,
    unreadable: (status, excerpt) => `unreadable answer (HTTP ${status}): ${excerpt.slice(0, 200) || 'empty body'}`,
    networkCause: (err) => networkCause(err, true),
    notSent,
    minAttemptMs: 0,
    attemptsNote: (attempts) => (attempts > 1 ? ` (${attempts} attempts)` : ''),
  };
}

/** One failed attempt, as the retry policy sees it. */
class AttemptFailed extends Error {
  constructor(
    readonly reason: UnavailableReason,
    /** What went wrong, without the call (e.g. "HTTP 503: ..."). */
    readonly problem: string,
    readonly mayHaveApplied: boolean,
    readonly retryable: boolean,
    readonly status?: number,
    /** Retry-After, in ms, when the platform asked for a pause. */
    readonly retryAfterMs: number | null = null,
    /** A final answer of the platform, not a failure to reach it. */
    readonly answered = false,
  ) {
    super(problem);
  }
}

/** A client of one JSON platform: the timing it was given, and `request`, one call with retries. */
export abstract class JsonHttpClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly deadlineMs: number;
  private readonly fetch: typeof fetch;

  protected constructor(
    options: JsonHttpOptions,
    private readonly spec: JsonHttpSpec,
  ) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.attempts = Math.max(1, Math.floor(options.attempts ?? DEFAULT_ATTEMPTS));
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** One call with retries (lib/retry.ts), all of it within deadlineMs. */
  protected async request<T>(request: JsonHttpRequest<T>): Promise<JsonHttpResult<T>> {
    const { spec } = this;
    const call = request.call ?? `${request.method} ${request.path}`;
    const deadline = Date.now() + this.deadlineMs;
    const minAttemptMs = Math.min(spec.minAttemptMs, this.timeoutMs);
    let attempts = 0;
    // Once any attempt may have been applied, the call as a whole may have been.
    let mayHaveApplied = false;
    try {
      return await withRetry<Final<T>>(
        async (attempt) => {
          attempts = attempt;
          try {
            return await this.attempt(request, call, deadline);
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
            const pause = Math.max(this.backoffMs * 2 ** (attempts - 1), err.retryAfterMs ?? 0);
            const left = deadline - (Date.now() + pause);
            return left > 0 && left >= minAttemptMs;
          },
          minPauseMs: (err) => (err instanceof AttemptFailed ? err.retryAfterMs : null),
          onRetry: (err, attempt) => {
            const e = err as AttemptFailed;
            logger.warn(`${spec.name} call failed; retrying`, {
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
      const e = err instanceof AttemptFailed ? err : new AttemptFailed('network', spec.networkCause(err), true, false);
      return {
        outcome: 'unavailable',
        reason: e.reason,
        ...(e.status !== undefined ? { status: e.status } : {}),
        detail: `${spec.name} unreachable: ${call}: ${e.problem}${spec.attemptsNote(attempts, e.answered)}`,
        mayHaveApplied: mayHaveApplied || e.mayHaveApplied,
      };
    }
  }

  /** One request within what is left of the deadline: a final answer, or AttemptFailed. */
  private async attempt<T>(request: JsonHttpRequest<T>, call: string, deadline: number): Promise<Final<T>> {
    const { spec } = this;
    const { method, path, body } = request;
    const budgetMs = deadline - Date.now();
    if (budgetMs <= 0)
      throw new AttemptFailed('timeout', `no time left within the ${this.deadlineMs} ms deadline`, false, false);
    const timeoutMs = Math.min(this.timeoutMs, budgetMs);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    let redirect: string | null;
    try {
      const res = await this.fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...spec.headers,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: controller.signal,
        ...NO_REDIRECTS,
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      redirect = refusedRedirect(status);
      text = await answerText(res);
    } catch (err) {
      if (controller.signal.aborted) throw new AttemptFailed('timeout', `no answer within ${timeoutMs} ms`, true, true);
      const cause = spec.networkCause(err);
      throw new AttemptFailed('network', cause, !spec.notSent(cause, err), true);
    } finally {
      clearTimeout(timer);
    }

    if (redirect) throw new AttemptFailed('rejected', redirect, false, false, status, null, true);
    if (status >= 200 && status < 300) {
      const parsed = parseJson(text);
      const checked = request.schema.safeParse(parsed);
      if (checked.success) return { outcome: 'ok', status, body: checked.data };
      const problem = spec.unreadable(status, bodyExcerpt(text), parsed === undefined ? undefined : checked.error);
      const retry = spec.retryUnreadable;
      throw new AttemptFailed('unreadable', problem, true, retry, status, null, !retry);
    }
    if (status === 401) return { outcome: 'unauthorized' };
    const said = bodyExcerpt(spec.words(text)) || 'no body';
    if (status === 404) return { outcome: 'not_found', detail: spec.notFoundDetail?.(call, said) ?? said };
    if (status === 422) return { outcome: 'unprocessable', detail: said };
    const problem = `HTTP ${status}: ${said}`;
    if (status >= 500) throw new AttemptFailed('server_error', problem, true, true, status, retryAfterMs(retryAfter));
    if (status === 429)
      throw new AttemptFailed(spec.tooManyRequests, problem, false, true, status, retryAfterMs(retryAfter));
    throw new AttemptFailed('rejected', problem, false, false, status, null, true);
  }
}
