/**
 * Photo operations on an item (spec: Inventory photo routes; ItemPhoto): delete,
 * set primary or reorder, move to another item of the team, and the writing
 * half of attach and replace (the upload half is item-photo-upload-service.ts).
 *
 * Every operation reads the item (load_item_for_edit: 404 for another team's
 * item, 409 when frozen) and its photo rows, computes the new list with the
 * pure rules (exactly one primary, ordering 0..n-1) and writes it in one
 * transaction conditioned on the item's revision, together with photo_path.
 * Losing that condition to a concurrent operation on the same item means
 * reading again and recomputing, so concurrent calls serialize and the item
 * never shows two primaries or a photo_path that is not its primary.
 *
 * Each operation is recorded with the photo rows and photo_path of every item
 * it touched, before, and the revisions it left; undo puts those rows back
 * only while the items are still at those revisions.
 */
import type { Restorer } from '../../activity/service';
import { recordActivity } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { isConditionRace } from '../../db/client';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../errors';
import type { StagedPhoto } from '../../photos/staged-photo-record-rules';
import { photoUrl } from '../../photos/view';
import { withRetry } from '../../retry';
import { loadItemForEdit } from '../access-service';
import { ITEM_CHANGED_SINCE } from '../freeze-rules';
import {
  moveProblem,
  photoOfItemProblem,
  photoWrites,
  primaryOf,
  withAppended,
  withPosition,
  withPrimary,
  withPrimaryReplaced,
  withRemoved,
  type ItemUploadPurpose,
} from './item-photo-rules';
import type { ItemPhotoUpdate } from './item-photo-schemas';
import { type ItemPhotoChange, PhotoChangeTooLarge, writeItemPhotoChanges } from './item-photo-store';
import { getItem, listItemPhotos } from '../item-store';
import type { InventoryItem, ItemPhoto } from '../item-record-rules';
import { itemView } from '../view';

interface ItemState {
  item: InventoryItem;
  photos: ItemPhoto[];
}

/** What an item looked like before an operation, and the revision the operation left it at. */
interface PhotoSnapshotEntry {
  item_id: string;
  photo_path: string | null;
  photos: ItemPhoto[];
  rev: number;
}

/** An operation's plan: the new photo list per item touched, or the answer when there is nothing to write. */
type Plan =
  | { kind: 'write'; states: ItemState[]; after: ItemPhoto[][]; staged?: StagedPhoto }
  | { kind: 'done'; itemId: string };

const revOf = (item: InventoryItem) => item.rev ?? 0;
const targetOf = (item: InventoryItem) => `Item #${item.item_number} ${item.name}`;
const pathOf = (photos: ItemPhoto[]) => {
  const primary = primaryOf(photos);
  return primary ? photoUrl(primary.job_id, primary.filename) : null;
};

/** Passes of an operation that keeps losing its revision check before it answers 409. */
const OPERATION_ATTEMPTS = 6;

/**
 * The item for a photo change, with its photo rows read after it (so they are
 * at least as new as its revision).
 */
async function loadItemPhotos(identity: Identity, itemId: string): Promise<ItemState> {
  const { item } = await loadItemForEdit(identity, itemId);
  return { item, photos: await listItemPhotos(item.id, { consistent: true }) };
}

function changeOf(state: ItemState, after: ItemPhoto[]): ItemPhotoChange {
  const writes = photoWrites(state.photos, after);
  return {
    itemId: state.item.id,
    expectedRev: revOf(state.item),
    photoPath: pathOf(after),
    put: writes.put,
    remove: writes.remove,
  };
}

/**
 * Plans and writes until the write holds: a write that lost to a concurrent
 * one on the same item is planned again from what that one left.
 */
