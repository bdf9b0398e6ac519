/**
 * InventoryItem and ItemPhoto records (spec: Resources > InventoryItem,
 * ItemPhoto; Processing rules 2 and 3).
 *
 * - An item row is ITEM#<id>/ITEM, listed per job (gsi1, by item number) and
 *   per room (gsi2). Its photos are rows in the item's own partition
 *   (ITEM#<id>/PHOTO#<photo id>), so one Query reads an item with its photos.
 * - Item numbers continue from the claim's current maximum. The claim row
 *   carries that maximum (item_number_max); a batch of new items takes the
 *   next numbers in one transaction that moves the maximum only if it is
 *   still what was read (optimistic), so concurrent jobs of one claim can
 *   never hand out a number twice.
 * - Items created by a pipeline have ids derived from (job, run, position),
 *   and the batch records the range it took in a marker row: a stage that
 *   runs again after a crash writes the same items with the same numbers.
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, partitionKeys, putRows } from '../db/batch';
import { db, isTransactionCanceled, tableName } from '../db/client';
import { indexes, keys } from '../db/keys';
import { queryAll, queryPartition } from '../db/query';
import { photoUrl } from '../photos/view';
import { withRetry, type RetryPolicy } from '../retry';
import { derivedId, passBatchPrefix, REVIEW_CONFIDENCE } from './item-rules';

export interface InventoryItem {
  id: string;
  job_id: string;
  room_id: string;
  claim_id: string;
  team_id: string;
  item_number: number;
  name: string;
  quantity: number;
  brand: string | null;
  model: string | null;
  serial: string | null;
  sku: string | null;
  condition: string | null;
  age: string | null;
  estimated_price: number | null;
  damage: string | null;
  notes: string | null;
  /** The room name the item was found in (the job's room). */
  room: string | null;
  confidence: number;
  evidence: string | null;
  needs_review: boolean;
  reviewed: boolean;
  approved: boolean;
  is_archived: boolean;
  archived_at: string | null;
  claims_platform_submitted_at: string | null;
  estimation_sent_at: string | null;
  /** Path of the primary photo (copied from the primary ItemPhoto). */
  photo_path: string | null;
  /** Which processing pass made it (1 = the first run, 2.. = read-the-rest passes); 0 for manual items. */
  created_pass: number;
  /** The staged-photo group it came from. */
  source_group_index: number | null;
  created_at: string;
  updated_at: string;
}

export interface ItemPhoto {
  id: string;
  item_id: string;
  /** The stored photo's file name within its job (served by GET /api/photos/{job_id}/{filename}). */
  filename: string;
  job_id: string;
  /** Object key of the JPEG. */
  key: string;
  is_primary: boolean;
  ordering: number;
}

/** An item a pipeline wants saved: everything but identity, numbering and flags. */
export interface ItemDraft {
  name: string;
  quantity: number;
  brand?: string | null;
  model?: string | null;
  serial?: string | null;
  sku?: string | null;
  condition?: string | null;
  age?: string | null;
  estimated_price?: number | null;
  damage?: string | null;
  notes?: string | null;
  confidence: number;
  evidence?: string | null;
  source_group_index: number | null;
  /** Photos in order; the first is primary. */
  photos: { filename: string; key: string }[];
}

function itemRow(item: InventoryItem) {
  const number = String(item.item_number).padStart(8, '0');
  return {
    ...keys.item(item.id),
    entity: 'Item',
    gsi1pk: indexes.jobItems(item.job_id).pk,
    gsi1sk: number,
    gsi2pk: indexes.roomItems(item.room_id).pk,
    gsi2sk: number,
    ...item,
  };
}

const photoRow = (photo: ItemPhoto) => ({ ...keys.itemPhoto(photo.item_id, photo.id), entity: 'ItemPhoto', ...photo });

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
  const confidence = Math.min(1, Math.max(0, draft.confidence));
  const item: InventoryItem = {
    id: at.id,
    job_id: at.job.id,
    room_id: at.job.room_id,
    claim_id: at.job.claim_id,
    team_id: at.job.team_id,
    item_number: at.itemNumber,
    name: draft.name,
    quantity: draft.quantity,
    brand: draft.brand ?? null,
    model: draft.model ?? null,
    serial: draft.serial ?? null,
    sku: draft.sku ?? null,
    condition: draft.condition ?? null,
    age: draft.age ?? null,
    estimated_price: draft.estimated_price ?? null,
    damage: draft.damage ?? null,
    notes: draft.notes ?? null,
    room: at.roomName,
    confidence,
    evidence: draft.evidence ?? null,
    needs_review: confidence < REVIEW_CONFIDENCE,
    reviewed: false,
    approved: false,
    is_archived: false,
    archived_at: null,
    claims_platform_submitted_at: null,
    estimation_sent_at: null,
    photo_path: photos[0] ? photoUrl(at.job.id, photos[0].filename) : null,
    created_pass: at.pass,
    source_group_index: draft.source_group_index,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  return { item, photos };
}

// ---------------------------------------------------------------------------
// Numbering
// ---------------------------------------------------------------------------

