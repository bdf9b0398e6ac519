/**
 * The rows an item purge reads and deletes: the archived item row, the photo
 * rows of its partition, and what still refers to the photos' objects.
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, type RowKey } from '../db/batch';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { itemKeys } from '../inventory/keys';
import { purgeIndexes } from './keys';
import { roomIndexes } from '../rooms/keys';
import { queryAll, queryPartition } from '../db/query';

/** A photo row of the purged item: its key in the table, the object it shows and the job it came from. */
export interface PurgedPhotoRow {
  row: RowKey;
  object_key: string;
  job_id: string;
}

/**
 * Deletes the item row if it is still archived at `archivedAt`. 'gone' when
 * the row is (already) absent, 'kept' when it was unarchived or archived
 * again meanwhile.
 */
export async function deleteArchivedItemRow(itemId: string, archivedAt: string): Promise<'deleted' | 'gone' | 'kept'> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: itemKeys.item(itemId),
        // The archived index entry as the daily purge read it: an unarchive or a new archive changes it.
        ConditionExpression: 'attribute_exists(pk) AND archpk = :archived AND archsk = :entry',
        ExpressionAttributeValues: {
          ':archived': purgeIndexes.archived().pk,
          ':entry': `${archivedAt}#item#${itemId}`,
        },
      }),
    );
    return 'deleted';
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const { Item } = await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: itemKeys.item(itemId),
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    return Item ? 'kept' : 'gone';
  }
}

/** The photo rows left in the item's partition (a redelivered purge finds those it has not deleted yet). */
export async function listItemPhotoRows(itemId: string): Promise<PurgedPhotoRow[]> {
  const rows = await queryPartition<{ id: string; key: string; job_id: string }>(itemKeys.item(itemId).pk, 'PHOTO#', {
    consistent: true,
  });
  return rows.map((r) => ({ row: itemKeys.itemPhoto(itemId, r.id), object_key: r.key, job_id: r.job_id }));
}

export async function deletePhotoRows(rows: RowKey[]): Promise<void> {
  await deleteKeys(rows);
}

/**
 * Which of `objectKeys` something other than the purged item still shows:
 * a photo row of another item of the claim (a photo shared by the items of
 * one group, or moved onto another item), or a staged photo of one of
 * `jobIds` (the job's own source photo, which stays with the job).
 */
export async function objectKeysInUse(
  claimId: string,
  jobIds: string[],
  purgedItemId: string,
  objectKeys: string[],
): Promise<Set<string>> {
  const wanted = new Set(objectKeys);
  const inUse = new Set<string>();
  const note = (rows: { key?: string }[]) => {
    for (const r of rows) if (r.key && wanted.has(r.key)) inUse.add(r.key);
  };
  const photoRows = (pk: string) => queryPartition<{ key?: string }>(pk, 'PHOTO#', { consistent: true });
  for (const jobId of jobIds) note(await photoRows(`JOB#${jobId}`));
  const rooms = await queryAll<{ id: string }>(roomIndexes.claimRooms(claimId), { ProjectionExpression: 'id' });
  const itemIds: string[] = [];
  for (const room of rooms) {
    const items = await queryAll<{ id: string }>(roomIndexes.roomItems(room.id), { ProjectionExpression: 'id' });
    for (const item of items) if (item.id !== purgedItemId) itemIds.push(item.id);
  }
  // One Query per item partition; a bounded number at once.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(16, itemIds.length) }, async () => {
      while (next < itemIds.length && inUse.size < wanted.size) {
        const id = itemIds[next++];
        note(await photoRows(itemKeys.item(id).pk));
      }
    }),
  );
  return inUse;
}
