/**
 * The homeowner's draft rows (spec: Other records > Insured draft rows):
 * files (a room's photos, videos and voice notes, and typed rows' photos) and
 * typed rows, in the link's partition next to its rooms.
 *
 * The link's ceilings are kept on the link row: bytes_reserved (lifetime:
 * never lowered), files_count and items_count. A row is written in the same
 * transaction that raises them, conditional on the ceiling, so two racing
 * requests can never pass a ceiling together.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, isConditionRace, isThrottledTransaction, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { insuredKeys } from './keys';
import { ROWS_PER_TRANSACTION } from '../db/batch';
import { queryPartition } from '../db/query';
import { setClauses } from '../db/update';
import type { DraftFile, DraftFileStatus, DraftItem } from './draft-record-rules';

const fileRow = (file: DraftFile) => ({
  ...insuredKeys.insuredFile(file.link_id, file.id),
  entity: 'InsuredFile',
  ...file,
});
const itemRow = (item: DraftItem) => ({
  ...insuredKeys.insuredItem(item.link_id, item.id),
  entity: 'InsuredItem',
  ...item,
});

/** The ceilings one new row must stay within: the most each counter may hold before it is raised (null: off). */
export interface ReserveBounds {
  bytesBefore: number | null;
  filesBefore?: number | null;
  itemsBefore?: number | null;
}

/** Raises the link's counters under their bounds and puts the row, together. False when a bound would be passed. */
async function reserveAndPut(
  linkId: string,
  add: { bytes: number; files: number; items: number },
  bounds: ReserveBounds,
  row: Record<string, unknown>,
): Promise<boolean> {
  const conditions = ['attribute_exists(pk)', 'attribute_not_exists(revoked_at) OR revoked_at = :none'];
  const values: Record<string, unknown> = {
    ':bytes': add.bytes,
    ':files': add.files,
    ':items': add.items,
    ':none': null,
  };
  const bound = (attribute: string, value: number | null | undefined) => {
    if (value === null || value === undefined) return;
    conditions.push(`attribute_not_exists(${attribute}) OR ${attribute} <= :max_${attribute}`);
    values[`:max_${attribute}`] = value;
    // A bound below zero: nothing more fits, whatever the counter holds.
    if (value < 0) conditions.push('attribute_not_exists(pk)');
  };
  bound('bytes_reserved', add.bytes > 0 ? bounds.bytesBefore : null);
  bound('files_count', add.files > 0 ? bounds.filesBefore : null);
  bound('items_count', add.items > 0 ? bounds.itemsBefore : null);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: insuredKeys.insuredLink(linkId),
              UpdateExpression: 'ADD bytes_reserved :bytes, files_count :files, items_count :items',
              ConditionExpression: conditions.map((c) => `(${c})`).join(' AND '),
              ExpressionAttributeValues: values,
            },
          },
          { Put: { TableName: tableName(), Item: row, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/** A new file, counted against the link's file and byte ceilings; false when it does not fit. */
export function putDraftFile(file: DraftFile, bounds: ReserveBounds): Promise<boolean> {
  return reserveAndPut(file.link_id, { bytes: file.size_bytes, files: 1, items: 0 }, bounds, fileRow(file));
}

/** A new typed row, counted against the link's item ceiling; false when it does not fit. */
export function putDraftItem(item: DraftItem, bounds: ReserveBounds): Promise<boolean> {
  return reserveAndPut(item.link_id, { bytes: 0, files: 0, items: 1 }, bounds, itemRow(item));
}

export async function getDraftFile(linkId: string, fileId: string): Promise<DraftFile | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: insuredKeys.insuredFile(linkId, fileId), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as DraftFile) : null;
}

export async function getDraftItem(linkId: string, itemId: string): Promise<DraftItem | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: insuredKeys.insuredItem(linkId, itemId), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as DraftItem) : null;
}

const byCreation = <T extends { created_at: string; id: string }>(a: T, b: T) =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

export async function listDraftFiles(linkId: string): Promise<DraftFile[]> {
  const rows = await queryPartition<Record<string, unknown>>(insuredKeys.insuredLink(linkId).pk, 'FILE#', {
    consistent: true,
  });
  return rows.map((r) => withoutKeys(r) as unknown as DraftFile).sort(byCreation);
}

export async function listDraftItems(linkId: string): Promise<DraftItem[]> {
  const rows = await queryPartition<Record<string, unknown>>(insuredKeys.insuredLink(linkId).pk, 'ITEM#', {
    consistent: true,
  });
  return rows.map((r) => withoutKeys(r) as unknown as DraftItem).sort(byCreation);
}

/**
 * Writes fields to a row still in one of `statuses` (files) and not yet
 * submitted; the row as written, or null when it is gone, submitted or moved on.
 */
