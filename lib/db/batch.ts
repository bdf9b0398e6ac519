/** Bulk reads and deletes by key, with DynamoDB's unprocessed-item retries. */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';

export type RowKey = { pk: string; sk: string };

export async function deleteKeys(rowKeys: RowKey[]): Promise<void> {
  for (let i = 0; i < rowKeys.length; i += 25) {
    let requests = rowKeys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      const { UnprocessedItems } = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      if (requests.length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    }
  }
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
