/**
 * The one-time migration to per-item send tracking (spec: Estimation platform
 * send, the last paragraph). Claims sent before items carried
 * estimation_sent_at were sent whole: each of their items that existed at the
 * claim's estimation_submitted_at gets that time as its stamp; items created
 * later keep a null stamp (they were never sent). Only claims none of whose
 * items carries a stamp are such claims: a claim sent with per-item tracking
 * is left alone, so a run after the switch (or a second run) changes nothing
 * it should not.
 */
import { listClaimsSentToEstimation } from '../claims/store';
import { listRoomItems } from '../inventory/numbering/room-item-store';
import { updateItemFields } from '../inventory/item-store';
import { logger } from '../observability/logger';
import { listClaimRooms } from '../rooms/store';

export interface MigrationReport {
  /** Claims sent before per-item tracking, migrated by this run. */
  claims: number;
  stamped: number;
  /** Items of those claims created after their send: left unsent. */
  later: number;
}

export async function migrateEstimationSendTracking(): Promise<MigrationReport> {
  const report: MigrationReport = { claims: 0, stamped: 0, later: 0 };
  for (const claim of await listClaimsSentToEstimation()) {
    const sentAt = claim.estimation_submitted_at as string;
    // Archived rooms and items too: they were part of the claim when it was sent.
    const rooms = await listClaimRooms(claim.id);
    const items = (await Promise.all(rooms.map((room) => listRoomItems(room.id, { archived: true })))).flat();
    if (items.some((item) => item.estimation_sent_at)) continue;
    report.claims++;
    for (const item of items) {
      if (item.created_at > sentAt) {
        report.later++;
        continue;
      }
      if (await updateItemFields(item.id, { estimation_sent_at: sentAt })) report.stamped++;
    }
  }
  logger.info('estimation send tracking migration done', { ...report });
  return report;
}
