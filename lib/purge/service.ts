/**
 * Permanent deletion of a claim or room "with everything beneath it and its
 * files" (spec: archived things after 30 days; admin hard delete). Idempotent:
 * a redelivered request finds less to delete and finishes the rest.
 *
 * Every entity that hangs below a room must be deleted here; a new child kind
 * added in a later capability extends purgeRoomRows.
 */
import { deletePrefix } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { deleteClaimRow } from '../claims/store';
import { settings } from '../config';
import { jobRowKeys } from '../jobs/job-store';
import { logger } from '../observability/logger';
import { sendToQueue } from '../queue/queues';
import { purgeRequest, type PurgeRequest } from './schemas';
import { archivedBefore, deleteRoomAndRows, listClaimRoomIds, listRoomChildren } from './store';

export async function requestPurge(request: PurgeRequest): Promise<void> {
  await sendToQueue('purge', purgeRequest.parse(request));
}

async function purgeRoomRows(roomId: string, teamId: string, claimId: string): Promise<number> {
  const { jobIds, itemRows } = await listRoomChildren(roomId);
  const rows = [...itemRows];
  for (const jobId of jobIds) {
    await deletePrefix(blobKeys.jobPrefix(teamId, claimId, jobId));
    rows.push(...(await jobRowKeys(jobId)));
  }
  return deleteRoomAndRows(roomId, rows);
}

/** Handles one purge request from the queue. */
export async function purge(request: PurgeRequest): Promise<void> {
  if (request.kind === 'room') {
    const rows = await purgeRoomRows(request.room_id, request.team_id, request.claim_id);
    logger.info('purged room', { room_id: request.room_id, rows });
    return;
  }
  const roomIds = await listClaimRoomIds(request.claim_id);
  let rows = 0;
  for (const roomId of roomIds) rows += await purgeRoomRows(roomId, request.team_id, request.claim_id);
  const objects = await deletePrefix(blobKeys.claimPrefix(request.team_id, request.claim_id));
  await deleteClaimRow(request.claim_id);
  logger.info('purged claim', { claim_id: request.claim_id, rooms: roomIds.length, rows, objects });
}

/**
 * The daily purge: everything archived longer than ARCHIVE_PURGE_DAYS ago is
 * queued for permanent deletion.
 */
export async function queueExpiredArchives(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - settings().ARCHIVE_PURGE_DAYS * 86_400_000).toISOString();
  let queued = 0;
  for await (const { kind, id, entity } of archivedBefore(cutoff)) {
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
  return queued;
}
