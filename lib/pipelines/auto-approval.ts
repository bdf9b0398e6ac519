/**
 * Auto-approval after synthesis, for every pipeline that saves items: when
 * the team turned it on, the new items its rules accept are approved.
 */
import { shouldAutoApprove } from '../inventory/editing/auto-approval-rules';
import { setItemsApproved } from '../inventory/item-store';
import type { InventoryItem } from '../inventory/item-record-rules';
import type { StageContext } from '../orchestrator/pipeline';
import { loadAutoApprovalRules } from '../settings/automation-service';

export async function autoApprove(ctx: StageContext, items: InventoryItem[]): Promise<void> {
  const rules = await loadAutoApprovalRules(ctx.job.team_id);
  if (!rules) return;
  const approved = items.filter((item) => shouldAutoApprove(item, rules)).map((i) => i.id);
  await setItemsApproved(approved);
  if (approved.length) await ctx.log.info(`Auto-approved ${approved.length} item(s)`);
}
