/**
 * Permanent deletion of a claim or room "with everything beneath it and its
 * files" (spec: archived things after 30 days; admin hard delete). Idempotent:
 * a redelivered request finds less to delete and finishes the rest.
 *
 * Every entity that hangs below a room must be deleted here; a new child kind
 * added in a later capability extends deleteRoomRows.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, partitionKeys } from '../db/batch';
import { jobRowKeys } from '../jobs/job';
import { deletePrefix } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { settings } from '../config';
import { db, tableName } from '../db/client';
import { indexes, keys } from '../db/keys';
import { queryAll } from '../db/query';
import { logger } from '../observability/logger';
import { requestPurge, type PurgeRequest } from './requests';

async function deleteRoomRows(roomId: string, teamId: string, claimId: string): Promise<number> {
  const [jobs, items] = await Promise.all([
    queryAll<{ id: string }>(indexes.roomJobs(roomId), { ProjectionExpression: 'id' }),
    queryAll<{ id: string }>(indexes.roomItems(roomId), { ProjectionExpression: 'id' }),
  ]);
  // An item's partition holds the item and its ItemPhoto rows.
  const rows = (await Promise.all(items.map((i) => partitionKeys(keys.item(i.id).pk)))).flat();
  for (const job of jobs) {
    await deletePrefix(blobKeys.jobPrefix(teamId, claimId, job.id));
    rows.push(...(await jobRowKeys(job.id)));
  }
  await deleteKeys([...rows, keys.room(roomId)]);
  return rows.length + 1;
}

export async function purge(request: PurgeRequest): Promise<void> {
  if (request.kind === 'room') {
    const rows = await deleteRoomRows(request.room_id, request.team_id, request.claim_id);
    logger.info('purged room', { room_id: request.room_id, rows });
    return;
  }
  const rooms = await queryAll<{ id: string }>(indexes.claimRooms(request.claim_id), { ProjectionExpression: 'id' });
  let rows = 0;
  for (const room of rooms) rows += await deleteRoomRows(room.id, request.team_id, request.claim_id);
  const objects = await deletePrefix(blobKeys.claimPrefix(request.team_id, request.claim_id));
  await deleteKeys([keys.claim(request.claim_id)]);
  logger.info('purged claim', { claim_id: request.claim_id, rooms: rooms.length, rows, objects });
}

/**
 * The daily purge: everything archived longer than ARCHIVE_PURGE_DAYS ago is
 * queued for permanent deletion. Reads only the sparse archived index.
 */
export async function queueExpiredArchives(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - settings().ARCHIVE_PURGE_DAYS * 86_400_000).toISOString();
  let queued = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: indexes.archived().index,
        KeyConditionExpression: 'archpk = :pk AND archsk < :cutoff',
        ExpressionAttributeValues: { ':pk': indexes.archived().pk, ':cutoff': cutoff },
        ExclusiveStartKey,
      }),
    );
    for (const row of page.Items ?? []) {
      const [, kind, id] = String(row.archsk).split('#');
      const { Item: entity } = await db().send(
        new GetCommand({ TableName: tableName(), Key: { pk: row.pk, sk: row.sk } }),
      );
      if (!entity) continue;
      if (kind === 'claim') await requestPurge({ kind: 'claim', claim_id: id, team_id: String(entity.team_id) });
      else if (kind === 'room')
        await requestPurge({
          kind: 'room',
          room_id: id,
          claim_id: String(entity.claim_id),
          team_id: String(entity.team_id),
        });
      else continue;
      queued++;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return queued;
}
