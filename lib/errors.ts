/**
 * Domain errors: what a rule or use case throws when it refuses something.
 * Each kind has a stable code; the HTTP edge (lib/http/errors.ts) maps the
 * code to the spec's status in one table, so domain and engine code never
 * speak HTTP. The message is safe to show to the client.
 *
 * @example
 * ```ts
 * import { NotFoundError, ConflictError } from '../errors';
 *
 * if (!claim) throw new NotFoundError('Claim not found');
 * if (claim.status === 'submitted') throw new ConflictError('Submitted items cannot be edited');
 * ```
 */

export type DomainErrorCode =
  | 'invalid_request'
  | 'not_signed_in'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported_type'
  | 'unprocessable'
  | 'insufficient_credits'
  | 'remote_failure'
  | 'unavailable'
  | 'rate_limited';

/** A per-field problem (422): where the bad value was (`body.name`, `query.cursor`) and why. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** A body that replaces the default `{detail}` answer (the spec's 402 body, per-field 422s). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request is malformed or asks for something the rules do not allow (400). */
export class InvalidRequestError extends DomainError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

/** No valid credential (401). */
export class NotSignedInError extends DomainError {
  constructor(message = 'Invalid or expired token') {
    super('not_signed_in', message);
  }
}

/** Signed in, but not allowed (403). */
export class ForbiddenError extends DomainError {
  constructor(message = 'This page is restricted.') {
    super('forbidden', message);
  }
}

/** Missing, or owned by another team (404). */
export class NotFoundError extends DomainError {
  constructor(message = 'Not found') {
    super('not_found', message);
  }
}

/** The resource is not in a state that allows this (409). */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** Over a size limit (413). */
export class TooLargeError extends DomainError {
  constructor(message: string) {
    super('too_large', message);
  }
}

/** A file of a kind this route does not take (415), judged by its declared type or its bytes. */
export class UnsupportedTypeError extends DomainError {
  constructor(message: string) {
    super('unsupported_type', message);
  }
}

/** Well-formed but invalid values (422), optionally per field. */
export class UnprocessableError extends DomainError {
  constructor(
    message: string,
    readonly problems?: FieldProblem[],
  ) {
    super('unprocessable', message, problems ? { detail: message, errors: problems } : undefined);
  }
}

/** The team cannot pay for this (402), with the spec's body. */
export class InsufficientCreditsError extends DomainError {
  constructor(body: Record<string, unknown>) {
    super('insufficient_credits', 'Insufficient credits', body);
  }
}

/** A remote system (claims platform, estimation platform) rejected the call or could not be reached (502). */
export class RemoteFailureError extends DomainError {
  constructor(message: string) {
    super('remote_failure', message);
  }
}

/** Not available in this deployment or right now (503); `retryAfterSeconds`, when known, says when to ask again. */
export class UnavailableError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super('unavailable', message);
  }
}

/**
 * Too many calls in a short time (429). `retryAfterSeconds` says when the
 * caller's budget is back, so a well-behaved client waits instead of hammering.
 */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
  }
}
