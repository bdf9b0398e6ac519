/** Automation settings use cases (spec: Endpoints: GET/PUT /api/settings/automation; Processing rules 4). */
import { recordActivity, type Restorer } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { automationChangeLabel, describeAutomationChanges } from './automation-rules';
import { automationSettingsSchema, type AutomationSettings, type AutoApproveRules } from './automation-schemas';
import { getAutomationSettings, putAutomationSettings } from './store';

/** GET /api/settings/automation: the saved rules, or the defaults until someone saves them. */
export async function showAutomationSettings(identity: Identity): Promise<AutomationSettings> {
  return getAutomationSettings(identity.team.id);
}

/** The team's auto-approval rules, or null when auto-approval is off. */
export async function loadAutoApprovalRules(teamId: string): Promise<AutoApproveRules | null> {
  const { auto_approve } = await getAutomationSettings(teamId);
  return auto_approve.enabled ? auto_approve : null;
}

/**
 * PUT /api/settings/automation: replaces the settings and logs what changed
 * with the settings before it (restorable). A PUT that changes nothing writes nothing.
 */
export async function updateAutomationSettings(
  identity: Identity,
  body: AutomationSettings,
): Promise<AutomationSettings> {
  const teamId = identity.team.id;
  const before = await getAutomationSettings(teamId);
  const changes = describeAutomationChanges(before, body);
  if (changes.length === 0) return before;
  const after = await putAutomationSettings(teamId, body);
  await recordActivity(identity.actor, {
    team_id: teamId,
    action_type: 'update_automation_settings',
    action_label: automationChangeLabel(changes),
    target: 'Automation settings',
    entity_type: 'team_settings',
    entity_id: teamId,
    snapshot: { before },
    restorable: true,
  });
  return after;
}

/** Undo of update_automation_settings: the settings as they were before. */
async function restoreAutomationSettings(teamId: string, snapshot: Record<string, unknown> | null): Promise<void> {
  const before = automationSettingsSchema.safeParse(snapshot?.before);
  if (!before.success) throw new Error('update_automation_settings snapshot is not a valid automation settings shape');
  await putAutomationSettings(teamId, before.data);
}

/** Undo of a change of the team's automation settings; the entry is the team's own (entity_id is the team id). */
export const automationSettingsRestorers: Record<string, Restorer> = {
  update_automation_settings: async (e) => restoreAutomationSettings(e.team_id, e.snapshot),
};
