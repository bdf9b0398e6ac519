/**
 * Removing items and moving photo rows between items, for delete, merge and
 * their undo (spec: Inventory). Each write that changes an item row checks
 * its revision in the same transaction as the photo rows it moves, so a
 * change made meanwhile is never overwritten; photo rows beyond one
 * transaction's room follow it. A merge copies the photo rows onto the kept
 * item before it deletes the others, so a crash part way leaves a photo on
 * two items rather than on none.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, putRows } from '../../db/batch';
import { db, isTransactionCanceled, tableName } from '../../db/client';
import { itemKeys } from '../keys';
import { itemRevisionUpdate, photoRowOf, type ItemFields } from '../item-store';
import type { InventoryItem, ItemPhoto } from '../item-record-rules';

/** Photo rows that fit in a transaction beside its item row. */
const WITH_ITEM = 99;

const revisionCondition = (expectedRev: number | undefined) =>
  expectedRev === undefined
    ? { condition: 'attribute_exists(pk)', values: undefined }
    : expectedRev === 0
      ? {
          condition: 'attribute_exists(pk) AND (attribute_not_exists(rev) OR rev = :expected_rev)',
          values: { ':expected_rev': 0 },
        }
      : { condition: 'attribute_exists(pk) AND rev = :expected_rev', values: { ':expected_rev': expectedRev } };

/** Runs a transaction; false when a condition failed (the item is gone or moved on), nothing written. */
async function transact(items: Record<string, unknown>[]): Promise<boolean> {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (err) {
    if (isTransactionCanceled(err)) return false;
    throw err;
  }
}

/**
 * Deletes an item row and its photo rows (the photo objects stay in the
 * bucket). With `expectedRev`, only while the item is at that revision.
 * False when the item is gone or has moved on; nothing is deleted then.
 */
export async function deleteItemRows(
  itemId: string,
  photos: Pick<ItemPhoto, 'id'>[],
  expectedRev?: number,
): Promise<boolean> {
  const check = revisionCondition(expectedRev);
  const photoKeys = photos.map((p) => itemKeys.itemPhoto(itemId, p.id));
  const done = await transact([
    {
      Delete: {
        TableName: tableName(),
        Key: itemKeys.item(itemId),
        ConditionExpression: check.condition,
        ExpressionAttributeValues: check.values,
      },
    },
    ...photoKeys.slice(0, WITH_ITEM).map((Key) => ({ Delete: { TableName: tableName(), Key } })),
  ]);
  if (done) await deleteKeys(photoKeys.slice(WITH_ITEM));
  return done;
}

/**
 * Gives `item` the photo rows `photos` (rows of other items copied over) and
 * writes `fields`, only while it is at `expectedRev`. Null when it moved on;
 * then no row was copied.
 */
export async function addItemPhotoRows(
  item: Pick<InventoryItem, 'id'>,
  expectedRev: number,
  photos: ItemPhoto[],
  fields: ItemFields,
  now = new Date(),
): Promise<boolean> {
  const head = photos.slice(0, WITH_ITEM);
  const done = await transact([
    itemRevisionUpdate(item.id, expectedRev, fields, now),
    ...head.map((p) => ({ Put: { TableName: tableName(), Item: photoRowOf(p) } })),
  ]);
  // The rest after: the item is known to be ours now, and a copy left by a crash is only a duplicate.
  if (done) await putRows(photos.slice(WITH_ITEM).map(photoRowOf));
  return done;
}

/**
 * Takes the photo rows `photoIds` off `item` and writes `fields`, only while it
 * is at `expectedRev`. False when it moved on; then nothing changed.
 */
export async function removeItemPhotoRows(
  item: Pick<InventoryItem, 'id'>,
  expectedRev: number,
  photoIds: string[],
  fields: ItemFields,
  now = new Date(),
): Promise<boolean> {
  const photoKeys = photoIds.map((id) => itemKeys.itemPhoto(item.id, id));
  const done = await transact([
    itemRevisionUpdate(item.id, expectedRev, fields, now),
    ...photoKeys.slice(0, WITH_ITEM).map((Key) => ({ Delete: { TableName: tableName(), Key } })),
  ]);
  if (done) await deleteKeys(photoKeys.slice(WITH_ITEM));
  return done;
}
