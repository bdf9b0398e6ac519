/**
 * Keeping personal data out of what leaves for error tracking and analytics
 * (spec: Outbound signals: no personal data is attached). Reports are built
 * from ids and our own messages, never from user records; these rules are the
 * second line: email addresses, tokens and keys, and URL query strings
 * (presigned URLs carry credentials) are masked wherever text appears, and an
 * error-tracking event loses every part that could describe a person (user,
 * request, breadcrumbs, host name). Ids (UUIDs, numbers) stay here; each
 * sink replaces UUIDs by keyed hashes on its way out (outbound-id-rules.ts).
 */

const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** Three base64url segments, the first a JSON header: a JWT (a login or hand-off token). */
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer|Basic)\s+[^\s,;"']+/gi;
/** A query string: presigned S3 URLs and webhook URLs carry credentials there. */
const URL_QUERY = /\b(https?:\/\/[^\s?#"'<>]+)\?[^\s#"'<>]*/gi;
/** `key=...`, `token: ...`, `secret ...` and the like: the value goes. */
const CREDENTIAL_PAIR =
  /\b([A-Za-z_-]*(?:token|secret|password|passwd|api[_-]?key|apikey|authorization|signature|dsn|cookie)[A-Za-z_-]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)/gi;
/**
 * A homeowner link's token by position: whatever follows `/insured/` up to
 * the next `/`, `?`, `#`, quote or space (the wizard's URL and its API paths).
 */
const INSURED_PATH_SEGMENT = /(\/insured\/)([^/?#"'`\s]+)/g;
/**
 * A homeowner link's token by shape, wherever it appears: 32 random bytes in
 * base64url are a run of exactly 43 such characters, digits or not.
 */
const LINK_TOKEN_SHAPE = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/** Already masked (`[credential]`, `[token]`) or a route template's parameter (`{token}`): kept. */
const MASKED_OR_TEMPLATE = /^(\[[a-z]+\]|\{[A-Za-z_]+\+?\})$/;
/** A long run of key-like characters with digits in it: tokens, keys, signatures (UUIDs are ids and stay). */
const LONG_RUN = /[A-Za-z0-9_+=-]{32,}/g;
const HAS_DIGIT = /\d/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Masks email addresses, tokens (homeowner link tokens by position and shape), credentials and URL query strings in a text. */
export function scrubText(text: string): string {
  return text
    .replace(INSURED_PATH_SEGMENT, (all, prefix: string, segment: string) =>
      UUID.test(segment) || MASKED_OR_TEMPLATE.test(segment) ? all : `${prefix}[token]`,
    )
    .replace(URL_QUERY, '$1?[query]')
    .replace(JWT, '[token]')
    .replace(BEARER, '$1 [token]')
    .replace(CREDENTIAL_PAIR, (_all, key: string, separator: string) => `${key}${separator}[redacted]`)
    .replace(EMAIL, '[email]')
    .replace(LINK_TOKEN_SHAPE, '[token]')
    .replace(LONG_RUN, (run) => (UUID.test(run) || !HAS_DIGIT.test(run) ? run : '[token]'));
}

/** Every string inside `value` scrubbed (objects and arrays copied, other values kept). */
export function scrubValue<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return scrubText(value) as T;
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, depth + 1)])) as T;
}

/** Log line fields that are the logger's own or ids (trace ids are long hex runs): written as they are. */
const LOG_FIELDS_KEPT = new Set([
  'level',
  'timestamp',
  'service',
  'sampling_rate',
  'cold_start',
  'function_name',
  'function_arn',
  'function_memory_size',
  'xray_trace_id',
]);
const ID_FIELD = /(^|_)ids?$/;

/**
 * A log line's fields fit to be printed and exported: every string scrubbed
 * (scrubText) but the logger's own fields and ids, so a credential that
 * reached a message or a field never reaches the log or the collector.
 */
export function scrubLogAttributes<T extends Record<string, unknown>>(attributes: T): T {
  return Object.fromEntries(
    Object.entries(attributes).map(([key, value]) => [
      key,
      LOG_FIELDS_KEPT.has(key) || ID_FIELD.test(key) ? value : scrubValue(value),
    ]),
  ) as T;
}

/** The parts of an error-tracking event these rules look at (Sentry's event format). */
export interface TrackedEvent {
  level?: string;
  message?: string;
  exception?: { values?: { type?: string; value?: string; stacktrace?: unknown }[] };
  tags?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  contexts?: Record<string, unknown>;
  user?: unknown;
  request?: unknown;
  breadcrumbs?: unknown;
  server_name?: string;
}

/** Contexts that describe the runtime, never a person; the rest are dropped (but the trace's, kept as it is: ids). */
const KEPT_CONTEXTS = new Set(['runtime', 'os']);

/**
 * An error-tracking event fit to leave: no user, request, breadcrumbs or
 * host name; messages, exception values, tags, extra data and the runtime's
 * contexts scrubbed (scrubText), the trace context (ids) kept as it is. Stack frames keep their file and line, not their
 * variables or source lines.
 */
export function scrubEvent<E extends TrackedEvent>(event: E): E {
  const { user: _user, request: _request, breadcrumbs: _breadcrumbs, server_name: _host, ...rest } = event;
  const scrubbed: TrackedEvent = { ...rest };
  if (typeof event.message === 'string') scrubbed.message = scrubText(event.message);
  if (event.exception?.values)
    scrubbed.exception = {
      ...event.exception,
      values: event.exception.values.map((value) => ({
        ...value,
        ...(value.value === undefined ? {} : { value: scrubText(value.value) }),
        ...(isRecord(value.stacktrace) ? { stacktrace: withoutFrameData(value.stacktrace) } : {}),
      })),
    };
  if (event.tags) scrubbed.tags = scrubValue(event.tags);
  if (event.extra) scrubbed.extra = scrubValue(event.extra);
  if (event.contexts)
    scrubbed.contexts = {
      ...scrubValue(Object.fromEntries(Object.entries(event.contexts).filter(([name]) => KEPT_CONTEXTS.has(name)))),
      ...(event.contexts.trace === undefined ? {} : { trace: event.contexts.trace }),
    };
  return scrubbed as E;
}

const FRAME_DATA = new Set(['vars', 'pre_context', 'context_line', 'post_context']);

function withoutFrameData(stacktrace: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(stacktrace.frames)) return stacktrace;
  return {
    ...stacktrace,
    frames: stacktrace.frames.map((frame) =>
      isRecord(frame) ? Object.fromEntries(Object.entries(frame).filter(([key]) => !FRAME_DATA.has(key))) : frame,
    ),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
