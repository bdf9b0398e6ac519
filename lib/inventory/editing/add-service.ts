/** Manual add of an item, with insert-between numbering, and its undo (spec: Inventory). */
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { recordActivity, type Restorer } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { ConflictError, InvalidRequestError } from '../../errors';
import { getRoom } from '../../rooms/store';
import { loadJobForTeam } from '../../jobs/access-service';
import { loadItemForEdit } from '../access-service';
import { ITEM_CHANGED_SINCE } from '../freeze-rules';
import { itemRowOf, listItemPhotos } from '../item-store';
import type { InventoryItem } from '../item-record-rules';
import { placeItemRows } from '../numbering/item-placement-store';
import { deleteItemRows } from './item-snapshot-store';
import { itemTarget, manualItem } from './lifecycle-rules';
import type { itemAddBody } from './lifecycle-schemas';
import { MISSING_POSITION, type Placement } from '../numbering/numbering-rules';
import { itemView } from '../view';

/**
 * POST /api/inventory/{job_id}/item: a person's item in the job, at the
 * claim's next number or right after a given one (later items of the claim
 * move up by one). 400 when the claim has no item with that number.
 */
export async function addItem(identity: Identity, jobId: string, body: z.output<typeof itemAddBody>) {
  const job = await loadJobForTeam(identity, jobId);
  const room = await getRoom(job.room_id);
  const { insert_after_item_number: after, ...input } = body;
  const placement: Placement = after === undefined ? { kind: 'end' } : { kind: 'after', number: after };
  const id = randomUUID();
  const now = new Date();
  let item: InventoryItem | undefined;
  const placed = await placeItemRows(job.claim_id, placement, (itemNumber) => {
    item = manualItem(input, { id, job, roomName: room?.name ?? null, itemNumber, now });
    return [itemRowOf(item)];
  });
  if (placed === null || !item) throw new InvalidRequestError(MISSING_POSITION(after ?? 0));
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: 'add_item',
    action_label: 'Added item',
    target: itemTarget(item),
    entity_type: 'item',
    entity_id: item.id,
    snapshot: { before: null, rev: item.rev ?? 0 },
    restorable: true,
  });
  return itemView(item, []);
}

/** Undo of a manual add deletes the item, unless it changed since (409). */
export const addItemRestorers: Record<string, Restorer> = {
  add_item: async (entry, identity) => {
    const { item } = await loadItemForEdit(identity, entry.entity_id);
    const photos = await listItemPhotos(item.id, { consistent: true });
    if (!(await deleteItemRows(item.id, photos, Number(entry.snapshot?.rev ?? 0))))
      throw new ConflictError(ITEM_CHANGED_SINCE);
  },
};
