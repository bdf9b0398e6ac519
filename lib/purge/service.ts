/**
 * Permanent deletion of a claim, room or item "with everything beneath it and
 * its files" (spec: archived things after 30 days; admin hard delete).
 * Idempotent: a redelivered request finds less to delete and finishes the rest.
 *
 * Every entity that hangs below a room must be deleted here; a new child kind
 * added in a later capability extends purgeRoomRows.
 */
import { deletePrefix } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { deleteObject } from '../blob/objects';
import { deleteClaimRow } from '../claims/store';
import { deleteClaimInsuredLinks } from '../insured/store';
import { deleteEstimationSend } from '../sends/estimation-store';
import { deleteClaimSubmissions } from '../sends/submission-store';
import { settings } from '../config';
import { deleteKeys } from '../db/batch';
import { jobRowKeys, purgeJobRows } from '../jobs/job-store';
import { logger } from '../observability/logger';
import { sendToQueue } from '../queue/queues';
import { deleteArchivedItemRow, deletePhotoRows, listItemPhotoRows, objectKeysInUse } from './item-store';
import { purgeRequest, type PurgeRequest } from './schemas';
import { archivedBefore, deleteRoomAndRows, listClaimImports, listClaimRoomIds, listRoomChildren } from './store';

export async function requestPurge(request: PurgeRequest): Promise<void> {
  await sendToQueue('purge', purgeRequest.parse(request));
}

async function purgeRoomRows(roomId: string, teamId: string, claimId: string): Promise<number> {
  const { jobIds, itemRows } = await listRoomChildren(roomId);
  for (const jobId of jobIds) {
    await deletePrefix(blobKeys.jobPrefix(teamId, claimId, jobId));
    // The job and its rows go here, the job out of the admin lists' totals with it.
    await purgeJobRows(jobId);
  }
  return deleteRoomAndRows(roomId, itemRows);
}

/**
 * An archived item: its row, its photo rows and the objects they show. The
 * item row goes first (only if it is still archived as the daily purge saw
 * it), the photo rows last, so a redelivered request still finds the photos
 * whose objects it has to delete. An object stays when another item of the
 * claim or a job's staged photo still shows it (the items of one photo group
 * share it; the staged photo is the job's own file), and when it lies outside
 * the claim's files (a photo moved in from another claim stays with that claim).
 */
async function purgeItem(request: Extract<PurgeRequest, { kind: 'item' }>): Promise<void> {
  const row = await deleteArchivedItemRow(request.item_id, request.archived_at);
  if (row === 'kept') {
    logger.info('item purge skipped: no longer archived as queued', { item_id: request.item_id });
    return;
  }
  const photos = await listItemPhotoRows(request.item_id);
  const claimFiles = blobKeys.claimPrefix(request.team_id, request.claim_id);
  const candidates = [...new Set(photos.map((p) => p.object_key))].filter((key) => key.startsWith(claimFiles));
  const inUse = candidates.length
    ? await objectKeysInUse(request.claim_id, [...new Set(photos.map((p) => p.job_id))], request.item_id, candidates)
    : new Set<string>();
  const objects = candidates.filter((key) => !inUse.has(key));
  await Promise.all(objects.map(deleteObject));
  await deletePhotoRows(photos.map((p) => p.row));
  logger.info('purged item', { item_id: request.item_id, row, photos: photos.length, objects: objects.length });
}

/** Handles one purge request from the queue. */
export async function purge(request: PurgeRequest): Promise<void> {
  if (request.kind === 'item') return purgeItem(request);
  if (request.kind === 'room') {
    const rows = await purgeRoomRows(request.room_id, request.team_id, request.claim_id);
    logger.info('purged room', { room_id: request.room_id, rows });
    return;
  }
  const roomIds = await listClaimRoomIds(request.claim_id);
  let rows = 0;
  for (const roomId of roomIds) rows += await purgeRoomRows(roomId, request.team_id, request.claim_id);
  // Contents-list imports: their reader jobs belong to no room; their files are under the claim's prefix.
  const imports = await listClaimImports(request.claim_id);
  const importRows = [...imports.batchRows];
  for (const jobId of imports.readerJobIds) importRows.push(...(await jobRowKeys(jobId)));
  await deleteKeys(importRows);
  rows += importRows.length;
  const objects = await deletePrefix(blobKeys.claimPrefix(request.team_id, request.claim_id));
  await deleteEstimationSend(request.claim_id);
  await deleteClaimSubmissions(request.claim_id);
  await deleteClaimInsuredLinks(request.claim_id);
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
  for await (const { kind, id, at, entity } of archivedBefore(cutoff)) {
    if (!entity) continue;
    if (kind === 'claim') await requestPurge({ kind: 'claim', claim_id: id, team_id: String(entity.team_id) });
    else if (kind === 'room')
      await requestPurge({
        kind: 'room',
        room_id: id,
        claim_id: String(entity.claim_id),
        team_id: String(entity.team_id),
      });
    else if (kind === 'item')
      await requestPurge({
        kind: 'item',
        item_id: id,
        claim_id: String(entity.claim_id),
        team_id: String(entity.team_id),
        archived_at: at,
      });
    else continue;
    queued++;
  }
  return queued;
}
