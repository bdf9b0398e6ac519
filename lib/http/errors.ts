/**
 * Errors a request can end in, as HTTP answers. Domain code throws the domain
 * errors of lib/errors.ts; this is the one place their codes become statuses.
 * HttpError is for what only the edge decides (415 content type, 422 request
 * validation). The error middleware turns either into `{"detail": "..."}` (or
 * the body given, e.g. the spec's 402 body) with the status code, and any
 * headers the answer needs (Retry-After on a 429, and on a 503 that knows when).
 */
import { DomainError, type DomainErrorCode, RateLimitedError, UnavailableError } from '../errors';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** A body that replaces the default `{detail}` (the 402 body, per-field 422s). */
    readonly body?: Record<string, unknown>,
    /** Headers the answer must carry besides the JSON content type (Retry-After on a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const forbidden = (detail = 'This page is restricted.') => new HttpError(403, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const unsupportedMediaType = (detail: string) => new HttpError(415, detail);
export const unprocessable = (detail: string, errors?: FieldError[]) =>
  new HttpError(422, detail, errors ? { detail, errors } : undefined);

/** The status each domain error code is answered with: the one place domain errors become HTTP. */
export const STATUS_OF_DOMAIN_ERROR: Record<DomainErrorCode, number> = {
  invalid_request: 400,
  not_signed_in: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  remote_failure: 502,
  unavailable: 503,
};

/**
 * The HTTP answer for an error: an HttpError as it is, a domain error with the
 * status of its code; null for anything else (a 500).
 */
export function httpErrorOf(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) {
    const retryAfter =
      err instanceof RateLimitedError || err instanceof UnavailableError ? err.retryAfterSeconds : undefined;
    const headers = retryAfter === undefined ? undefined : { 'Retry-After': retryAfterValue(retryAfter) };
    return new HttpError(STATUS_OF_DOMAIN_ERROR[err.code], err.message, err.body, headers);
  }
  return null;
}

/**
 * Retry-After in whole seconds, rounded up and at least 1: "0" (or a fraction
 * rounded down to it) would invite an immediate retry that is refused again.
 */
function retryAfterValue(seconds: number): string {
  const whole = Math.ceil(seconds);
  return String(Number.isFinite(whole) && whole > 1 ? whole : 1);
}

export interface FieldError {
  /** Where the bad value was: body, query or path, then the field path. */
  field: string;
  message: string;
}
