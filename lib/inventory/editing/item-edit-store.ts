/**
 * Writes to several items that must land together (the undo of a bulk patch
 * or of an auto-approval): each item changes only if it is still at the
 * revision the caller read.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionRace } from '../../db/client';
import { ROWS_PER_TRANSACTION } from '../../db/batch';
import { itemRevisionUpdate, type ItemFields } from '../item-store';

export interface ItemRevisionWrite {
  id: string;
  expectedRev: number;
  fields: ItemFields;
}

/**
 * Writes every item's fields, each only while the item is at its expected
 * revision. Up to 100 items this is one transaction: all or nothing. A larger
 * set goes in transactions of 100 in order, so a race lost in a later one
 * leaves the earlier ones written. False when a revision had moved (or a
 * concurrent transaction held an item).
 */
export async function updateItemsAtRevisions(writes: ItemRevisionWrite[], now = new Date()): Promise<boolean> {
  for (let start = 0; start < writes.length; start += ROWS_PER_TRANSACTION) {
    const chunk = writes.slice(start, start + ROWS_PER_TRANSACTION);
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: chunk.map((w) => itemRevisionUpdate(w.id, w.expectedRev, w.fields, now)),
        }),
      );
    } catch (err) {
      if (isConditionRace(err)) return false;
      throw err;
    }
  }
  return true;
}
