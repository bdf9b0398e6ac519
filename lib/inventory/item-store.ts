/**
 * InventoryItem and ItemPhoto records (spec: Resources > InventoryItem,
 * ItemPhoto; Processing rules 2 and 3).
 *
 * - An item row is ITEM#<id>/ITEM, listed per job (gsi1, by item number) and
 *   per room (gsi2). Its photos are rows in the item's own partition
 *   (ITEM#<id>/PHOTO#<photo id>), so one Query reads an item with its photos.
 * - Numbers come from numbering/item-number-store.ts. Items created by a pipeline have
 *   ids derived from (job, run, position): a stage that runs again after a
 *   crash writes the same items with the same numbers.
 * - Every write to an item row bumps its revision (rev; a row without one is
 *   at 0). Undo applies a snapshot only while the item is still at the
 *   revision the action left it at, so it never overwrites newer work.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, getRows, partitionKeys, putRows } from '../db/batch';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { roomIndexes } from '../rooms/keys';
import { withoutKeys } from '../db/keys';
import { itemIndexes, itemKeys } from './keys';
import { queryAll, queryPartition } from '../db/query';
import { setClauses } from '../db/update';
import { photoUrl } from '../photos/view';
import { buildItem, derivedId, passBatchPrefix } from './item-rules';
import { allocateItemNumbers } from './numbering/item-number-store';
import { withNumberingLease } from './numbering/item-placement-store';
import { batchNumbers, paddedItemNumber } from './numbering/numbering-rules';
import type { InventoryItem, ItemDraft, ItemPhoto } from './item-record-rules';

/** The full row of an item (keys and list-index attributes), for a Put. */
export function itemRowOf(item: InventoryItem) {
  const number = paddedItemNumber(item.item_number);
  return {
    ...itemKeys.item(item.id),
    entity: 'Item',
    gsi1pk: itemIndexes.jobItems(item.job_id).pk,
    gsi1sk: number,
    gsi2pk: roomIndexes.roomItems(item.room_id).pk,
    gsi2sk: number,
    ...item,
  };
}

/** The full row of an item photo, for a Put. */
export const photoRowOf = (photo: ItemPhoto) => ({
  ...itemKeys.itemPhoto(photo.item_id, photo.id),
  entity: 'ItemPhoto',
  ...photo,
});

function newItem(
  draft: ItemDraft,
  at: {
    id: string;
    job: { id: string; room_id: string; claim_id: string; team_id: string };
    roomName: string | null;
    itemNumber: number;
    pass: number;
  },
  now = new Date(),
): { item: InventoryItem; photos: ItemPhoto[] } {
  const photos: ItemPhoto[] = draft.photos.map((p, ordering) => ({
    id: derivedId(at.id, 'photo', ordering),
    item_id: at.id,
    filename: p.filename,
    job_id: at.job.id,
    key: p.key,
    is_primary: ordering === 0,
    ordering,
  }));
  const item = buildItem(
    draft,
    { id: at.id, job: at.job, roomName: at.roomName, itemNumber: at.itemNumber, now },
    {
      confidence: draft.confidence,
      evidence: draft.evidence ?? null,
      reviewed: false,
      created_pass: at.pass,
      source_group_index: draft.source_group_index,
      source_label: draft.source_label ?? null,
      photo_path: photos[0] ? photoUrl(at.job.id, photos[0].filename) : null,
    },
  );
  return { item, photos };
}

// ---------------------------------------------------------------------------
// Writing and reading
// ---------------------------------------------------------------------------

/**
 * Saves a pipeline's items with the next numbers of the claim, in draft
 * order. Idempotent per (job, batchKey): running it again writes the same ids
 * with the same numbers.
 */
export async function saveItemBatch(
  job: { id: string; room_id: string; claim_id: string; team_id: string },
  roomName: string | null,
  batchKey: string,
  pass: number,
  drafts: ItemDraft[],
  now = new Date(),
): Promise<InventoryItem[]> {
  if (drafts.length === 0) return [];
  const ids = drafts.map((_, i) => derivedId(job.id, batchKey, i));
  // Numbers are taken and the rows written under the claim's numbering lease, so no renumber runs in between.
  return withNumberingLease(
    job.claim_id,
    async () => {
      const range = await allocateItemNumbers(job.claim_id, job.id, batchKey, drafts.length);
      let numbers = ids.map((_, i) => range.first + i);
      const written = new Map<string, number>();
      if (range.staleSince !== undefined) {
        // Written again after a renumber: rows already written stay as they are, the rest take fresh numbers.
        const rows = await getRows(
          ids.map((id) => itemKeys.item(id)),
          { consistentRead: true },
        );
        for (const row of rows) written.set(String(row.id), Number(row.item_number));
        const fresh = await allocateItemNumbers(job.claim_id, job.id, `${batchKey}@${range.staleSince}`, ids.length);
        numbers = batchNumbers(ids, written, fresh.first);
      }
      const built = drafts.map((draft, i) =>
        newItem(draft, { id: ids[i], job, roomName, itemNumber: numbers[i], pass }, now),
      );
      // Photo rows are written for every item: a crash may have left an item row without them.
      await putRows(
        built.flatMap(({ item, photos }) => [
          ...(written.has(item.id) ? [] : [itemRowOf(item)]),
          ...photos.map(photoRowOf),
        ]),
      );
      return built.map((b) => b.item);
    },
    BATCH_LEASE_MS + drafts.length * 20,
  );
}