async function runPlan(plan: () => Promise<Plan>): Promise<{ plan: Plan; snapshot: PhotoSnapshotEntry[] }> {
  try {
    return await withRetry(
      async () => {
        const planned = await plan();
        if (planned.kind === 'done') return { plan: planned, snapshot: [] };
        const changes = planned.states.map((s, i) => changeOf(s, planned.after[i]));
        try {
          await writeItemPhotoChanges(changes, { staged: planned.staged });
        } catch (err) {
          if (err instanceof PhotoChangeTooLarge)
            throw new ConflictError(
              'This item has too many photos to change them in one step; move or remove some of its photos first.',
            );
          throw err;
        }
        const snapshot = planned.states.map((s) => ({
          item_id: s.item.id,
          photo_path: s.item.photo_path,
          photos: s.photos,
          rev: revOf(s.item) + 1,
        }));
        return { plan: planned, snapshot };
      },
      { attempts: OPERATION_ATTEMPTS, backoffMs: 40, maxBackoffMs: 800, jitter: true, retryable: isConditionRace },
    );
  } catch (err) {
    if (isConditionRace(err))
      throw new ConflictError('The item kept changing while its photos were updated; try again.');
    throw err;
  }
}

/** The item as the API shows it, with its photos read consistently. */
export async function showItemWithPhotos(itemId: string) {
  const item = await getItem(itemId);
  if (!item) throw new NotFoundError('Item not found');
  return itemView(item, await listItemPhotos(itemId, { consistent: true }));
}

async function recordPhotoActivity(
  identity: Identity,
  item: InventoryItem,
  action: { type: string; label: string },
  snapshot: PhotoSnapshotEntry[],
) {
  const own = snapshot.find((s) => s.item_id === item.id)!;
  await recordActivity(identity.actor, {
    team_id: item.team_id,
    action_type: action.type,
    action_label: action.label,
    target: targetOf(item),
    entity_type: 'item',
    entity_id: item.id,
    snapshot: { before: { photo_path: own.photo_path, photos: own.photos }, rev: own.rev, items: snapshot },
    restorable: true,
  });
}

function photoOf(state: ItemState, photoId: string): ItemPhoto {
  const problem = photoOfItemProblem(state.photos, photoId);
  if (problem) throw new NotFoundError(problem);
  return state.photos.find((p) => p.id === photoId)!;
}

/** DELETE /api/inventory/item/{item_id}/photos/{photo_id}: the row goes (its file stays for undo); the next photo is promoted. */
export async function deleteItemPhoto(identity: Identity, itemId: string, photoId: string) {
  const { plan, snapshot } = await runPlan(async () => {
    const state = await loadItemPhotos(identity, itemId);
    photoOf(state, photoId);
    return { kind: 'write', states: [state], after: [withRemoved(state.photos, photoId)] };
  });
  const item = (plan as Extract<Plan, { kind: 'write' }>).states[0].item;
  await recordPhotoActivity(identity, item, { type: 'delete_item_photo', label: 'Deleted a photo' }, snapshot);
  return showItemWithPhotos(item.id);
}

/** PUT /api/inventory/item/{item_id}/photos/{photo_id}: make it primary, move it to a position, or both. */
export async function updateItemPhoto(identity: Identity, itemId: string, photoId: string, body: ItemPhotoUpdate) {
  const { plan, snapshot } = await runPlan(async () => {
    const state = await loadItemPhotos(identity, itemId);
    photoOf(state, photoId);
    let after = state.photos;
    if (body.is_primary) after = withPrimary(after, photoId);
    if (body.ordering !== undefined) after = withPosition(after, photoId, body.ordering);
    return { kind: 'write', states: [state], after: [after] };
  });
  const item = (plan as Extract<Plan, { kind: 'write' }>).states[0].item;
  const label =
    body.is_primary && body.ordering !== undefined
      ? 'Set the primary photo and reordered the photos'
      : body.is_primary
        ? 'Set the primary photo'
        : 'Reordered the photos';
  await recordPhotoActivity(identity, item, { type: 'update_item_photo', label }, snapshot);
  return showItemWithPhotos(item.id);
}

