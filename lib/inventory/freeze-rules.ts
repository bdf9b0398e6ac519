/**
 * The item freeze (spec: Estimation platform send > Item freeze rules). Once
 * an item has gone to the estimation platform, the remote copy is the one
 * being priced: editing, deleting, archiving, merging it or changing its
 * photos here would silently diverge from it, so those answer 409. Approving,
 * flagging and adding new items stay allowed. Pure: no I/O.
 */
import { itemsLocked } from '../claims/rules';
import type { InventoryItem } from './item-record-rules';

export const ITEM_FROZEN = 'This item has been sent to the estimation platform and can no longer be changed here.';

export const ITEM_CHANGED_SINCE = 'This item has changed since; undoing would overwrite newer work.';

/**
 * Frozen only when both hold: the claim's items are locked (sent, not a
 * training claim, not unlocked by an admin) and this item was sent.
 */
export function itemFrozen(
  claim: Parameters<typeof itemsLocked>[0],
  item: Pick<InventoryItem, 'estimation_sent_at'>,
): boolean {
  return itemsLocked(claim) && Boolean(item.estimation_sent_at);
}
