/**
 * Loading items for the routes that act on them (spec: Team scoping; Item
 * freeze rules; the spec's load_item_for_edit). One place decides whether an
 * item may be changed: another team's item is 404, a frozen item is 409.
 */
import type { Identity } from '../auth/identity-rules';
import type { Claim } from '../claims/claim-record-rules';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import { CLAIM_NOT_FOUND, loadClaimForTeam } from '../claims/access-service';
import { ownRecordOr404 } from '../tenancy/team-scope-rules';
import { ITEM_FROZEN, itemFrozen } from './freeze-rules';
import { getItem } from './item-store';
import type { InventoryItem } from './item-record-rules';

export const ITEM_NOT_FOUND = 'Item not found';

/** load_item_for_team: 404 for a missing item and for another team's item (items carry their team id). */
export async function loadItemForTeam(identity: Identity, itemId: string): Promise<InventoryItem> {
  return ownRecordOr404(identity, await getItem(itemId), ITEM_NOT_FOUND);
}

/** The item with its claim, for approve and flag (allowed on frozen items). */
export async function loadItemForReview(
  identity: Identity,
  itemId: string,
): Promise<{ item: InventoryItem; claim: Claim }> {
  const item = await loadItemForTeam(identity, itemId);
  const claim = await loadClaimForTeam(identity, item.claim_id).catch((err) => {
    // The item outlived its claim (a purge in progress): the item is as good as gone.
    if (err instanceof NotFoundError && err.message === CLAIM_NOT_FOUND) throw new NotFoundError(ITEM_NOT_FOUND);
    throw err;
  });
  return { item, claim };
}

/** load_item_for_edit: the item with its claim, 404 for another team's item, 409 when it is frozen. */
export async function loadItemForEdit(
  identity: Identity,
  itemId: string,
): Promise<{ item: InventoryItem; claim: Claim }> {
  const loaded = await loadItemForReview(identity, itemId);
  if (itemFrozen(loaded.claim, loaded.item)) throw new ConflictError(ITEM_FROZEN);
  return loaded;
}

/**
 * Several items of one claim for a change that applies to all of them (bulk,
 * merge): 404 if any is missing or another team's, 400 when they belong to
 * two claims, 409 when any is frozen (the whole batch is refused).
 */
export async function loadItemsForEdit(
  identity: Identity,
  itemIds: string[],
): Promise<{ items: InventoryItem[]; claim: Claim }> {
  const unique = [...new Set(itemIds)];
  const items = await Promise.all(unique.map((id) => loadItemForTeam(identity, id)));
  const claimIds = new Set(items.map((i) => i.claim_id));
  if (claimIds.size !== 1) throw new InvalidRequestError('All items must belong to the same claim.');
  const { claim } = await loadItemForReview(identity, items[0].id);
  const frozen = items.filter((i) => itemFrozen(claim, i));
  if (frozen.length)
    throw new ConflictError(`${ITEM_FROZEN} (item ${frozen.map((i) => `#${i.item_number}`).join(', ')})`);
  return { items, claim };
}
