/**
 * Team scoping (spec: Authentication > Team scoping). The ownership chain is
 * InventoryItem > ProcessingJob > Room > Claim.team_id. The id-loading helpers
 * answer 404 for both a missing id and another team's id; allowlisted admins
 * bypass ownership on id-addressed resources. List endpoints stay scoped to the
 * caller's own team.
 */
import type { Identity } from '../auth/identity-rules';
import { getConnection, type StorageConnection } from '../capture/store';
import { getClaim, type Claim } from '../claims/store';
import { ForbiddenError, NotFoundError } from '../errors';
import { getItem, type InventoryItem } from '../inventory/item-store';
import { getImportBatch, type ImportBatch } from '../imports/store';
import { getJob, type Job } from '../jobs/job-store';
import { getRoom, type Room } from '../rooms/store';

export const CLAIM_NOT_FOUND = 'Claim not found';
export const ROOM_NOT_FOUND = 'Room not found';
export const JOB_NOT_FOUND = 'Job not found';
export const ITEM_NOT_FOUND = 'Item not found';
const IMPORT_NOT_FOUND = 'Import not found';
const CONNECTION_NOT_FOUND = 'Connection not found';

function owns(identity: Identity, teamId: string): boolean {
  return identity.isAdmin || identity.team.id === teamId;
}

/** load_claim_for_team: 404 for a missing claim and for another team's claim. */
export async function loadClaimForTeam(identity: Identity, claimId: string): Promise<Claim> {
  const claim = await getClaim(claimId, true);
  if (!claim || !owns(identity, claim.team_id)) throw new NotFoundError(CLAIM_NOT_FOUND);
  return claim;
}

/** For the claim-level routes that refuse another team's claim as forbidden (GET /api/claims/{id}). */
export async function loadClaimOrForbidden(identity: Identity, claimId: string): Promise<Claim> {
  const claim = await getClaim(claimId, true);
  if (!claim) throw new NotFoundError(CLAIM_NOT_FOUND);
  if (!owns(identity, claim.team_id)) throw new ForbiddenError('This claim belongs to another team.');
  return claim;
}

/** load_room_for_team: 404 for a missing room and for another team's room. */
export async function loadRoomForTeam(identity: Identity, roomId: string): Promise<Room> {
  const room = await getRoom(roomId, true);
  if (!room || !owns(identity, room.team_id)) throw new NotFoundError(ROOM_NOT_FOUND);
  return room;
}

/** load_job_for_team: 404 for a missing job and for another team's job. */
export async function loadJobForTeam(identity: Identity, jobId: string): Promise<Job> {
  const job = await getJob(jobId, true);
  if (!job || !owns(identity, job.team_id)) throw new NotFoundError(JOB_NOT_FOUND);
  return job;
}

/** load_item_for_team: 404 for a missing item and for another team's item (items carry their team id). */
export async function loadItemForTeam(identity: Identity, itemId: string): Promise<InventoryItem> {
  const item = await getItem(itemId);
  if (!item || !owns(identity, item.team_id)) throw new NotFoundError(ITEM_NOT_FOUND);
  return item;
}

/** An ImportBatch: 404 for a missing batch and for another team's batch. */
export async function loadImportBatchForTeam(identity: Identity, batchId: string): Promise<ImportBatch> {
  const batch = await getImportBatch(batchId);
  if (!batch || !owns(identity, batch.team_id)) throw new NotFoundError(IMPORT_NOT_FOUND);
  return batch;
}

/** A storage connection of the caller's team: 404 for a missing one and for another team's. */
export async function loadConnectionForTeam(identity: Identity, connectionId: string): Promise<StorageConnection> {
  const connection = await getConnection(connectionId);
  if (!connection || !owns(identity, connection.team_id)) throw new NotFoundError(CONNECTION_NOT_FOUND);
  return connection;
}
