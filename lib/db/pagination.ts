/**
 * Opaque cursors for DynamoDB pages: the LastEvaluatedKey, base64url JSON.
 *
 * A cursor comes back from the client, so it is checked before DynamoDB sees
 * it: exactly the key attributes of the table or index queried, each a
 * non-empty string within DynamoDB's key size, and the partition the query
 * reads. Anything else (a forged key, another team's cursor) is an
 * InvalidCursorError, which the HTTP edge answers 422; it never reaches the
 * query, where it would fail as a server error or read another partition.
 */
import { UnprocessableError } from '../errors';

/** The client sent a cursor this service did not issue for this query. */
export class InvalidCursorError extends UnprocessableError {
  constructor(message = 'not a cursor this service issued for this list') {
    super(`Invalid request: query.cursor: ${message}`, [{ field: 'query.cursor', message }]);
  }
}

/** Key attributes of the table and of each index (see lib/db/keys.ts). */
const TABLE_KEYS = ['pk', 'sk'] as const;
const INDEX_KEYS: Record<string, readonly [string, string]> = {
  gsi1: ['gsi1pk', 'gsi1sk'],
  gsi2: ['gsi2pk', 'gsi2sk'],
  archived: ['archpk', 'archsk'],
  active: ['activepk', 'activesk'],
};

/** DynamoDB's limit for a sort key value; partition values may be longer but no key here is. */
const MAX_KEY_BYTES = 1024;

/** The query a cursor must belong to: the index read (none: the table) and its partition value. */
export interface CursorScope {
  index?: string;
  pk: string;
}

function keyAttributes(index: string | undefined): { names: string[]; partition: string } {
  if (!index) return { names: [...TABLE_KEYS], partition: 'pk' };
  const own = INDEX_KEYS[index];
  if (!own) throw new Error(`unknown index ${index}`);
  return { names: [...TABLE_KEYS, ...own], partition: own[0] };
}

export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

/** The ExclusiveStartKey for a query over `scope`; undefined for the first page. */
export function decodeCursor(cursor: string | undefined, scope: CursorScope): Record<string, string> | undefined {
  if (!cursor) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InvalidCursorError();
  const key = value as Record<string, unknown>;
  const { names, partition } = keyAttributes(scope.index);
  const given = Object.keys(key);
  if (given.length !== names.length || !names.every((name) => given.includes(name))) throw new InvalidCursorError();
  for (const name of names) {
    const part = key[name];
    if (typeof part !== 'string' || part === '' || Buffer.byteLength(part) > MAX_KEY_BYTES)
      throw new InvalidCursorError();
  }
  if (key[partition] !== scope.pk) throw new InvalidCursorError('a cursor from another list');
  return key as Record<string, string>;
}
