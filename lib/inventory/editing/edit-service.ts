/**
 * Editing items (spec: Inventory: PUT /api/inventory/item/{item_id},
 * archive/unarchive, POST /api/inventory/{job_id}/bulk) and the undo of every
 * item action of this surface.
 *
 * Each write is conditional on the revision the item was read at, so the
 * "before" values recorded for the undo are exactly what the write replaced;
 * the undo in turn writes them back only while the item is still at the
 * revision the action left it at.
 */
import pLimit from 'p-limit';
import { recordActivity, type Restorer } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { getClaim } from '../../claims/store';
import type { Claim } from '../../claims/claim-record-rules';
import { ConflictError, InvalidRequestError } from '../../errors';
import { loadItemForTeam } from '../access-service';
import { loadJobForTeam } from '../../jobs/access-service';
import { loadItemForEdit, loadItemForReview, loadItemsForEdit } from '../access-service';
import {
  archiveChangeOf,
  archiveProblemOf,
  bulkPlanOf,
  editChangeOf,
  editLabelOf,
  itemEditOf,
  itemSnapshotOf,
  itemsSnapshotOf,
  itemsTargetOf,
  itemTargetOf,
  revisionOf,
  snapshotFits,
  type ItemChange,
  type ItemEdit,
  type ItemValues,
} from './edit-rules';
import type { ItemPatchInput } from './edit-schemas';
import { ITEM_CHANGED_SINCE, itemFrozen } from '../freeze-rules';
import { updateItemsAtRevisions } from './item-edit-store';
import { archivedIndexOf, getItem, listItemPhotos, updateItemFields, type ItemFields } from '../item-store';
import type { InventoryItem } from '../item-record-rules';
import { itemView } from '../view';

/** Reads of an item before a write lost to a concurrent one are retried this many times in all. */
const WRITE_ATTEMPTS = 3;
const ITEM_BUSY = 'This item is being changed by someone else right now; try again.';
/** Bulk item writes in flight at once. */
const BULK_WRITES_IN_FLIGHT = 16;

type ItemLoader = (identity: Identity, itemId: string) => Promise<{ item: InventoryItem; claim: Claim }>;

/** The stored fields of a change; the archived state carries the archived-index attributes the purge reads. */
function fieldsOf(itemId: string, values: ItemValues): ItemFields {
  const fields = { ...values } as ItemFields;
  if ('is_archived' in values) {
    const at = values.archived_at;
    Object.assign(
      fields,
      values.is_archived && typeof at === 'string' ? archivedIndexOf(itemId, at) : { archpk: null, archsk: null },
    );
  }
  return fields;
}

async function showItem(item: InventoryItem) {
  return itemView(item, await listItemPhotos(item.id));
}

/**
 * One item action: loads the item (which decides 404 and 409), plans the
 * change, writes it at the revision read (reading again if another write got
 * there first), records the activity with the values it replaced and answers
 * the item. A plan that changes nothing writes nothing and records nothing.
 */
export async function updateItemRecord(
  identity: Identity,
  itemId: string,
  action: {
    load: ItemLoader;
    plan: (item: InventoryItem) => ItemChange | null;
    action_type: string;
    label: (change: ItemChange) => string;
  },
) {
  for (let attempt = 1; ; attempt++) {
    const { item } = await action.load(identity, itemId);
    const change = action.plan(item);
    if (!change) return showItem(item);
    const after = await updateItemFields(item.id, fieldsOf(item.id, change.fields), { expectedRev: revisionOf(item) });
    if (after) {
      await recordActivity(identity.actor, {
        // The feed of the item's team, also when an admin of another team acted.
        team_id: after.team_id,
        action_type: action.action_type,
        action_label: action.label(change),
        target: itemTargetOf(after),
        entity_type: 'item',
        entity_id: after.id,
        snapshot: { before: change.before, rev: revisionOf(after) },
        restorable: true,
      });
      return showItem(after);
    }
    if (attempt >= WRITE_ATTEMPTS) throw new ConflictError(ITEM_BUSY);
  }
}

