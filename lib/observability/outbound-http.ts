/**
 * The one outbound HTTP core: every request lib/ sends to another system goes
 * through `sendOutbound` (tests/unit/project/outbound-http.test.ts holds every
 * other file to it). What differs per integration is its OutboundSettings:
 *  - a timeout per attempt and a deadline for the whole call;
 *  - attempts and backoff through lib/retry.ts (p-retry), retrying transient
 *    failures only: the network, a timeout, and what the integration's reading
 *    of an answer calls retryable (5xx, 429 with its Retry-After honoured);
 *  - redirects refused (a final failure naming the status) unless the
 *    integration re-checks every target (`followRedirect`);
 *  - its own connection pool where it guards the addresses it connects to
 *    (`dispatcher`, with `refusal` naming what the guard refused);
 *  - a cap on the bytes of an answer read.
 * A failure comes back as a result naming the last attempt's failure, the
 * attempts made and whether any may have been applied, never thrown; each
 * integration turns it into its own IntegrationError or result, the body's
 * words in it only through bodyExcerpt (./outbound-failures.ts).
 *
 * It lives in lib/observability, the base every folder may import, because
 * the signals' own posts (analytics.ts, sentry-client.ts) go through it too:
 * anywhere higher, the core and the signals would import each other. It
 * imports nothing of lib/ but lib/retry.ts and ./outbound-failures.ts; logging
 * a retry is the caller's (`onRetry`).
 */
// Types only: undici's code would weigh every function's bundle (the signals import this module); the one caller
// with a dispatcher passes undici's fetch itself.
import type { Dispatcher } from 'undici';
import { withRetry } from '../retry';
import {
  AttemptFailed,
  type AttemptFailure,
  attemptFailed,
  causeOf,
  isRedirect,
  NOT_SENT,
  refusedRedirect,
} from './outbound-failures';

/** The most of an answer read unless an integration says otherwise. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

export interface OutboundSettings {
  /** One attempt, in ms: until its answer is read (a stream's, until its headers). */
  timeoutMs: number;
  /** The whole call, attempts and pauses included, in ms (default: no limit but the attempts'). */
  deadlineMs?: number;
  /** Attempts in all, the first included. */
  attempts: number;
  /** Pause before the first retry, in ms; doubles per retry. */
  backoffMs: number;
  /** Draw each pause between half and all of it (default true). */
  jitter?: boolean;
  /** Within a deadline, a retry is made only when it leaves more than 0 ms, and at least this, for its attempt. */
  minAttemptMs?: number;
  /** Bytes of an answer read at most (default 16 MiB); a streamed body is counted by its reader. */
  maxBytes?: number;
  /** Redirects are refused unless this is given: it checks each target (the URL to go on to, or why not). */
  followRedirect?: (location: string | null, from: URL, hops: number) => URL | string;
  /**
   * The connection pool, e.g. one that checks every address at connect time. Give `fetch` with it: undici's own
   * (./outbound-undici.ts), as Node's global fetch runs its own copy of undici.
   */
  dispatcher?: Dispatcher;
  /** The fetch to use (default: the global one, looked up at each call). */
  fetch?: typeof fetch;
  /** A connection failure in words (default: causeOf). */
  networkWords?: (err: unknown, url: string | URL) => string;
  /** An attempt out of time, in words (default: "no answer within <ms> ms"). */
  timeoutWords?: (ms: number, url: string | URL) => string;
  /** The request's own signal stopped the call, in words. */
  stoppedWords?: () => string;
  /** Whether a connection failure surely came before the request left (default: NOT_SENT's codes). */
  notSent?: (cause: string, err: unknown) => boolean;
  /** A connection failure the dispatcher's guard caused, in words (a final refusal); null for any other. */
  refusal?: (err: unknown) => string | null;
  /** Told about each failed attempt that will be retried, before the pause. */
  onRetry?: (failure: AttemptFailure, attempt: number) => void;
}

export interface OutboundRequest {
  url: string | URL;
  method?: 'GET' | 'PUT' | 'POST';
  headers?: Record<string, string>;
  body?: RequestInit['body'];
  /** Stops the call from outside (and a streamed body with it); a stopped call is not retried. */
  signal?: AbortSignal;
  /** Leave a 2xx's body unread for the caller (`answer.response.body`). */
  stream?: boolean;
}

/** An answer as the integration's reading gets it. */
export interface OutboundAnswer {
  status: number;
  headers: Headers;
  /** The body as text ('' for a redirect or a stream). */
  text: string;
  response: Response;
}

export type OutboundResult<T> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; failure: AttemptFailure; attempts: number; mayHaveApplied: boolean };

/**
 * One call: attempts until `read` returns a value for an answer, or throws an
 * AttemptFailed that is final, or the attempts or the deadline are spent.
 * `read` is the integration's: what an answer means (throw AttemptFailed, e.g.
 * with attemptFailed(), for a failure). Anything else it throws is thrown on.
 */
