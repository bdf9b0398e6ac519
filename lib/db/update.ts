/** Building DynamoDB update expressions from a map of fields, and transaction items shared by stores. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from './client';

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

/** One conditional update of a row: fields to set, counters to add, the statuses it must be in, a further condition. */
export interface RowUpdate {
  /** Top-level fields, or nested paths such as 'stage_timings.extract'. */
  set?: Record<string, unknown>;
  /** Atomic increments. */
  add?: Record<string, number>;
  /** The row must be in one of these statuses for the write to happen. */
  expectStatus?: readonly string[];
  /** Extra condition; values go in `values`, name placeholders in `names`. */
  condition?: string;
  values?: Record<string, unknown>;
  names?: Record<string, string>;
}

/**
 * A sparse index of rows under way (`activepk`/`activesk`): a row is on it
 * while its status is one `listed` accepts, sorted by its last heartbeat.
 */
export interface ActiveIndex {
  pk: string;
  id: string;
  listed(status: string): boolean;
}

/**
 * The conditional UpdateItem input of `update` on the row at `key` (usable as
 * one item of a transaction): `updated_at` is stamped, the row must exist,
 * and, with `active`, the row's place on its sparse index follows a status
 * or heartbeat it sets.
 */
export function rowUpdateInput(key: Record<string, unknown>, update: RowUpdate, now: Date, active?: ActiveIndex) {
  const at = now.toISOString();
  const set = setClauses({ ...(update.set ?? {}), updated_at: at });
  // A condition's placeholder named like a field it sets (`:stage` for `stage`) would overwrite that field's value.
  const clash = Object.keys(update.values ?? {}).find((name) => name in set.values);
  if (clash) throw new Error(`update of ${JSON.stringify(key)}: the condition's ${clash} is also a field it sets`);
  const names: Record<string, string> = { ...set.names, ...(update.names ?? {}) };
  const values: Record<string, unknown> = { ...set.values, ...(update.values ?? {}) };
  const sets = [set.expression];
  const removes: string[] = [];
  const adds: string[] = [];
  for (const [k, v] of Object.entries(update.add ?? {})) {
    names[`#${k}`] = k;
    values[`:add_${k}`] = v;
    adds.push(`#${k} :add_${k}`);
  }
  const status = update.set?.status as string | undefined;
  if (active && status) {
    if (active.listed(status)) {
      Object.assign(values, { ':activepk': active.pk, ':activesk': `${at}#${active.id}` });
      sets.push('activepk = :activepk', 'activesk = :activesk');
    } else {
      removes.push('activepk', 'activesk');
    }
  } else if (active && update.set?.heartbeat_at) {
    // A heartbeat moves the row along its index. A sparse index only lists rows that have both activepk and
    // activesk, so outside the listed statuses this sort key alone lists nothing.
    values[':activesk'] = `${update.set.heartbeat_at}#${active.id}`;
    sets.push('activesk = :activesk');
  }
  const conditions = ['attribute_exists(pk)'];
  if (update.expectStatus) {
    const statusValues = update.expectStatus.map((s, n) => {
      values[`:es${n}`] = s;
      return `:es${n}`;
    });
    names['#status'] = 'status';
    conditions.push(`#status IN (${statusValues.join(', ')})`);
  }
  if (update.condition) conditions.push(`(${update.condition})`);
  const expression = [
    `SET ${sets.join(', ')}`,
    adds.length ? `ADD ${adds.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    TableName: tableName(),
    Key: key,
    UpdateExpression: expression,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Sends one conditional update (a `rowUpdateInput`) and answers the row as it
 * left it, keys included, or null when its condition did not hold.
 */
export async function updateRowReturningNew(
  input: ReturnType<typeof rowUpdateInput>,
): Promise<Record<string, unknown> | null> {
  try {
    const { Attributes } = await db().send(new UpdateCommand({ ...input, ReturnValues: 'ALL_NEW' }));
    return Attributes ?? {};
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}
