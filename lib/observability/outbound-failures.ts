/**
 * How an outbound HTTP call fails (the core is ./outbound-http.ts): one
 * failed attempt (AttemptFailed), the error every integration's final failure
 * is (IntegrationError), and the words of a failure. No redirect is followed
 * unless a caller re-checks its target: a base URL pointed somewhere hostile
 * could otherwise send our credentials and requests on to an internal address
 * and have the answer reflected. Text taken from an answer's body reaches
 * details, logs and messages only as a `bodyExcerpt`: bounded and scrubbed of
 * credentials and addresses. Pure: no I/O.
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

/** Connection failures that happen before a request is sent: it cannot have been applied. */
export const NOT_SENT =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPROTO|ERR_SSL|ERR_TLS|CERT|certificate|SSL routines|wrong version number|self[- ]signed/i;

/**
 * What a failed attempt tells the retry policy and, once retries are spent,
 * the caller. The core's own kinds: 'timeout', 'network', 'redirect' (refused),
 * 'refused' (a redirect target or an address the caller's guard refused),
 * 'too_large' (past the byte cap); an integration's reading of an answer adds
 * its own.
 */
export interface AttemptFailure {
  kind: string;
  /** The HTTP status received, null when none (not sent, timeout, network). */
  status: number | null;
  message: string;
  retryable: boolean;
  /** Retry-After, in ms, when the service asked for a pause. */
  retryAfterMs: number | null;
  /** The request may have been applied even so (default: false). */
  mayHaveApplied?: boolean;
  /** A final answer of the service, not a failure to reach it. */
  answered?: boolean;
}

/** One failed HTTP attempt, as the retry policy sees it: the only such class. */
export class AttemptFailed<F extends AttemptFailure = AttemptFailure> extends Error {
  constructor(readonly failure: F) {
    super(failure.message);
  }
}

/** A failure with the fields most leave at their defaults filled in. */
export const attemptFailed = <F extends AttemptFailure>(
  failure: Omit<F, 'retryAfterMs'> & { retryAfterMs?: number | null },
): AttemptFailed<F> => new AttemptFailed({ retryAfterMs: null, ...failure } as F);

/** A non-2xx answer as an attempt's failure: a 5xx or a 429 is worth another try, after the answer's Retry-After. */
export const statusFailed = (status: number, headers: Headers, message: string): AttemptFailed =>
  attemptFailed({
    kind: 'http',
    status,
    message,
    retryable: status >= 500 || status === 429,
    retryAfterMs: retryAfterMs(headers.get('retry-after')),
  });

/** The core's own kinds of failure in a client's words ('network' unreachable, a refused redirect or target http, 'too_large' unreadable); others as they are. */
export function clientKind(kind: string): string {
  if (kind === 'network') return 'unreachable';
  if (kind === 'redirect' || kind === 'refused') return 'http';
  if (kind === 'too_large') return 'unreadable';
  return kind;
}

/**
 * The one error of an integration that could not be used: which one, the last
 * HTTP status (null when none), whether the request may have been applied even
 * so, and whether the failure was transient (worth trying again later).
 */
export class IntegrationError extends Error {
  constructor(
    readonly integration: string,
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly mayHaveApplied: boolean,
  ) {
    super(message);
  }
}

/** Whether a final failure of this kind and status was a transient one (a timeout, the network, 5xx or 429). */
export function transient(kind: string, status: number | null): boolean {
  if (kind === 'timeout' || kind === 'network' || kind === 'unreachable') return true;
  return status !== null && (status >= 500 || status === 429);
}

/** "<service> <kind> (HTTP <status>) after <n> attempts: <message>": a client's error once its retries are spent. */
export function failureSummary(service: string, failure: AttemptFailure, attempts: number): string {
  const tried = failure.retryable ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
  return `${service} ${failure.kind}${failure.status ? ` (HTTP ${failure.status})` : ''}${tried}: ${failure.message}`;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const isRedirect = (status: number) => REDIRECTS.has(status);

/** A redirect (301, 302, 303, 307, 308) in words naming its status, or null for any other status. */
export function refusedRedirect(status: number): string | null {
  return isRedirect(status) ? `a redirect (HTTP ${status}), not followed` : null;
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

/** The body as JSON; undefined when empty or not JSON. */
export const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