/** The largest item number any item of the claim carries (used once, when the claim has no counter yet). */
async function scanClaimMaximum(claimId: string): Promise<number> {
  const rooms = await queryAll<{ id: string }>(indexes.claimRooms(claimId), { ProjectionExpression: 'id' });
  let max = 0;
  for (const room of rooms) {
    const { Items } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: indexes.roomItems(room.id).index,
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': indexes.roomItems(room.id).pk },
        ScanIndexForward: false,
        Limit: 1,
        ProjectionExpression: 'item_number',
      }),
    );
    max = Math.max(max, Number(Items?.[0]?.item_number ?? 0));
  }
  return max;
}

interface NumberRange {
  first: number;
  count: number;
}

const rangeMarkerKey = (jobId: string, batchKey: string) => ({ pk: `JOB#${jobId}`, sk: `ITEMBATCH#${batchKey}` });

/** Another batch took numbers of the same claim between our read and our write. */
class NumberRace extends Error {
  constructor(claimId: string, cause: unknown) {
    super(`item numbers of claim ${claimId} kept moving`, { cause });
  }
}

/**
 * Every batch of a claim's numbers eventually wins: lost races are retried
 * after a short jittered pause (20-40 ms, not growing: contention lasts only
 * while the other batches of the same claim commit).
 */
const NUMBER_RACE_RETRY: RetryPolicy = {
  attempts: 200,
  backoffMs: 40,
  factor: 1,
  jitter: true,
  retryable: (err) => err instanceof NumberRace,
};

/**
 * Takes `count` consecutive item numbers after the claim's current maximum,
 * once per (job, batchKey): a repeated call for the same batch returns the
 * range the first call took. Optimistic: the claim's maximum moves only if it
 * is still the value read; on a race it reads again and retries.
 */
export async function allocateItemNumbers(
  claimId: string,
  jobId: string,
  batchKey: string,
  count: number,
): Promise<NumberRange> {
  const markerKey = rangeMarkerKey(jobId, batchKey);
  return withRetry(async () => {
    const [{ Item: marker }, { Item: claim }] = await Promise.all([
      db().send(new GetCommand({ TableName: tableName(), Key: markerKey, ConsistentRead: true })),
      db().send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.claim(claimId),
          ConsistentRead: true,
          ProjectionExpression: 'item_number_max',
        }),
      ),
    ]);
    if (marker) return { first: Number(marker.first), count: Number(marker.count) };
    if (count === 0) return { first: 0, count: 0 };
    const known = claim?.item_number_max;
    const current = known === undefined ? await scanClaimMaximum(claimId) : Number(known);
    const first = current + 1;
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: keys.claim(claimId),
                UpdateExpression: 'SET item_number_max = :next',
                ConditionExpression:
                  known === undefined
                    ? 'attribute_exists(pk) AND attribute_not_exists(item_number_max)'
                    : 'attribute_exists(pk) AND item_number_max = :current',
                ExpressionAttributeValues: {
                  ':next': current + count,
                  ...(known === undefined ? {} : { ':current': current }),
                },
              },
            },
            {
              Put: {
                TableName: tableName(),
                Item: { ...markerKey, entity: 'ItemNumberBatch', first, count },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { first, count };
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed' && claim === undefined)
        throw new Error(`claim ${claimId} no longer exists`);
      // Another batch moved the maximum (or this batch's marker appeared): read again.
      throw new NumberRace(claimId, err);
    }
  }, NUMBER_RACE_RETRY);
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
  const range = await allocateItemNumbers(job.claim_id, job.id, batchKey, drafts.length);
  const built = drafts.map((draft, i) =>
    newItem(draft, { id: derivedId(job.id, batchKey, i), job, roomName, itemNumber: range.first + i, pass }, now),
  );
  await putRows(built.flatMap(({ item, photos }) => [itemRow(item), ...photos.map(photoRow)]));
  return built.map((b) => b.item);
}

export async function setItemsApproved(itemIds: string[], now = new Date()): Promise<void> {
  for (const id of itemIds) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.item(id),
        UpdateExpression: 'SET approved = :true, approved_by = :auto, updated_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true, ':auto': 'auto-approval', ':at': now.toISOString() },
      }),
    );
  }
}

export async function listJobItems(jobId: string): Promise<InventoryItem[]> {
  return queryAll<InventoryItem>(indexes.jobItems(jobId), { ScanIndexForward: true });
}

export async function listItemPhotos(itemId: string): Promise<ItemPhoto[]> {
  return (await queryPartition<ItemPhoto>(keys.item(itemId).pk, 'PHOTO#')).sort((a, b) => a.ordering - b.ordering);
}

/** Deletes the job's items made by one pass (and their photo rows), e.g. the partial results of an interrupted run. */
export async function deleteJobItems(jobId: string, pass?: number): Promise<number> {
  const items = (await listJobItems(jobId)).filter((i) => pass === undefined || i.created_pass === pass);
  const rows = (await Promise.all(items.map((i) => partitionKeys(keys.item(i.id).pk)))).flat();
  const prefix = pass === undefined ? 'ITEMBATCH#' : `ITEMBATCH#${passBatchPrefix(pass)}`;
  const markers = (await partitionKeys(`JOB#${jobId}`)).filter((k) => k.sk.startsWith(prefix));
  await deleteKeys([...rows, ...markers]);
  return items.length;
}
