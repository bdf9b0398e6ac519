/**
 * The one retry policy of the code base, on p-retry: a bounded number of
 * attempts, exponential backoff between them, and a predicate naming which
 * failures are worth another attempt (anything else fails at once).
 *
 *   await withRetry((attempt) => work(attempt), { attempts: 4, backoffMs: 1000, jitter: true, retryable: isTransient });
 *
 * The pause before retry n (n = 1, 2, ...) is backoffMs * factor^(n-1),
 * capped at maxBackoffMs. With `jitter` it is drawn between half of that and
 * all of it, so concurrent callers that failed together do not retry
 * together. A failure may ask for a longer pause (an HTTP Retry-After):
 * `minPauseMs` returns it, and the pause is then never shorter.
 *
 * The error thrown at the end is the last attempt's own error, unchanged.
 */
import pRetry, { AbortError } from 'p-retry';

export interface RetryPolicy {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
  /** Pause before the first retry, in ms; 0 retries at once. */
  backoffMs: number;
  /** Growth of the pause per retry (default 2: doubling). */
  factor?: number;
  /** Longest single pause, in ms (default: no cap). */
  maxBackoffMs?: number;
  /** Draw each pause between half and all of its nominal value. */
  jitter?: boolean;
  /** Whether this failure is worth another attempt (default: every failure is). */
  retryable?: (error: unknown) => boolean;
  /** The least pause this failure asks for before the next attempt, in ms (e.g. Retry-After). */
  minPauseMs?: (error: unknown) => number | null;
  /** Told about each failed attempt that will be retried, before the pause. */
  onRetry?: (error: unknown, attempt: number) => void | Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Shortest pause p-retry can draw before retry n (1-based) under this policy. */
function leastPause(policy: RetryPolicy, retry: number): number {
  const nominal = policy.backoffMs * (policy.factor ?? 2) ** (retry - 1);
  const least = policy.jitter ? nominal / 2 : nominal;
  return Math.min(least, policy.maxBackoffMs ?? Number.POSITIVE_INFINITY);
}

/**
 * What p-retry sees of a failure. Every failure is wrapped so that our
 * predicate alone decides (p-retry on its own never retries a TypeError that
 * is not a network error, and needs Error instances); the caller gets the
 * original back.
 */
class Failure extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

const unwrap = (error: unknown) => (error instanceof Failure ? error.original : error);

/** Runs `work` until it succeeds, a failure is not retryable, or the attempts are used up. */
export async function withRetry<T>(work: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const attempts = Math.max(1, Math.floor(policy.attempts));
  const retryable = policy.retryable ?? (() => true);
  const jitter = policy.jitter === true;
  try {
    return await pRetry(
      async (attempt) => {
        try {
          return await work(attempt);
        } catch (error) {
          throw retryable(error) ? new Failure(error) : new AbortError(new Failure(error));
        }
      },
      {
        retries: attempts - 1,
        // p-retry's randomize multiplies by 1..2; halving the base gives half..all of backoffMs.
        minTimeout: jitter ? policy.backoffMs / 2 : policy.backoffMs,
        factor: policy.factor ?? 2,
        maxTimeout: policy.maxBackoffMs ?? Number.POSITIVE_INFINITY,
        randomize: jitter,
        shouldConsumeRetry: () => true,
        // Called only when another attempt will be made.
        shouldRetry: async ({ error, attemptNumber }) => {
          const original = unwrap(error);
          await policy.onRetry?.(original, attemptNumber);
          const asked = policy.minPauseMs?.(original) ?? 0;
          const extra = asked - leastPause(policy, attemptNumber);
          if (extra > 0) await sleep(extra);
          return true;
        },
      },
    );
  } catch (error) {
    throw unwrap(error);
  }
}
