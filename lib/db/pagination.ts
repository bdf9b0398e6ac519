/** Opaque cursors for DynamoDB pages: the LastEvaluatedKey, base64url JSON. */
import { unprocessable } from '../http/errors';

export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

export function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw unprocessable('Invalid request: query.cursor: not a cursor this service issued', [{ field: 'query.cursor', message: 'not a cursor this service issued' }]);
}
