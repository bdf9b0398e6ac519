/** Prompt settings use cases (spec: Endpoints: GET/PUT /api/settings/prompts; Photo pipeline 4). */
import { recordActivity, type Restorer } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { describePromptChanges, promptChangeLabel, resolvePrompts, type EffectivePrompts } from './prompt-rules';
import { promptSettingsSchema, type PromptSettings } from './prompt-schemas';
import { promptSettingsView } from './prompt-view';
import { getPromptSettings, putPromptSettings } from './store';

/** The prompts the photo pipeline sends for this team. */
export async function loadEffectivePrompts(teamId: string): Promise<EffectivePrompts> {
  return resolvePrompts(await getPromptSettings(teamId));
}

/** GET /api/settings/prompts. */
export async function showPromptSettings(identity: Identity) {
  return promptSettingsView(await getPromptSettings(identity.team.id));
}

/**
 * PUT /api/settings/prompts: replaces the settings and logs what changed with
 * the settings before it (restorable). A PUT that changes nothing writes nothing.
 */
export async function updatePromptSettings(identity: Identity, body: PromptSettings) {
  const teamId = identity.team.id;
  const before = await getPromptSettings(teamId);
  const changes = describePromptChanges(before, body);
  if (changes.length === 0) return promptSettingsView(before);
  const after = await putPromptSettings(teamId, body);
  await recordActivity(identity.actor, {
    team_id: teamId,
    action_type: 'update_prompt_settings',
    action_label: promptChangeLabel(changes),
    target: 'Prompt settings',
    entity_type: 'team_settings',
    entity_id: teamId,
    snapshot: { before },
    restorable: true,
  });
  return promptSettingsView(after);
}

/** Undo of update_prompt_settings: the settings as they were before. */
async function restorePromptSettings(teamId: string, snapshot: Record<string, unknown> | null): Promise<void> {
  const before = promptSettingsSchema.safeParse(snapshot?.before);
  if (!before.success) throw new Error('update_prompt_settings snapshot is not a valid prompt settings shape');
  await putPromptSettings(teamId, before.data);
}

/** Undo of a change of the team's prompt settings; the entry is the team's own (entity_id is the team id). */
export const promptSettingsRestorers: Record<string, Restorer> = {
  update_prompt_settings: async (e) => restorePromptSettings(e.team_id, e.snapshot),
};
