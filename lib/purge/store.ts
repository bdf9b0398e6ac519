/** The rows a purge reads and deletes: children of a room or claim, and the archived index. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, partitionKeys, type RowKey } from '../db/batch';
import { db, tableName } from '../db/client';
import { jobIndexes } from '../jobs/keys';
import { itemKeys } from '../inventory/keys';
import { roomIndexes, roomKeys } from '../rooms/keys';
import { importIndexes, importKeys } from '../imports/keys';
import { purgeIndexes } from './keys';
import { queryAll } from '../db/query';

/** The ids of a room's jobs and the row keys of its items (an item's partition holds the item and its photos). */
export async function listRoomChildren(roomId: string): Promise<{ jobIds: string[]; itemRows: RowKey[] }> {
  const [jobs, items] = await Promise.all([
    queryAll<{ id: string }>(jobIndexes.roomJobs(roomId), { ProjectionExpression: 'id' }),
    queryAll<{ id: string }>(roomIndexes.roomItems(roomId), { ProjectionExpression: 'id' }),
  ]);
  const itemRows = (await Promise.all(items.map((i) => partitionKeys(itemKeys.item(i.id).pk)))).flat();
  return { jobIds: jobs.map((j) => j.id), itemRows };
}

export async function listClaimRoomIds(claimId: string): Promise<string[]> {
  const rooms = await queryAll<{ id: string }>(roomIndexes.claimRooms(claimId), { ProjectionExpression: 'id' });
  return rooms.map((r) => r.id);
}

/** A claim's import batches: each one's row key and the reader jobs of its runs (they belong to no room). */
export async function listClaimImports(claimId: string): Promise<{ batchRows: RowKey[]; readerJobIds: string[] }> {
  const batches = await queryAll<{ id: string; read_job_ids?: string[] }>(importIndexes.claimImports(claimId), {
    ProjectionExpression: 'id, read_job_ids',
  });
  return {
    batchRows: batches.map((b) => importKeys.importBatch(b.id)),
    readerJobIds: batches.flatMap((b) => b.read_job_ids ?? []),
  };
}

/** Deletes the given rows and the room row itself; how many rows went. */
export async function deleteRoomAndRows(roomId: string, rows: RowKey[]): Promise<number> {
  await deleteKeys([...rows, roomKeys.room(roomId)]);
  return rows.length + 1;
}

/** An archived claim, room or item as the archived index and its row tell it. */
export interface ArchivedEntry {
  kind: string;
  id: string;
  /** When it was archived, as its index entry (archsk) records it. */
  at: string;
  entity: Record<string, unknown> | undefined;
}

/** Every entry archived before the cutoff, page by page; reads only the sparse archived index. */
export async function* archivedBefore(cutoff: string): AsyncGenerator<ArchivedEntry> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: purgeIndexes.archived().index,
        KeyConditionExpression: 'archpk = :pk AND archsk < :cutoff',
        ExpressionAttributeValues: { ':pk': purgeIndexes.archived().pk, ':cutoff': cutoff },
        ExclusiveStartKey,
      }),
    );
    for (const row of page.Items ?? []) {
      const [at, kind, id] = String(row.archsk).split('#');
      const { Item: entity } = await db().send(
        new GetCommand({ TableName: tableName(), Key: { pk: row.pk, sk: row.sk } }),
      );
      yield { kind, id, at, entity };
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
