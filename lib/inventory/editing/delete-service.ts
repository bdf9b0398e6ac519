/**
 * Hard delete of an item with a restore snapshot, and putting a removed item
 * back (spec: Inventory). The photo objects stay in the bucket, so an undo
 * brings the item back with the same id, number and photos.
 */
import { recordActivity, type Restorer } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { ConflictError, InvalidRequestError } from '../../errors';
import { loadClaimForTeam } from '../../claims/access-service';
import { loadItemForEdit } from '../access-service';
import { getItem, itemRowOf, listItemPhotos, photoRowOf } from '../item-store';
import { placeItemRows } from '../numbering/item-placement-store';
import { deleteItemRows } from './item-snapshot-store';
import { itemTarget, removedItemOf, restoredItem, type RemovedItem } from './lifecycle-rules';

const ITEM_MOVED_ON = 'This item changed while it was being deleted; try again.';
const ITEM_BACK_ALREADY = 'This item is there already.';

/** DELETE /api/inventory/item/{item_id}: the item row and its photo rows; 409 when it is frozen. */
export async function deleteItem(identity: Identity, itemId: string) {
  const { item } = await loadItemForEdit(identity, itemId);
  const photos = await listItemPhotos(item.id, { consistent: true });
  if (!(await deleteItemRows(item.id, photos, item.rev ?? 0))) throw new ConflictError(ITEM_MOVED_ON);
  await recordActivity(identity.actor, {
    team_id: item.team_id,
    action_type: 'delete_item',
    action_label: 'Deleted item',
    target: itemTarget(item),
    entity_type: 'item',
    entity_id: item.id,
    snapshot: { before: item, photos, rev: item.rev ?? 0 },
    restorable: true,
  });
  return { deleted: true as const, id: item.id };
}

/**
 * Writes a removed item back with its id, photo rows and number. When that
 * number was taken since (an insert-between moved another item onto it), the
 * item goes back in between: the items from that number on move up by one.
 */
export async function restoreRemovedItem(removed: RemovedItem, now = new Date()): Promise<void> {
  if (await getItem(removed.item.id)) throw new ConflictError(ITEM_BACK_ALREADY);
  await placeItemRows(removed.item.claim_id, { kind: 'at', number: removed.item.item_number }, (itemNumber) => [
    itemRowOf(restoredItem(removed.item, itemNumber, now)),
    ...removed.photos.map(photoRowOf),
  ]);
}

export const deleteItemRestorers: Record<string, Restorer> = {
  delete_item: async (entry, identity) => {
    const removed = removedItemOf({ item: entry.snapshot?.before, photos: entry.snapshot?.photos });
    if (!removed || removed.item.id !== entry.entity_id) throw new InvalidRequestError('This action cannot be undone.');
    await loadClaimForTeam(identity, removed.item.claim_id);
    await restoreRemovedItem(removed);
  },
};