export async function sendOutbound<T>(
  settings: OutboundSettings,
  request: OutboundRequest,
  read: (answer: OutboundAnswer) => T | Promise<T>,
): Promise<OutboundResult<T>> {
  const deadline = settings.deadlineMs === undefined ? null : Date.now() + settings.deadlineMs;
  const minAttemptMs = Math.min(settings.minAttemptMs ?? 0, settings.timeoutMs);
  let attempts = 0;
  // Once any attempt may have been applied, the call as a whole may have been.
  let mayHaveApplied = false;
  try {
    const value = await withRetry(
      async (attempt) => {
        attempts = attempt;
        try {
          return await read(await answerOf(settings, request, deadline));
        } catch (err) {
          if (err instanceof AttemptFailed) mayHaveApplied ||= err.failure.mayHaveApplied === true;
          throw err;
        }
      },
      {
        attempts: settings.attempts,
        backoffMs: settings.backoffMs,
        jitter: settings.jitter ?? true,
        // Transient failures only, and only when the pause leaves time for another attempt.
        retryable: (err) => {
          if (!(err instanceof AttemptFailed) || !err.failure.retryable || request.signal?.aborted) return false;
          if (deadline === null) return true;
          const pause = Math.max(settings.backoffMs * 2 ** (attempts - 1), err.failure.retryAfterMs ?? 0);
          const left = deadline - (Date.now() + pause);
          return left > 0 && left >= minAttemptMs;
        },
        minPauseMs: (err) => (err instanceof AttemptFailed ? err.failure.retryAfterMs : null),
        onRetry: (err, attempt) => settings.onRetry?.((err as AttemptFailed).failure, attempt),
      },
    );
    return { ok: true, value, attempts };
  } catch (err) {
    if (!(err instanceof AttemptFailed)) throw err;
    return { ok: false, failure: err.failure, attempts, mayHaveApplied };
  }
}

/** One attempt: the request and the redirects the settings allow, each checked before it is sent. */
async function answerOf(
  settings: OutboundSettings,
  request: OutboundRequest,
  deadline: number | null,
): Promise<OutboundAnswer> {
  let url = request.url;
  for (let hops = 0; ; hops++) {
    const answer = await exchange(settings, request, url, deadline);
    if (!isRedirect(answer.status)) return answer;
    const refused = (message: string, kind: string) =>
      attemptFailed({ kind, status: answer.status, message, retryable: false, answered: true });
    if (!settings.followRedirect) throw refused(refusedRedirect(answer.status) as string, 'redirect');
    const next = settings.followRedirect(answer.headers.get('location'), new URL(url), hops);
    if (typeof next === 'string') throw refused(next, 'refused');
    url = next;
  }
}

/** One request and its answer (read up to the byte cap unless streamed), within the attempt's time. */
async function exchange(
  settings: OutboundSettings,
  request: OutboundRequest,
  url: string | URL,
  deadline: number | null,
): Promise<OutboundAnswer> {
  let timeoutMs = settings.timeoutMs;
  if (deadline !== null) {
    const budgetMs = deadline - Date.now();
    if (budgetMs <= 0)
      throw attemptFailed({
        kind: 'timeout',
        status: null,
        message: `no time left within the ${settings.deadlineMs} ms deadline`,
        retryable: false,
      });
    timeoutMs = Math.min(timeoutMs, budgetMs);
  }
  const own = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    own.abort();
  }, timeoutMs);
  const signal = request.signal ? AbortSignal.any([own.signal, request.signal]) : own.signal;
  try {
    const init = {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
      signal,
      // A 3xx comes back as the answer, never followed by fetch itself.
      redirect: 'manual',
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
    } as RequestInit;
    const send = settings.fetch ?? ((input, options) => fetch(input, options));
    const response = await send(url, init);
    let text = '';
    if (isRedirect(response.status)) await response.body?.cancel().catch(() => undefined);
    else if (!request.stream) text = await cappedText(response, settings.maxBytes ?? DEFAULT_MAX_BYTES);
    return { status: response.status, headers: response.headers, text, response };
  } catch (err) {
    if (err instanceof AttemptFailed) throw err;
    const refusal = settings.refusal?.(err);
    if (refusal) throw attemptFailed({ kind: 'refused', status: null, message: refusal, retryable: false });
    if (request.signal?.aborted)
      throw attemptFailed({
        kind: 'timeout',
        status: null,
        message: settings.stoppedWords?.() ?? 'stopped',
        retryable: false,
      });
    if (timedOut || own.signal.aborted) {
      const message = settings.timeoutWords?.(timeoutMs, url) ?? `no answer within ${timeoutMs} ms`;
      throw attemptFailed({ kind: 'timeout', status: null, message, retryable: true, mayHaveApplied: true });
    }
    const cause = settings.networkWords?.(err, url) ?? causeOf(err);
    const notSent = settings.notSent ? settings.notSent(cause, err) : NOT_SENT.test(cause);
    throw attemptFailed({ kind: 'network', status: null, message: cause, retryable: true, mayHaveApplied: !notSent });
  } finally {
    clearTimeout(timer);
  }
}

/** The body as text, at most `maxBytes` of it: a longer one (declared or arriving) is a final failure. */
async function cappedText(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    attemptFailed({
      kind: 'too_large',
      status: response.status,
      message: `its answer is more than ${maxBytes} bytes`,
      retryable: false,
      mayHaveApplied: true,
      answered: true,
    });
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const pieces: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    received += step.value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    pieces.push(step.value);
  }
  // TextDecoder drops a byte-order mark, as Response.text() does.
  return new TextDecoder().decode(Buffer.concat(pieces));
}