/** PUT /api/inventory/item/{item_id}: edits fields and marks the item reviewed. */
export async function updateItem(identity: Identity, itemId: string, body: ItemPatchInput) {
  const edit = itemEditOf(body);
  return updateItemRecord(identity, itemId, {
    load: loadItemForEdit,
    plan: (item) => editChangeOf(item, edit),
    action_type: 'update_item',
    label: editLabelOf,
  });
}

/** POST /api/inventory/item/{item_id}/archive: hidden from default lists, counts, exports and sends; 400 once submitted. */
export async function archiveItem(identity: Identity, itemId: string, now = new Date()) {
  return updateItemRecord(identity, itemId, {
    load: loadItemForEdit,
    plan: (item) => {
      const problem = archiveProblemOf(item);
      if (problem) throw new InvalidRequestError(problem);
      return archiveChangeOf(item, true, now.toISOString());
    },
    action_type: 'archive_item',
    label: () => 'Archived item',
  });
}

/** POST /api/inventory/item/{item_id}/unarchive: back in the lists; archived_at cleared. */
export async function unarchiveItem(identity: Identity, itemId: string) {
  return updateItemRecord(identity, itemId, {
    load: loadItemForEdit,
    plan: (item) => archiveChangeOf(item, false, ''),
    action_type: 'unarchive_item',
    label: () => 'Restored item from archive',
  });
}

type BulkOutcome =
  | { kind: 'written'; item: InventoryItem; before: ItemValues }
  | { kind: 'unchanged'; id: string }
  | { kind: 'skipped'; id: string };

/**
 * Writes one item's part of a bulk patch at the revision read. When another
 * write got there first the item is read again and planned again (up to
 * WRITE_ATTEMPTS in all); an item that meanwhile went away, was submitted or
 * was sent (frozen) is skipped rather than failing items already written.
 */
async function writeBulkChange(item: InventoryItem, change: ItemChange, edit: ItemEdit): Promise<BulkOutcome> {
  let [current, planned] = [item, change];
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const after = await updateItemFields(current.id, planned.fields as ItemFields, {
      expectedRev: revisionOf(current),
    });
    if (after) return { kind: 'written', item: after, before: planned.before };
    const fresh = await getItem(current.id);
    // After a lost race, see whether the item was submitted or sent meanwhile.
    const claim = fresh && (await getClaim(fresh.claim_id, true));
    if (!fresh || !claim || fresh.claims_platform_submitted_at || itemFrozen(claim, fresh))
      return { kind: 'skipped', id: current.id };
    const again = editChangeOf(fresh, edit);
    if (!again) return { kind: 'unchanged', id: current.id };
    [current, planned] = [fresh, again];
  }
  return { kind: 'skipped', id: item.id };
}

/**
 * POST /api/inventory/{job_id}/bulk: one patch to many items of the job's
 * claim. The whole batch is refused (409) if it names a frozen item; items
 * submitted to the claims platform are skipped and reported. One activity
 * entry whose undo puts every written item back.
 */
export async function updateJobItems(
  identity: Identity,
  jobId: string,
  body: { item_ids: string[]; patch: ItemPatchInput },
) {
  const job = await loadJobForTeam(identity, jobId);
  const { items, claim } = await loadItemsForEdit(identity, body.item_ids);
  if (claim.id !== job.claim_id) throw new InvalidRequestError("All items must belong to this job's claim.");
  const edit = itemEditOf(body.patch);
  const plan = bulkPlanOf(items, edit);
  if (!snapshotFits(plan.changes.map((c) => ({ id: c.item.id, before: c.change.before }))))
    throw new InvalidRequestError('This change is too large to undo in one step; patch fewer items at once.');
  const limit = pLimit(BULK_WRITES_IN_FLIGHT);
  const outcomes = await Promise.all(plan.changes.map((c) => limit(() => writeBulkChange(c.item, c.change, edit))));
  const written = outcomes.filter((o) => o.kind === 'written');
  if (written.length) {
    await recordActivity(identity.actor, {
      team_id: job.team_id,
      action_type: 'bulk_update_items',
      action_label: `Edited ${written.length} item${written.length === 1 ? '' : 's'} (${Object.keys(edit).join(', ')})`,
      target: itemsTargetOf(written.map((o) => o.item)),
      entity_type: 'job',
      entity_id: job.id,
      snapshot: { items: written.map((o) => ({ id: o.item.id, before: o.before, rev: revisionOf(o.item) })) },
      restorable: true,
    });
  }
  const updated = new Set([...plan.unchanged, ...outcomes.filter((o) => o.kind !== 'skipped').map(idOf)]);
  const skipped = new Set([...plan.skipped, ...outcomes.filter((o) => o.kind === 'skipped').map(idOf)]);
  // Answered in the order the caller named them.
  const order = [...new Set(body.item_ids)];
  return { updated: order.filter((id) => updated.has(id)), skipped: order.filter((id) => skipped.has(id)) };
}

