/**
 * Errors a request can end in. Every rule that rejects a request throws one of
 * these; the error middleware turns it into `{"detail": "..."}` (or the body
 * given, e.g. the spec's 402 body) with the status code.
 */
import { InvalidCursorError } from '../db/pagination';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** A body that replaces the default `{detail}` (the 402 body, per-field 422s). */
    readonly body?: Record<string, unknown>,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail = 'Invalid or expired token') => new HttpError(401, detail);
export const forbidden = (detail = 'This page is restricted.') => new HttpError(403, detail);
export const notFound = (detail = 'Not found') => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const payloadTooLarge = (detail: string) => new HttpError(413, detail);
export const unsupportedMediaType = (detail: string) => new HttpError(415, detail);
export const unprocessable = (detail: string, errors?: FieldError[]) =>
  new HttpError(422, detail, errors ? { detail, errors } : undefined);
export const badGateway = (detail: string) => new HttpError(502, detail);
export const serviceUnavailable = (detail: string) => new HttpError(503, detail);

/**
 * The HTTP answer for an error: an HttpError as it is, and the errors of the
 * lower layers that mean the client sent something wrong (a forged page
 * cursor) as the 4xx they deserve; null for anything else (a 500).
 */
export function httpErrorOf(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof InvalidCursorError) {
    return unprocessable(`Invalid request: query.cursor: ${err.message}`, [
      { field: 'query.cursor', message: err.message },
    ]);
  }
  return null;
}

export interface FieldError {
  /** Where the bad value was: body, query or path, then the field path. */
  field: string;
  message: string;
}