/**
 * PUT /api/inventory/item/{item_id}/photos/{photo_id}/move: the photo goes to
 * the end of another item of the same team (its primary only if it had none);
 * both items change in one transaction.
 */
export async function moveItemPhoto(identity: Identity, itemId: string, photoId: string, targetItemId: string) {
  const { plan, snapshot } = await runPlan(async () => {
    const source = await loadItemPhotos(identity, itemId);
    const photo = photoOf(source, photoId);
    const same = moveProblem(source.item.id, targetItemId);
    if (same) throw new InvalidRequestError(same);
    const target = await loadItemPhotos(identity, targetItemId);
    // An admin may act on any team's items, but a photo never crosses teams.
    if (target.item.team_id !== source.item.team_id) throw new NotFoundError('Item not found');
    return {
      kind: 'write',
      states: [source, target],
      after: [withRemoved(source.photos, photoId), withAppended(target.photos, { ...photo, item_id: target.item.id })],
    };
  });
  const [source, target] = (plan as Extract<Plan, { kind: 'write' }>).states;
  await recordPhotoActivity(
    identity,
    source.item,
    { type: 'move_item_photo', label: `Moved a photo to ${targetOf(target.item)}` },
    snapshot,
  );
  return { item: await showItemWithPhotos(source.item.id), target_item: await showItemWithPhotos(target.item.id) };
}

/**
 * The writing half of attach (POST .../photos) and replace (PUT .../photo):
 * the uploaded photo joins the item, with its StagedPhoto row written in the
 * same transaction only if that photo number is free. `isRecorded` tells
 * whether the upload was already attached (a repeated confirm): then nothing
 * is written and the item is answered as it is.
 */
export async function addUploadedItemPhoto(
  identity: Identity,
  itemId: string,
  upload: { photo: ItemPhoto; staged: StagedPhoto; purpose: ItemUploadPurpose; isRecorded: () => Promise<boolean> },
) {
  const { plan, snapshot } = await runPlan(async () => {
    const state = await loadItemPhotos(identity, itemId);
    if (await upload.isRecorded()) return { kind: 'done', itemId: state.item.id };
    const after =
      upload.purpose === 'replace'
        ? withPrimaryReplaced(state.photos, upload.photo)
        : withAppended(state.photos, upload.photo);
    return { kind: 'write', states: [state], after: [after], staged: upload.staged };
  });
  if (plan.kind === 'done') return showItemWithPhotos(plan.itemId);
  const item = plan.states[0].item;
  const action =
    upload.purpose === 'replace'
      ? { type: 'replace_item_photo', label: 'Replaced the primary photo' }
      : { type: 'attach_item_photo', label: 'Attached a photo' };
  await recordPhotoActivity(identity, item, action, snapshot);
  return showItemWithPhotos(item.id);
}

/**
 * Undo of a photo operation: every item it touched gets its photo rows and
 * photo_path back, in one transaction, only while each is still at the
 * revision the operation left (else 409: undoing would overwrite newer work).
 */
async function restoreItemPhotos(identity: Identity, snapshot: Record<string, unknown> | null) {
  const entries = (snapshot?.items ?? []) as PhotoSnapshotEntry[];
  if (entries.length === 0) throw new InvalidRequestError('This action cannot be undone.');
  await runPlan(async () => {
    const states: ItemState[] = [];
    for (const entry of entries) {
      const state = await loadItemPhotos(identity, entry.item_id);
      if (revOf(state.item) !== entry.rev) throw new ConflictError(ITEM_CHANGED_SINCE);
      states.push(state);
    }
    return { kind: 'write', states, after: entries.map((e) => e.photos) };
  });
}

const restorePhotos: Restorer = (entry, identity) => restoreItemPhotos(identity, entry.snapshot);

export const itemPhotoRestorers: Record<string, Restorer> = {
  replace_item_photo: restorePhotos,
  attach_item_photo: restorePhotos,
  delete_item_photo: restorePhotos,
  update_item_photo: restorePhotos,
  move_item_photo: restorePhotos,
};
