/**
 * Undo (POST /api/activity/{log_id}/restore). Each restorable action type has
 * one restorer that applies its snapshot; restoring is once only, decided by a
 * conditional write on the entry so two clicks cannot both apply.
 */
import type { Identity } from '../auth/identity-rules';
import { archiveClaimRecord, patchClaimRecord, unarchiveClaimRecord } from '../claims/service';
import type { ClaimPatch } from '../claims/store';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import { archiveRoomRecord, unarchiveRoomRecord } from '../rooms/service';
import { inventoryEditRestorers } from '../inventory/editing/edit-service';
import { itemPhotoRestorers } from '../inventory/photos/item-photo-service';
import { inventoryLifecycleRestorers } from '../inventory/editing/merge-service';
import { restoreAutomationSettings } from '../settings/automation-service';
import { restorePromptSettings } from '../settings/prompt-service';
import { loadClaimForTeam, loadRoomForTeam } from '../tenancy/service';
import { recordActivity, type Restorer } from './service';
import { getActivity, markRestored, unmarkRestored, type ActivityEntry } from './store';

const restorers: Record<string, Restorer> = {
  // Undo of adding a claim or room hides it (archive) rather than destroying what was added to it since.
  create_claim: async (e, id) => archiveClaimRecord(await loadClaimForTeam(id, e.entity_id)),
  update_claim: async (e, id) =>
    patchClaimRecord(await loadClaimForTeam(id, e.entity_id), (e.snapshot?.before ?? {}) as ClaimPatch),
  archive_claim: async (e, id) => unarchiveClaimRecord(await loadClaimForTeam(id, e.entity_id)),
  unarchive_claim: async (e, id) => archiveClaimRecord(await loadClaimForTeam(id, e.entity_id)),
  create_room: async (e, id) => archiveRoomRecord(await loadRoomForTeam(id, e.entity_id)),
  archive_room: async (e, id) => unarchiveRoomRecord(await loadRoomForTeam(id, e.entity_id)),
  unarchive_room: async (e, id) => archiveRoomRecord(await loadRoomForTeam(id, e.entity_id)),
  // Team settings entries are the team's own (restoreActivity checked the team); entity_id is the team id.
  update_automation_settings: async (e) => restoreAutomationSettings(e.team_id, e.snapshot),
  update_prompt_settings: async (e) => restorePromptSettings(e.team_id, e.snapshot),
  ...inventoryEditRestorers,
  ...itemPhotoRestorers,
  ...inventoryLifecycleRestorers,
};

export async function restoreActivity(identity: Identity, logId: string) {
  const entry = await getActivity(logId);
  if (!entry || (entry.team_id !== identity.team.id && !identity.isAdmin))
    throw new NotFoundError('Activity entry not found');
  const restorer = restorers[entry.action_type];
  if (!entry.restorable || !restorer || !entry.entity_id)
    throw new InvalidRequestError('This action cannot be undone.');
  if (entry.restored_at || !(await markRestored(entry.id, identity.user.id)))
    throw new ConflictError('This action has already been undone.');
  try {
    await restorer(entry as ActivityEntry & { entity_id: string }, identity);
  } catch (err) {
    await unmarkRestored(entry.id);
    throw err;
  }
  await recordActivity(identity.actor, {
    team_id: entry.team_id,
    action_type: 'restore',
    action_label: `Undid: ${entry.action_label}`,
    target: entry.target,
    entity_type: entry.entity_type ?? undefined,
    entity_id: entry.entity_id,
    restorable: false,
  });
  return { restored: true, entry: { ...(await getActivity(entry.id)) } };
}
