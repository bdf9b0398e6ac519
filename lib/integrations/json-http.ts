/**
 * The JSON-over-HTTP platform clients' reading of the outbound core
 * (lib/observability/outbound-http.ts) for claims-platform.ts,
 * estimation-platform.ts and capture-source.ts: one call with retries within
 * a deadline, each attempt with its own timeout, and every way it can end mapped to a discriminated result, never an opaque throw:
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
import {
  type AttemptFailure,
  attemptFailed,
  bodyExcerpt,
  isRecord,
  networkCause,
  parseJson,
  retryAfterMs,
} from '../observability/outbound-failures';
import { type OutboundAnswer, type OutboundResult, sendOutbound } from '../observability/outbound-http';

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

/** A client of one JSON platform: the timing it was given, and `request`, one call with retries. */
export abstract class JsonHttpClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly deadlineMs: number;
  private readonly fetch: typeof fetch | undefined;

  protected constructor(
    options: JsonHttpOptions,
    private readonly spec: JsonHttpSpec,
  ) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.attempts = Math.max(1, Math.floor(options.attempts ?? DEFAULT_ATTEMPTS));
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.fetch = options.fetch;
  }

  /** One call with retries (the outbound core), all of it within deadlineMs. */
  protected async request<T>(request: JsonHttpRequest<T>): Promise<JsonHttpResult<T>> {
    const { spec } = this;
    const call = request.call ?? `${request.method} ${request.path}`;
    const { body } = request;
    let result: OutboundResult<Final<T>>;
    try {
      result = await sendOutbound(
        {
          timeoutMs: this.timeoutMs,
          deadlineMs: this.deadlineMs,
          attempts: this.attempts,
          backoffMs: this.backoffMs,
          minAttemptMs: spec.minAttemptMs,
          fetch: this.fetch,
          networkWords: (err) => spec.networkCause(err),
          notSent: (cause, err) => spec.notSent(cause, err),
          onRetry: (failure, attempt) =>
            logger.warn(`${spec.name} call failed; retrying`, {
              call,
              attempt,
              reason: reasonOf(failure),
              status: failure.status ?? undefined,
              detail: failure.message,
            }),
        },
        {
          url: `${this.baseUrl}${request.path}`,
          method: request.method,
          headers: {
            ...spec.headers,
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        },
        (answer) => this.read(request, call, answer),
      );
    } catch (err) {
      result = {
        ok: false,
        failure: {
          kind: 'network',
          status: null,
          message: spec.networkCause(err),
          retryable: false,
          retryAfterMs: null,
        },
        attempts: 1,
        mayHaveApplied: true,
      };
    }
    if (result.ok) return result.value;
    const { failure } = result;
    return {
      outcome: 'unavailable',
      reason: reasonOf(failure),
      ...(failure.status !== null ? { status: failure.status } : {}),
      detail: `${spec.name} unreachable: ${call}: ${failure.message}${spec.attemptsNote(result.attempts, failure.answered === true)}`,
      mayHaveApplied: result.mayHaveApplied || failure.mayHaveApplied === true,
    };
  }

  /** What one answer means: a final answer, or AttemptFailed. */
  private read<T>(request: JsonHttpRequest<T>, call: string, answer: OutboundAnswer): Final<T> {
    const { spec } = this;
    const { status, text } = answer;
    if (status >= 200 && status < 300) {
      const parsed = parseJson(text);
      const checked = request.schema.safeParse(parsed);
      if (checked.success) return { outcome: 'ok', status, body: checked.data };
      const message = spec.unreadable(status, bodyExcerpt(text), parsed === undefined ? undefined : checked.error);
      const retryable = spec.retryUnreadable;
      throw attemptFailed({
        kind: 'unreadable',
        status,
        message,
        mayHaveApplied: true,
        retryable,
        answered: !retryable,
      });
    }
    if (status === 401) return { outcome: 'unauthorized' };
    const said = bodyExcerpt(spec.words(text)) || 'no body';
    if (status === 404) return { outcome: 'not_found', detail: spec.notFoundDetail?.(call, said) ?? said };
    if (status === 422) return { outcome: 'unprocessable', detail: said };
    const message = `HTTP ${status}: ${said}`;
    const retryAfter = retryAfterMs(answer.headers.get('retry-after'));
    if (status >= 500)
      throw attemptFailed({
        kind: 'server_error',
        status,
        message,
        mayHaveApplied: true,
        retryable: true,
        retryAfterMs: retryAfter,
      });
    if (status === 429)
      throw attemptFailed({ kind: spec.tooManyRequests, status, message, retryable: true, retryAfterMs: retryAfter });
    throw attemptFailed({ kind: 'rejected', status, message, retryable: false, answered: true });
  }
}

/** The core's kinds of failure as this client's reasons. */
function reasonOf(failure: AttemptFailure): UnavailableReason {
  if (failure.kind === 'redirect' || failure.kind === 'refused') return 'rejected';
  if (failure.kind === 'too_large') return 'unreadable';
  return failure.kind as UnavailableReason;
}
