/** zod validation of the parts of a request, answering 422 with per-field messages. */
import type * as z from 'zod';
import { unprocessable, unsupportedMediaType, type FieldError } from './errors';

export type RequestPart = 'path' | 'query' | 'body';

function fieldErrors(part: RequestPart, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

export function validatePart<S extends z.ZodType>(part: RequestPart, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = fieldErrors(part, result.error);
  throw unprocessable(`Invalid request: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}

/** application/json or any +json type, parameters (charset) allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.!#$&^-]+\+)?json\s*(?:;.*)?$/i;

const NOT_JSON = 'Unsupported media type: send the request body as JSON (Content-Type: application/json).';

/**
 * A body is read as JSON only when it says it is JSON: a text/plain or
 * form-encoded post (what a cross-site form can send without a preflight) is
 * refused with 415 before anything is parsed or written.
 */
export function requireJsonContentType(contentType: string | undefined, raw: string | undefined): void {
  if (raw === undefined || raw === null || raw === '') return;
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType.trim())) throw unsupportedMediaType(NOT_JSON);
}

/** Parses a JSON body; a malformed one is a 422 like any other invalid body. */
export function parseJsonBody(raw: string | undefined, isBase64Encoded: boolean | undefined): unknown {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  try {
    return JSON.parse(text);
  } catch {
    throw unprocessable('Invalid request: body: malformed JSON', [{ field: 'body', message: 'malformed JSON' }]);
  }
}