/** A batch's lease: long enough to write a large batch's rows without renewing. */
const BATCH_LEASE_MS = 15_000;

export async function setItemsApproved(itemIds: string[], now = new Date()): Promise<void> {
  for (const id of itemIds) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: itemKeys.item(id),
        UpdateExpression:
          'SET approved = :true, approved_by = :auto, updated_at = :at, rev = if_not_exists(rev, :zero) + :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':true': true,
          ':auto': 'auto-approval',
          ':at': now.toISOString(),
          ':zero': 0,
          ':one': 1,
        },
      }),
    );
  }
}

export async function getItem(id: string): Promise<InventoryItem | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: itemKeys.item(id), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as InventoryItem) : null;
}

/**
 * Item fields a person or an undo may write (identity, numbering and ownership
 * are not among them), plus the archived-index attributes an archive sets
 * (archpk/archsk; null removes them, as an index key cannot hold a null).
 */
export type ItemFields = Partial<
  Omit<InventoryItem, 'id' | 'job_id' | 'room_id' | 'claim_id' | 'team_id' | 'item_number' | 'created_at' | 'rev'>
> & { archpk?: string | null; archsk?: string | null };

/** The index attributes that mark an item archived, so the daily purge finds it (like rooms and claims). */
export const archivedIndexOf = (itemId: string, archivedAt: string) => ({
  archpk: 'ARCHIVED',
  archsk: `${archivedAt}#item#${itemId}`,
});

/** The parts of an item update: the fields, updated_at, and the revision bump, with the condition on the revision. */
function revisionUpdate(itemId: string, fields: ItemFields, expectedRev: number | undefined, now: Date) {
  const removed = (['archpk', 'archsk'] as const).filter((k) => fields[k] === null);
  const written = Object.fromEntries(
    Object.entries(fields).filter(([k, v]) => !(removed as string[]).includes(k) || v !== null),
  );
  const set = setClauses({ ...written, updated_at: now.toISOString() });
  const values: Record<string, unknown> = { ...set.values, ':zero': 0, ':one': 1 };
  let condition = 'attribute_exists(pk)';
  if (expectedRev !== undefined) {
    // A row never edited has no rev: it is at revision 0.
    condition +=
      expectedRev === 0 ? ' AND (attribute_not_exists(rev) OR rev = :expected_rev)' : ' AND rev = :expected_rev';
    values[':expected_rev'] = expectedRev;
  }
  return {
    TableName: tableName(),
    Key: itemKeys.item(itemId),
    UpdateExpression:
      `SET ${set.expression}, rev = if_not_exists(rev, :zero) + :one` +
      (removed.length ? ` REMOVE ${removed.join(', ')}` : ''),
    ConditionExpression: condition,
    ExpressionAttributeNames: set.names,
    ExpressionAttributeValues: values,
  };
}

/**
 * The TransactWrite element that writes `fields` to an item and bumps its
 * revision, only if the item exists (and is at `expectedRev` when given): for
 * transactions that change photo rows together with the item.
 */
export function itemRevisionUpdate(
  itemId: string,
  expectedRev: number | undefined,
  fields: ItemFields,
  now = new Date(),
) {
  return { Update: revisionUpdate(itemId, fields, expectedRev, now) };
}

/**
 * Writes `fields` to an item and bumps its revision. Null when the item is
 * gone, or (with `expectedRev`) when another write moved it first.
 */
export async function updateItemFields(
  itemId: string,
  fields: ItemFields,
  options: { expectedRev?: number; now?: Date } = {},
): Promise<InventoryItem | null> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        ...revisionUpdate(itemId, fields, options.expectedRev, options.now ?? new Date()),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as InventoryItem;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

export async function listJobItems(jobId: string): Promise<InventoryItem[]> {
  return queryAll<InventoryItem>(itemIndexes.jobItems(jobId), { ScanIndexForward: true });
}

/** An item's photo rows by ordering; `consistent` for a change about to be made from them. */
export async function listItemPhotos(itemId: string, options: { consistent?: boolean } = {}): Promise<ItemPhoto[]> {
  return (await queryPartition<ItemPhoto>(itemKeys.item(itemId).pk, 'PHOTO#', options)).sort(
    (a, b) => a.ordering - b.ordering,
  );
}

/** Deletes the job's items made by one pass (and their photo rows), e.g. the partial results of an interrupted run. */
export async function deleteJobItems(jobId: string, pass?: number): Promise<number> {
  const items = (await listJobItems(jobId)).filter((i) => pass === undefined || i.created_pass === pass);
  const rows = (await Promise.all(items.map((i) => partitionKeys(itemKeys.item(i.id).pk)))).flat();
  const prefix = pass === undefined ? 'ITEMBATCH#' : `ITEMBATCH#${passBatchPrefix(pass)}`;
  const markers = (await partitionKeys(`JOB#${jobId}`)).filter((k) => k.sk.startsWith(prefix));
  await deleteKeys([...rows, ...markers]);
  return items.length;
}
