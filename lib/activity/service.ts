/**
 * The activity log (spec: Other records > Activity entry; Outbound signals).
 * Non-restorable actions: uploads, sign-in and sign-out, claims platform
 * submission, rename_room, impersonate_user, estimation lock toggles.
 */
import { randomUUID } from 'node:crypto';
import type { Actor, Identity } from '../auth/identity-rules';
import { captureAnalytics } from '../observability/analytics';
import { activityEvent } from '../observability/analytics-rules';
import { listTeamActivity, putActivity, type ActivityEntry } from './store';

/** Applies one restorable entry's snapshot (POST /api/activity/{log_id}/restore); entity_id is always set. */
export type Restorer = (entry: ActivityEntry & { entity_id: string }, identity: Identity) => Promise<unknown>;

export interface NewActivity {
  /**
   * The team whose feed the entry belongs to: the team that owns what was acted
   * on, which is not the actor's own team when an admin acts across teams.
   */
  team_id: string;
  action_type: string;
  action_label: string;
  target: string;
  entity_type?: string;
  entity_id?: string;
  snapshot?: Record<string, unknown>;
  restorable: boolean;
}

/** Writes an entry with the acting user as actor, and mirrors it to product analytics (ids and kinds only). */
export async function recordActivity(actor: Actor, entry: NewActivity, now = new Date()): Promise<ActivityEntry> {
  const created_at = now.toISOString();
  const row: ActivityEntry = {
    id: randomUUID(),
    team_id: entry.team_id,
    user_id: actor.user_id,
    user_name: actor.user_name,
    action_type: entry.action_type,
    action_label: entry.action_label,
    target: entry.target,
    entity_type: entry.entity_type ?? null,
    entity_id: entry.entity_id ?? null,
    snapshot: entry.snapshot ?? null,
    restorable: entry.restorable,
    restored_at: null,
    restored_by_user_id: null,
    impersonated_by: actor.impersonated_by ?? null,
    created_at,
  };
  await putActivity(row);
  captureAnalytics(activityEvent(row));
  return row;
}

/** GET /api/activity: the caller's team feed, newest first. */
export async function listActivity(identity: Identity, page: { limit: number; cursor?: string }) {
  return listTeamActivity(identity.team.id, page);
}