const idOf = (o: BulkOutcome) => (o.kind === 'written' ? o.item.id : o.id);

// ---------------------------------------------------------------------------
// Undo
// ---------------------------------------------------------------------------

/** Puts one item's recorded values back, only while it is at the revision the action left it at. */
async function restoreItemSnapshot(
  entry: Parameters<Restorer>[0],
  identity: Identity,
  load: ItemLoader,
): Promise<void> {
  const snapshot = itemSnapshotOf(entry.snapshot);
  if (!snapshot) throw new Error(`${entry.action_type} snapshot has no before values and revision`);
  const { item } = await load(identity, entry.entity_id);
  if (revisionOf(item) !== snapshot.rev) throw new ConflictError(ITEM_CHANGED_SINCE);
  const restored = await updateItemFields(item.id, fieldsOf(item.id, snapshot.before), { expectedRev: snapshot.rev });
  if (!restored) throw new ConflictError(ITEM_CHANGED_SINCE);
}

/**
 * Puts several items back, all or nothing: every item's revision is checked
 * first, then the writes go in one conditional transaction per 100 items (a
 * race lost after the check in a later transaction of a set over 100 leaves
 * the earlier ones restored and answers 409).
 */
async function restoreItemsSnapshot(
  entry: Parameters<Restorer>[0],
  identity: Identity,
  scope: 'edit' | 'review',
): Promise<void> {
  const snapshots = itemsSnapshotOf(entry.snapshot);
  if (!snapshots) throw new Error(`${entry.action_type} snapshot has no items`);
  const ids = snapshots.map((s) => s.id);
  const items =
    scope === 'edit'
      ? (await loadItemsForEdit(identity, ids)).items
      : await Promise.all(ids.map((id) => loadItemForTeam(identity, id)));
  const revisions = new Map(items.map((i) => [i.id, revisionOf(i)]));
  if (snapshots.some((s) => revisions.get(s.id) !== s.rev)) throw new ConflictError(ITEM_CHANGED_SINCE);
  const written = await updateItemsAtRevisions(
    snapshots.map((s) => ({ id: s.id, expectedRev: s.rev, fields: fieldsOf(s.id, s.before) })),
  );
  if (!written) throw new ConflictError(ITEM_CHANGED_SINCE);
}

/**
 * Undo of the item editing actions. Undoing an edit, archive or bulk patch is
 * itself an edit, so a frozen item refuses it (409); approval and its undo
 * stay allowed on frozen items, as approving does.
 */
export const inventoryEditRestorers: Record<string, Restorer> = {
  update_item: (e, id) => restoreItemSnapshot(e, id, loadItemForEdit),
  archive_item: (e, id) => restoreItemSnapshot(e, id, loadItemForEdit),
  unarchive_item: (e, id) => restoreItemSnapshot(e, id, loadItemForEdit),
  approve_item: (e, id) => restoreItemSnapshot(e, id, loadItemForReview),
  bulk_update_items: (e, id) => restoreItemsSnapshot(e, id, 'edit'),
  auto_approve_items: (e, id) => restoreItemsSnapshot(e, id, 'review'),
};
