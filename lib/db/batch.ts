/** Bulk reads and writes by key, with DynamoDB's unprocessed-item retries. */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { withRetry } from '../retry';
import { db, tableName } from './client';
import { partitionRows } from './query';

export type RowKey = { pk: string; sk: string };

type WriteRequest = { DeleteRequest: { Key: RowKey } } | { PutRequest: { Item: Record<string, unknown> } };

/**
 * How often a batch is sent again while DynamoDB leaves items unprocessed
 * (it does so under throttling): 50 ms doubling, at most 1 s apart; after
 * that the write fails rather than spin until the function times out.
 */
export const UNPROCESSED_RETRY = { attempts: 10, backoffMs: 50, maxBackoffMs: 1000 } as const;

/** Some items (or keys) of a batch were left unprocessed; the batch is sent again with only those. */
export class UnprocessedItems extends Error {
  override readonly name = 'UnprocessedItems';
  constructor(readonly count: number) {
    super(`DynamoDB left ${count} item(s) of a batch unprocessed`);
  }
}

/** BatchWrite in chunks of 25, retrying unprocessed items with backoff. */
async function batchWrite(all: WriteRequest[]): Promise<void> {
  for (let i = 0; i < all.length; i += 25) {
    let requests = all.slice(i, i + 25);
    await withRetry(
      async () => {
        const { UnprocessedItems: left } = await db().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
        );
        requests = (left?.[tableName()] ?? []) as typeof requests;
        if (requests.length > 0) throw new UnprocessedItems(requests.length);
      },
      { ...UNPROCESSED_RETRY, retryable: (err) => err instanceof UnprocessedItems },
    );
  }
}

/**
 * Rows by key, 100 keys per BatchGet, asking again for the keys DynamoDB left
 * unprocessed (same policy as writes). Rows that do not exist are absent; the
 * order of the answer is DynamoDB's, not the keys'.
 */
export async function getRows(
  rowKeys: RowKey[],
  options: { consistentRead?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < rowKeys.length; i += 100) {
    let requestKeys = rowKeys.slice(i, i + 100);
    await withRetry(
      async () => {
        const { Responses, UnprocessedKeys } = await db().send(
          new BatchGetCommand({
            RequestItems: { [tableName()]: { Keys: requestKeys, ConsistentRead: options.consistentRead } },
          }),
        );
        rows.push(...(Responses?.[tableName()] ?? []));
        requestKeys = (UnprocessedKeys?.[tableName()]?.Keys ?? []) as RowKey[];
        if (requestKeys.length > 0) throw new UnprocessedItems(requestKeys.length);
      },
      { ...UNPROCESSED_RETRY, retryable: (err) => err instanceof UnprocessedItems },
    );
  }
  return rows;
}

export async function deleteKeys(rowKeys: RowKey[]): Promise<void> {
  await batchWrite(rowKeys.map((Key) => ({ DeleteRequest: { Key } })));
}

/** Puts whole rows (unconditional: for rows whose ids make a repeated write the same write). */
export async function putRows(rows: Record<string, unknown>[]): Promise<void> {
  await batchWrite(rows.map((Item) => ({ PutRequest: { Item } })));
}

/** Rows one transaction takes (DynamoDB's ceiling). */
export const ROWS_PER_TRANSACTION = 100;

/** Every row under one partition key. */
export async function partitionKeys(pk: string): Promise<RowKey[]> {
  const out: RowKey[] = [];
  for await (const item of partitionRows(pk, { projection: 'pk, sk' }))
    out.push({ pk: String(item.pk), sk: String(item.sk) });
  return out;
}
