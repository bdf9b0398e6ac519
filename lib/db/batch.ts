/** Bulk reads and deletes by key, with DynamoDB's unprocessed-item retries. */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';

export type RowKey = { pk: string; sk: string };

type WriteRequest = { DeleteRequest: { Key: RowKey } } | { PutRequest: { Item: Record<string, unknown> } };

/** BatchWrite in chunks of 25, retrying unprocessed items with backoff. */
async function batchWrite(all: WriteRequest[]): Promise<void> {
  for (let i = 0; i < all.length; i += 25) {
    let requests = all.slice(i, i + 25);
    for (let attempt = 0; requests.length > 0; attempt++) {
      const { UnprocessedItems } = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      if (requests.length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    }
  }
}

export async function deleteKeys(rowKeys: RowKey[]): Promise<void> {
  await batchWrite(rowKeys.map((Key) => ({ DeleteRequest: { Key } })));
}

/** Puts whole rows (unconditional: for rows whose ids make a repeated write the same write). */
export async function putRows(rows: Record<string, unknown>[]): Promise<void> {
  await batchWrite(rows.map((Item) => ({ PutRequest: { Item } })));
}

/** Every row under one partition key. */
export async function partitionKeys(pk: string): Promise<RowKey[]> {
  const out: RowKey[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk', ExclusiveStartKey }),
    );
    for (const item of page.Items ?? []) out.push({ pk: String(item.pk), sk: String(item.sk) });
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}
