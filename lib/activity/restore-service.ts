/**
 * Undo (POST /api/activity/{log_id}/restore). Each restorable action type has
 * one restorer that applies its snapshot; restoring is once only, decided by a
 * conditional write on the entry so two clicks cannot both apply. The
 * restorers come from the domains that write the entries.
 */
import type { Identity } from '../auth/identity-rules';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import { recordActivity, type Restorer } from './service';
import { getActivity, markRestored, unmarkRestored, type ActivityEntry } from './store';

/** `restorers`: each undoable action type's restorer, which the domains write (lib/api/undo-restorers.ts). */
export async function restoreActivity(
  identity: Identity,
  logId: string,
  restorers: Readonly<Record<string, Restorer>>,
) {
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
