/**
 * ImportBatch records (spec: Other records > ImportBatch): one row per batch
 * (IMPORT#<id>), listed under its claim (gsi1 CLAIM#<claim>#IMPORTS) so a
 * claim's purge finds them. A run's outcome is written once, conditional on
 * the batch still running that reader, so a late or repeated write cannot
 * undo a retry that started meanwhile.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { importIndexes, importKeys } from './keys';
import { setClauses } from '../db/update';
import type { ImportBatchStatus } from './rules';
import type { ImportBatch } from './batch-record-rules';

/** The batch's full row (keys and its listing under the claim), for a Put. */
export const importBatchRow = (batch: ImportBatch) => {
  const index = importIndexes.claimImports(batch.claim_id);
  return {
    ...importKeys.importBatch(batch.id),
    entity: 'ImportBatch',
    gsi1pk: index.pk,
    gsi1sk: `${batch.created_at}#${batch.id}`,
    ...batch,
  };
};

export async function putNewImportBatch(batch: ImportBatch): Promise<ImportBatch> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: importBatchRow(batch),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return batch;
}

export async function getImportBatch(id: string, consistent = true): Promise<ImportBatch | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: importKeys.importBatch(id), ConsistentRead: consistent }),
  );
  return Item ? (withoutKeys(Item) as unknown as ImportBatch) : null;
}

/**
 * Sets fields of a batch while it is in `expect.status` with `expect.readJobId`
 * reading it; returns the batch after, or null when it has moved on.
 */
export async function updateImportBatch(
  id: string,
  expect: { status: ImportBatchStatus; readJobId: string },
  set: Partial<Omit<ImportBatch, 'id' | 'team_id' | 'claim_id'>>,
  now = new Date(),
): Promise<ImportBatch | null> {
  const clauses = setClauses({ ...set, updated_at: now.toISOString() });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKeys.importBatch(id),
        UpdateExpression: `SET ${clauses.expression}`,
        ConditionExpression: 'attribute_exists(pk) AND #batch_status = :expect_status AND read_job_id = :expect_reader',
        ExpressionAttributeNames: { ...clauses.names, '#batch_status': 'status' },
        ExpressionAttributeValues: {
          ...clauses.values,
          ':expect_status': expect.status,
          ':expect_reader': expect.readJobId,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? (withoutKeys(Attributes) as unknown as ImportBatch) : null;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/**
 * Counts a capture download unit's outcome into the batch as it goes, while
 * the batch runs that runner (the run's last stage then sets the exact totals).
 */
export async function addBatchProgress(id: string, readJobId: string, imported: number, failed: number) {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKeys.importBatch(id),
        UpdateExpression: 'ADD imported :imported, failed :failed',
        ConditionExpression: '#batch_status = :importing AND read_job_id = :reader',
        ExpressionAttributeNames: { '#batch_status': 'status' },
        ExpressionAttributeValues: {
          ':imported': imported,
          ':failed': failed,
          ':importing': 'importing',
          ':reader': readJobId,
        },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}
