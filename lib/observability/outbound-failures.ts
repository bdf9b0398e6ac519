/**
 * How the outbound HTTP clients read a failed call. None follows a redirect
 * (`NO_REDIRECTS`): a platform's base URL pointed somewhere hostile could
 * otherwise send our credentials and requests on to an internal address and
 * have the answer reflected. A 3xx is a final failure naming its status. Text
 * taken from an answer's body reaches details, logs and messages only as a
 * `bodyExcerpt`: bounded and scrubbed of credentials and addresses.
 */
import { scrubText } from './scrub-rules';

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

/** Every outbound fetch's init carries this: a 3xx comes back as the answer, never followed. */
export const NO_REDIRECTS = { redirect: 'manual' } as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const isRedirect = (status: number) => REDIRECTS.has(status);

/** A redirect (301, 302, 303, 307, 308) in words naming its status, or null for any other status. */
export function refusedRedirect(status: number): string | null {
  return isRedirect(status) ? `a redirect (HTTP ${status}), not followed` : null;
}

/** An answer's body as text; a redirect's is left unread (its status says all a caller needs). */
export async function answerText(res: Pick<Response, 'status' | 'body' | 'text'>): Promise<string> {
  if (!isRedirect(res.status)) return res.text();
  await res.body?.cancel().catch(() => undefined);
  return '';
}

/** The most of a response body that goes into a detail, a log line or a message. */
const BODY_EXCERPT_CHARS = 300;
/** The start of a body that is scrubbed before it is cut: the scrubbing stays cheap on a huge body. */
const BODY_SCAN_CHARS = 2_000;

/**
 * Text from a response body fit for an error detail, a log line or a message:
 * whitespace folded, credentials and email addresses masked (scrubText), at
 * most `maxChars` characters; '' for an empty body. It is scrubbed before it
 * is cut, so a cut never leaves part of an address or token unmasked.
 */
export function bodyExcerpt(text: string, maxChars = BODY_EXCERPT_CHARS): string {
  let head = text;
  if (head.length > BODY_SCAN_CHARS) {
    head = head.slice(0, BODY_SCAN_CHARS);
    // The last word may be cut, leaving a part of a token too short to be recognised as one: it goes.
    const lastBreak = head.search(/[\s",;<>][^\s",;<>]*$/);
    if (lastBreak > 0) head = head.slice(0, lastBreak);
  }
  const scrubbed = scrubText(head.replace(/\s+/g, ' ').trim());
  return scrubbed.length > maxChars ? `${scrubbed.slice(0, maxChars - 1)}…` : scrubbed;
}