async function updateDraftRow<T>(
  key: { pk: string; sk: string },
  fields: Record<string, unknown>,
  statuses: readonly DraftFileStatus[] | null,
): Promise<T | null> {
  const set = setClauses({ ...fields, updated_at: new Date().toISOString() });
  const conditions = ['attribute_exists(pk)', '(attribute_not_exists(#round) OR #round = :none)'];
  const values: Record<string, unknown> = { ...set.values, ':none': null };
  const names: Record<string, string> = { ...set.names, '#round': 'round' };
  if (statuses) {
    conditions.push(`#status IN (${statuses.map((_, i) => `:from${i}`).join(', ')})`);
    names['#status'] = 'status';
    statuses.forEach((s, i) => {
      values[`:from${i}`] = s;
    });
  }
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as T;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

export function updateDraftFile(
  file: Pick<DraftFile, 'link_id' | 'id'>,
  fields: Partial<DraftFile>,
  statuses: readonly DraftFileStatus[],
): Promise<DraftFile | null> {
  return updateDraftRow<DraftFile>(insuredKeys.insuredFile(file.link_id, file.id), fields, statuses);
}

export function updateDraftItem(
  item: Pick<DraftItem, 'link_id' | 'id'>,
  fields: Partial<DraftItem>,
): Promise<DraftItem | null> {
  return updateDraftRow<DraftItem>(insuredKeys.insuredItem(item.link_id, item.id), fields, null);
}

/** Records a file's thumbnail (a cache: written whatever the file's state). */
export async function setDraftFileThumb(file: Pick<DraftFile, 'link_id' | 'id'>, thumbKey: string): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: insuredKeys.insuredFile(file.link_id, file.id),
        UpdateExpression: 'SET thumb_key = :key',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':key': thumbKey },
      }),
    )
    .catch((err) => {
      if (!isConditionalCheckFailed(err)) throw err;
    });
}

/**
 * Changes one draft row (`change`, a transaction item) and gives back the
 * row's count on the link in the same transaction. False when the change's
 * condition failed (the row is gone, submitted, or moved on meanwhile).
 */
async function changeAndGiveBack(
  linkId: string,
  change: Record<string, unknown>,
  counter: 'files_count' | 'items_count',
): Promise<boolean> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          change,
          {
            Update: {
              TableName: tableName(),
              Key: insuredKeys.insuredLink(linkId),
              UpdateExpression: `ADD ${counter} :minus`,
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/**
 * Removes a row the homeowner still holds and gives back its count (files
 * or items; never bytes: the byte ceiling is lifetime).
 */
const deleteDraftRow = (linkId: string, key: { pk: string; sk: string }, counter: 'files_count' | 'items_count') =>
  changeAndGiveBack(
    linkId,
    {
      Delete: {
        TableName: tableName(),
        Key: key,
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#round) OR #round = :none)',
        ExpressionAttributeNames: { '#round': 'round' },
        ExpressionAttributeValues: { ':none': null },
      },
    },
    counter,
  );

export const deleteDraftFile = (file: Pick<DraftFile, 'link_id' | 'id'>) =>
  deleteDraftRow(file.link_id, insuredKeys.insuredFile(file.link_id, file.id), 'files_count');

export const deleteDraftItem = (item: Pick<DraftItem, 'link_id' | 'id'>) =>
  deleteDraftRow(item.link_id, insuredKeys.insuredItem(item.link_id, item.id), 'items_count');

/**
 * Ends a chunked upload that will never complete (aborted, or abandoned for
 * a day): its row stays with that status, its file count is given back, its
 * reserved bytes are not. False when it was no longer open.
 */
export function closeDraftUpload(file: Pick<DraftFile, 'link_id' | 'id'>, status: 'aborted' | 'expired') {
  return changeAndGiveBack(
    file.link_id,
    {
      Update: {
        TableName: tableName(),
        Key: insuredKeys.insuredFile(file.link_id, file.id),
        UpdateExpression: 'SET #status = :status, updated_at = :at',
        ConditionExpression: '#status = :open',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status, ':open': 'open', ':at': new Date().toISOString() },
      },
    },
    'files_count',
  );
}

const roundCondition = {
  ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#round) OR #round = :none)',
  ExpressionAttributeNames: { '#round': 'round', '#job': 'job_id' },
  UpdateExpression: 'SET #round = :round, #job = :job',
};

/** A row a submit takes, and the job it goes to (ids are derived: known before the job is made). */
export interface RoundRow {
  key: { pk: string; sk: string };
  jobId: string;
}

/**
 * Marks a row as taken by submit `round`, unless an earlier submit took it
 * (then it keeps its round). True when the row is in `round` now.
 */
async function markDraftRowRound({ key, jobId }: RoundRow, round: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...roundCondition,
        ExpressionAttributeValues: { ':round': round, ':job': jobId, ':none': null },
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    return Item?.round === round;
  }
}

/**
 * Marks up to 100 rows for submit `round` in one transaction, each with the
 * job it goes to: at a link's ceilings (7,000 rows, all in the link's
 * partition) one round trip per row took over a minute. A transaction is cancelled whole when one
 * of its rows was removed, taken or edited meanwhile, or when it was
 * throttled; its rows are then marked one by one. Whether each row is in
 * `round` now, in order.
 */
export async function markDraftRowsRound(rows: RoundRow[], round: number): Promise<boolean[]> {
  if (rows.length > ROWS_PER_TRANSACTION) throw new RangeError(`at most ${ROWS_PER_TRANSACTION} rows per mark`);
  if (rows.length === 0) return [];
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: rows.map(({ key, jobId }) => ({
          Update: {
            TableName: tableName(),
            Key: key,
            ...roundCondition,
            ExpressionAttributeValues: { ':round': round, ':job': jobId, ':none': null },
          },
        })),
      }),
    );
    return rows.map(() => true);
  } catch (err) {
    // One by one, a throttled write is retried by the SDK (all 7,000 rows of a link share one partition).
    if (!isConditionRace(err) && !isThrottledTransaction(err)) throw err;
    const taken: boolean[] = [];
    for (const row of rows) taken.push(await markDraftRowRound(row, round));
    return taken;
  }
}
