/**
 * Manual add, delete and merge of items (spec: Inventory). Pure: the item a
 * person adds, which item a merge keeps and where the others' photos go, and
 * what an undo puts back. No I/O; ids and the clock come in as arguments.
 */
import { photoUrl } from '../../photos/view';
import { buildItem, joinedSourceLabels, type NewItemFields, type NewItemPlace } from '../item-rules';
import type { InventoryItem, ItemPhoto } from '../item-record-rules';

export const MERGE_TOO_FEW = 'Choose at least two items to merge.';
export const MERGE_TARGET_OUTSIDE = 'The target item must be one of the items being merged.';

/** How activity names an item: 'Item #12 Sofa'. */
export const itemTarget = (item: Pick<InventoryItem, 'item_number' | 'name'>) =>
  `Item #${item.item_number} ${item.name}`;

/** What a person types for a new item (the edit fields); the position is not part of the item. */
export interface ManualItemInput extends NewItemFields {
  room?: string | null;
}

/**
 * A manual item: entered by a person, so fully confident and already
 * reviewed, made by no processing pass (created_pass 0) and without photos.
 * Its room defaults to the job's room name.
 */
export function manualItem(input: ManualItemInput, at: NewItemPlace): InventoryItem {
  return buildItem(input, at, {
    confidence: 1,
    evidence: null,
    reviewed: true,
    created_pass: 0,
    source_group_index: null,
    photo_path: null,
    room: input.room,
  });
}

/** A problem with the ids a merge names (before anything is loaded), or null. */
export function mergeSelectionProblem(itemIds: string[], targetId: string | undefined): string | null {
  const unique = new Set(itemIds);
  if (unique.size < 2) return MERGE_TOO_FEW;
  if (targetId !== undefined && !unique.has(targetId)) return MERGE_TARGET_OUTSIDE;
  return null;
}

export interface MergePlan {
  winner: InventoryItem;
  /** The other items, by item number: deleted once their photos are on the winner. */
  losers: InventoryItem[];
  /** The losers' photos as rows of the winner (same ids), after the winner's own, in order. */
  moved: ItemPhoto[];
  /**
   * Fields written to the winner. Quantities are not added up: merged items
   * are usually one object found twice, so the winner's quantity stands. The
   * labels a contents list printed for any of them are all kept.
   */
  winnerFields: { photo_path: string | null; source_label: string | null };
}

/**
 * Which item a merge keeps (the target, or else the lowest item number) and
 * where the others' photos go: appended to the winner's in item-number then
 * photo order; the winner's primary stays, and when it had no photo the
 * first moved one becomes primary and its path the item's photo_path.
 */
export function mergePlan(
  items: InventoryItem[],
  photosOf: Map<string, ItemPhoto[]>,
  targetId: string | undefined,
): MergePlan {
  const byNumber = [...items].sort((a, b) => a.item_number - b.item_number);
  const winner = byNumber.find((i) => i.id === targetId) ?? byNumber[0];
  const losers = byNumber.filter((i) => i.id !== winner.id);
  const own = photosOf.get(winner.id) ?? [];
  const hasPrimary = own.some((p) => p.is_primary);
  let ordering = own.reduce((m, p) => Math.max(m, p.ordering), -1);
  const moved: ItemPhoto[] = [];
  for (const loser of losers) {
    const photos = [...(photosOf.get(loser.id) ?? [])].sort((a, b) => a.ordering - b.ordering);
    for (const photo of photos) {
      ordering += 1;
      moved.push({ ...photo, item_id: winner.id, ordering, is_primary: !hasPrimary && moved.length === 0 });
    }
  }
  const newPrimary = moved.find((p) => p.is_primary);
  return {
    winner,
    losers,
    moved,
    winnerFields: {
      photo_path: newPrimary ? photoUrl(newPrimary.job_id, newPrimary.filename) : winner.photo_path,
      source_label: joinedSourceLabels([winner, ...losers].map((i) => i.source_label)),
    },
  };
}

/** What undo of a delete or merge needs of a removed item: the row as it was and its photo rows. */
export interface RemovedItem {
  item: InventoryItem;
  photos: ItemPhoto[];
}

/** The snapshot of a removed item read back from an activity entry (tolerates an entry written without photos). */
export function removedItemOf(value: unknown): RemovedItem | null {
  const v = value as Partial<RemovedItem> | null | undefined;
  if (!v?.item?.id || typeof v.item.item_number !== 'number') return null;
  return { item: v.item, photos: Array.isArray(v.photos) ? v.photos : [] };
}

/** The item as an undo writes it back: its revision moves on, so an older undo of it cannot apply. */
export const restoredItem = (item: InventoryItem, itemNumber: number, now: Date): InventoryItem => ({
  ...item,
  item_number: itemNumber,
  rev: (item.rev ?? 0) + 1,
  updated_at: now.toISOString(),
});
