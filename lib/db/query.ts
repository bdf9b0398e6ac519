/** Reading whole index partitions (children of one parent), page by page. */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { withoutKeys } from './keys';

export async function queryAll<T>(
  index: { index: string; pk: string },
  options: Partial<QueryCommandInput> = {},
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of indexRows(index, options)) out.push(withoutKeys(item) as T);
  return out;
}

/**
 * The rows of one index partition as stored (keys included), read a page at a
 * time, so a caller can stop early or act on each row before the next page.
 */
export async function* indexRows(
  index: { index: string; pk: string },
  options: Partial<QueryCommandInput> = {},
): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand(indexQuery(index, options, ExclusiveStartKey)));
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/**
 * How many rows of one index partition pass the options' FilterExpression
 * (all when none): DynamoDB counts (Select COUNT), page by page, and no row
 * comes back.
 */
export async function countIndexRows(
  index: { index: string; pk: string },
  options: Partial<QueryCommandInput> = {},
): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ ...indexQuery(index, options, ExclusiveStartKey), Select: 'COUNT' }),
    );
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

/** A query of one index partition: the partition's key condition (or the options' own), the options' names and values added. */
function indexQuery(
  index: { index: string; pk: string },
  options: Partial<QueryCommandInput>,
  ExclusiveStartKey: Record<string, unknown> | undefined,
): QueryCommandInput {
  const pkName = { archived: 'archpk', active: 'activepk' }[index.index] ?? `${index.index}pk`;
  return {
    TableName: tableName(),
    IndexName: index.index,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': pkName, ...(options.ExpressionAttributeNames ?? {}) },
    ExpressionAttributeValues: { ':pk': index.pk, ...(options.ExpressionAttributeValues ?? {}) },
    ExclusiveStartKey,
    ...withoutExpressions(options),
  };
}

function withoutExpressions(options: Partial<QueryCommandInput>) {
  const { ExpressionAttributeNames, ExpressionAttributeValues, ...rest } = options;
  void ExpressionAttributeNames;
  void ExpressionAttributeValues;
  return rest;
}

/**
 * The rows of one table partition as stored (keys included), in sort-key
 * order, read a page at a time: those whose sort key starts with `skPrefix`
 * (all when empty), only the `projection` attributes when given. A caller
 * that stops early reads no further pages; `pageSize` rows a page (DynamoDB's
 * Limit) keeps a page small when only the first rows are wanted.
 */
export async function* partitionRows(
  pk: string,
  options: {
    skPrefix?: string;
    consistent?: boolean;
    projection?: string;
    /** Placeholders the projection uses for reserved words (`#state` → `state`). */
    names?: Record<string, string>;
    pageSize?: number;
  } = {},
): AsyncGenerator<Record<string, unknown>> {
  const { skPrefix = '', consistent = false, projection, names, pageSize } = options;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(skPrefix ? { ':prefix': skPrefix } : {}) },
        ConsistentRead: consistent,
        ...(projection ? { ProjectionExpression: projection } : {}),
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ...(pageSize ? { Limit: pageSize } : {}),
        ExclusiveStartKey,
      }),
    );
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Every row of one partition whose sort key starts with `skPrefix` (all rows when empty), in sort-key order, keys stripped. */
export async function queryPartition<T>(
  pk: string,
  skPrefix = '',
  options: { consistent?: boolean } = {},
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of partitionRows(pk, { skPrefix, consistent: options.consistent }))
    out.push(withoutKeys(item) as T);
  return out;
}
