/** How the outbound HTTP clients (AI gateway, speech-to-text) read a failed call. */

/** A Retry-After longer than this is not honoured in full; the job has a deadline. */
const MAX_RETRY_AFTER_MS = 30_000;

/** The wait a Retry-After header asks for (seconds or an HTTP date), capped; null when absent or unreadable. */
export function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS) : null;
}

/** A network failure in words: fetch's message and the socket's code (ECONNRESET, UND_ERR_...). */
export function causeOf(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code ?? e?.cause?.message;
  return [e?.message ?? String(err), code].filter(Boolean).join(': ');
}

/** What a failed attempt tells the retry policy and, once retries are spent, the caller. */
export interface AttemptFailure {
  kind: string;
  /** The HTTP status received, null when none (not sent, timeout, network). */
  status: number | null;
  message: string;
  retryable: boolean;
  /** Retry-After, in ms, when the service asked for a pause. */
  retryAfterMs: number | null;
}

/** One failed HTTP attempt, as the retry policy sees it. */
export class AttemptFailed<F extends AttemptFailure = AttemptFailure> extends Error {
  constructor(readonly failure: F) {
    super(failure.message);
  }
}

/**
 * The retry policy of a client whose attempts throw AttemptFailed: jittered
 * exponential backoff, retryable failures only, and a Retry-After longer
 * than the backoff wins.
 */
export function attemptRetryPolicy(attempts: number, backoffMs: number) {
  return {
    attempts,
    backoffMs,
    jitter: true,
    retryable: (err: unknown) => err instanceof AttemptFailed && err.failure.retryable,
    minPauseMs: (err: unknown) => (err instanceof AttemptFailed ? err.failure.retryAfterMs : null),
  };
}

/** "<service> <kind> (HTTP <status>) after <n> attempts: <message>": a client's error once its retries are spent. */
export function failureSummary(service: string, failure: AttemptFailure, attempts: number): string {
  const tried = failure.retryable ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
  return `${service} ${failure.kind}${failure.status ? ` (HTTP ${failure.status})` : ''}${tried}: ${failure.message}`;
}
