/** Building DynamoDB update expressions from a map of fields, and transaction items shared by stores. */
import { tableName } from './client';

export interface SetClauses {
  /** `#name = :name, …`, ready to follow `SET `. */
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * SET clauses for every field with a defined value, named after the fields
 * (`#name = :name`), so reserved words (name, status, timezone…) are safe.
 * Keys may be nested paths: 'stage_timings.extract' becomes
 * `#stage_timings.#extract = :stage_timings_extract`.
 */
export function setClauses(fields: Record<string, unknown>): SetClauses {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const path = key.split('.').map((part) => {
      const placeholder = `#${part.replace(/\W/g, '_')}`;
      names[placeholder] = part;
      return placeholder;
    });
    const valueName = `:${key.replace(/\W/g, '_')}`;
    values[valueName] = value;
    parts.push(`${path.join('.')} = ${valueName}`);
  }
  return { expression: parts.join(', '), names, values };
}

/**
 * A transaction item claiming a uniqueness row (an external id, an email, a
 * team token) for `targetId`: the transaction fails if another record holds it.
 */
export function uniqueRowPut(key: { pk: string; sk: string }, targetId: string) {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...key, entity: 'Unique', target_id: targetId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
