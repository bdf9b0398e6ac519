/**
 * The one write of every item photo operation: a TransactWrite with the item
 * row update of each item touched (conditioned on the revision the operation
 * read, which it bumps, with the new photo_path) and the photo rows put or
 * deleted. Two operations on the same item therefore serialize: the second
 * one's revision check fails and it runs again on what the first one left.
 * An attached upload also writes its StagedPhoto row (the job's record of the
 * file, which serves it), only if that photo number is still free.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../db/client';
import { itemKeys } from '../keys';
import { ROWS_PER_TRANSACTION } from '../../db/batch';
import { stagedPhotoItem } from '../../photos/staged-photo-store';
import type { StagedPhoto } from '../../photos/staged-photo-record-rules';
import { itemRevisionUpdate, photoRowOf } from '../item-store';
import type { ItemPhoto } from '../item-record-rules';

export interface ItemPhotoChange {
  itemId: string;
  /** The revision the change was computed from. */
  expectedRev: number;
  photoPath: string | null;
  put: ItemPhoto[];
  remove: Pick<ItemPhoto, 'item_id' | 'id'>[];
}

/** A photo change that would not fit one transaction (an item with close to 100 photos). */
export class PhotoChangeTooLarge extends Error {}

/**
 * Applies the changes in one transaction. Throws the SDK's
 * TransactionCanceledException when a revision moved (or the staged photo
 * number is taken): the caller re-reads and tries again.
 */
export async function writeItemPhotoChanges(
  changes: ItemPhotoChange[],
  options: { staged?: StagedPhoto; now?: Date } = {},
): Promise<void> {
  const now = options.now ?? new Date();
  const items = [
    ...changes.map((c) => itemRevisionUpdate(c.itemId, c.expectedRev, { photo_path: c.photoPath }, now)),
    ...changes.flatMap((c) => [
      ...c.remove.map((p) => ({ Delete: { TableName: tableName(), Key: itemKeys.itemPhoto(p.item_id, p.id) } })),
      ...c.put.map((p) => ({ Put: { TableName: tableName(), Item: photoRowOf(p) } })),
    ]),
    ...(options.staged
      ? [
          {
            Put: {
              TableName: tableName(),
              Item: stagedPhotoItem(options.staged),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ]
      : []),
  ];
  if (items.length > ROWS_PER_TRANSACTION)
    throw new PhotoChangeTooLarge(`an item photo change of ${items.length} rows exceeds one transaction`);
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}
