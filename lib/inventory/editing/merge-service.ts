/**
 * Merging items (spec: Inventory, POST /api/inventory/items/merge) and the
 * undo of add, delete and merge. The kept item gets the others' photo rows
 * before the others are deleted, and one activity entry records everything
 * an undo needs to bring every deleted item back.
 */
import type * as z from 'zod';
import { recordActivity, type Restorer } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../errors';
import { ITEM_NOT_FOUND } from '../access-service';
import { loadItemForEdit, loadItemsForEdit } from '../access-service';
import { addItemRestorers } from './add-service';
import { deleteItemRestorers, restoreRemovedItem } from './delete-service';
import { ITEM_CHANGED_SINCE } from '../freeze-rules';
import { getItem, listItemPhotos } from '../item-store';
import type { ItemPhoto } from '../item-record-rules';
import { addItemPhotoRows, deleteItemRows, removeItemPhotoRows } from './item-snapshot-store';
import { itemTarget, mergePlan, mergeSelectionProblem, removedItemOf, type RemovedItem } from './lifecycle-rules';
import type { itemMergeBody } from './lifecycle-schemas';
import { itemView } from '../view';

const MERGE_MOVED_ON = 'One of these items changed while they were being merged; try again.';

async function itemWithPhotos(itemId: string) {
  const item = await getItem(itemId);
  if (!item) throw new NotFoundError(ITEM_NOT_FOUND);
  return itemView(item, await listItemPhotos(item.id, { consistent: true }));
}

/**
 * POST /api/inventory/items/merge: the others' photos appended to the kept
 * item (the target, else the lowest number), the others deleted. 400 for
 * fewer than two items or two claims, 404 for another team's item, 409 when
 * one is frozen; nothing is written then.
 */
export async function mergeItems(identity: Identity, body: z.output<typeof itemMergeBody>) {
  const problem = mergeSelectionProblem(body.item_ids, body.target_item_id);
  if (problem) throw new InvalidRequestError(problem);
  const { items, claim } = await loadItemsForEdit(identity, body.item_ids);
  const photosOf = new Map<string, ItemPhoto[]>(
    await Promise.all(items.map(async (i) => [i.id, await listItemPhotos(i.id, { consistent: true })] as const)),
  );
  const plan = mergePlan(items, photosOf, body.target_item_id);
  const rev = plan.winner.rev ?? 0;
  // Copies first: until the others are deleted, a photo is on two items rather than on none.
  if (!(await addItemPhotoRows(plan.winner, rev, plan.moved, plan.winnerFields)))
    throw new ConflictError(MERGE_MOVED_ON);
  const losers: RemovedItem[] = plan.losers.map((item) => ({ item, photos: photosOf.get(item.id) ?? [] }));
  await recordActivity(identity.actor, {
    team_id: claim.team_id,
    action_type: 'merge_items',
    action_label: `Merged ${items.length} items`,
    target: itemTarget(plan.winner),
    entity_type: 'item',
    entity_id: plan.winner.id,
    snapshot: {
      before: { photo_path: plan.winner.photo_path, source_label: plan.winner.source_label ?? null },
      rev: rev + 1,
      number: plan.winner.item_number,
      losers,
      moved_photo_ids: plan.moved.map((p) => p.id),
    },
    restorable: true,
  });
  for (const loser of losers) await deleteItemRows(loser.item.id, loser.photos);
  return itemWithPhotos(plan.winner.id);
}

/**
 * Undo of a merge: every deleted item back (same id, number, photos), then
 * the moved photo rows taken off the kept item and its fields restored, only
 * while the kept item is as the merge left it (409 otherwise).
 */
async function undoMerge(entry: Parameters<Restorer>[0], identity: Identity): Promise<void> {
  const snapshot = entry.snapshot ?? {};
  const losers = (Array.isArray(snapshot.losers) ? snapshot.losers : []).map(removedItemOf);
  if (losers.some((l) => l === null)) throw new InvalidRequestError('This action cannot be undone.');
  const rev = Number(snapshot.rev);
  const { item: winner } = await loadItemForEdit(identity, entry.entity_id);
  if ((winner.rev ?? 0) !== rev) throw new ConflictError(ITEM_CHANGED_SINCE);
  const restored: RemovedItem[] = [];
  for (const loser of losers as RemovedItem[]) {
    if (await getItem(loser.item.id)) continue;
    await restoreRemovedItem(loser);
    restored.push(loser);
  }
  // Putting an item back may move the kept item up a number, which bumps its revision once per step.
  const now = await getItem(winner.id);
  const expected = rev + ((now?.item_number ?? winner.item_number) - winner.item_number);
  const before = (snapshot.before ?? {}) as { photo_path?: string | null; source_label?: string | null };
  const movedIds = Array.isArray(snapshot.moved_photo_ids) ? (snapshot.moved_photo_ids as string[]) : [];
  // An entry written before items kept their printed labels leaves the label as it is.
  const fields = {
    photo_path: before.photo_path ?? null,
    ...('source_label' in before ? { source_label: before.source_label ?? null } : {}),
  };
  if (!(await removeItemPhotoRows(winner, expected, movedIds, fields))) {
    for (const loser of restored) await deleteItemRows(loser.item.id, loser.photos);
    throw new ConflictError(ITEM_CHANGED_SINCE);
  }
}

/** Undo of manual add, delete and merge, for the restore table. */
export const inventoryLifecycleRestorers: Record<string, Restorer> = {
  ...addItemRestorers,
  ...deleteItemRestorers,
  merge_items: undoMerge,
};
