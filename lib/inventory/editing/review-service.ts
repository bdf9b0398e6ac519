/**
 * Reviewing items (spec: Inventory: POST /api/inventory/{job_id}/approve and
 * /auto-approve). Approving and flagging stay allowed on items frozen by the
 * estimation platform send; their undo lives with the other item restorers
 * (edit-service.ts).
 */
import pLimit from 'p-limit';
import { recordActivity } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { NotFoundError } from '../../errors';
import { loadAutoApprovalRules } from '../../settings/automation-service';
import { ITEM_NOT_FOUND } from '../access-service';
import { loadJobForTeam } from '../../jobs/access-service';
import { loadItemForReview } from '../access-service';
import { approvalChangeOf, approvalLabelOf, autoApprovalPicksOf, itemsTargetOf, revisionOf } from './edit-rules';
import { updateItemRecord } from './edit-service';
import { listJobItems, updateItemFields } from '../item-store';
import type { InventoryItem } from '../item-record-rules';

/** Most items one auto-approval run approves (its undo record must fit one activity entry); run it again for more. */
const MAX_AUTO_APPROVED = 2500;
const WRITES_IN_FLIGHT = 16;

/**
 * POST /api/inventory/{job_id}/approve: approve or unapprove one item of the
 * job, and/or set or clear its review flag. An item of another job is 404,
 * as if missing: the route addresses the job's items.
 */
export async function setItemApproval(
  identity: Identity,
  jobId: string,
  body: { item_id: string; approved?: boolean; needs_review?: boolean },
) {
  const job = await loadJobForTeam(identity, jobId);
  return updateItemRecord(identity, body.item_id, {
    load: async (caller, itemId) => {
      const loaded = await loadItemForReview(caller, itemId);
      if (loaded.item.job_id !== job.id) throw new NotFoundError(ITEM_NOT_FOUND);
      return loaded;
    },
    plan: (item) => approvalChangeOf(item, body),
    action_type: 'approve_item',
    label: approvalLabelOf,
  });
}

/**
 * POST /api/inventory/{job_id}/auto-approve: the team's saved rules applied to
 * the job's unapproved, unarchived items. Each approval is conditional on the
 * revision read; an item someone changed meanwhile is left for the next run.
 * One activity entry whose undo unapproves them all.
 */
export async function approveJobItems(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  // The rules of the team owning the job, also when an admin of another team asks.
  const rules = await loadAutoApprovalRules(job.team_id);
  const picks = autoApprovalPicksOf(await listJobItems(job.id), rules).slice(0, MAX_AUTO_APPROVED);
  const limit = pLimit(WRITES_IN_FLIGHT);
  const outcomes = await Promise.all(
    picks.map((item) =>
      limit(async () => {
        const after = await updateItemFields(item.id, { approved: true }, { expectedRev: revisionOf(item) });
        return after ? { item: after, before: { approved: item.approved } } : null;
      }),
    ),
  );
  const approved = outcomes.filter((o): o is { item: InventoryItem; before: { approved: boolean } } => o !== null);
  if (approved.length) {
    await recordActivity(identity.actor, {
      team_id: job.team_id,
      action_type: 'auto_approve_items',
      action_label: `Auto-approved ${approved.length} item${approved.length === 1 ? '' : 's'}`,
      target: itemsTargetOf(approved.map((a) => a.item)),
      entity_type: 'job',
      entity_id: job.id,
      snapshot: { items: approved.map((a) => ({ id: a.item.id, before: a.before, rev: revisionOf(a.item) })) },
      restorable: true,
    });
  }
  const itemIds = approved.map((a) => a.item.id);
  return { approved: itemIds.length, item_ids: itemIds };
}
