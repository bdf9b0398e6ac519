/**
 * The team's automation settings (spec: What the service does 7; Endpoints:
 * GET/PUT /api/settings/automation): the auto-approval rules applied after
 * synthesis and by POST /api/inventory/{job_id}/auto-approve. How the rules
 * judge an item lives in lib/inventory/auto-approval.ts.
 */
import * as z from 'zod';
import type { Identity } from '../auth/identity';
import { recordActivity } from '../activity/log';
import { readTeamSettings, writeTeamSettings } from './store';

export const MAX_EXCLUDE_KEYWORDS = 50;
export const EXCLUDE_KEYWORD_MAX_CHARS = 60;

export const autoApproveRulesSchema = z.strictObject({
  enabled: z.boolean({ message: 'must be true or false' }).default(false),
  /** Items below this confidence are left for a person. */
  min_confidence: z
    .number({ message: 'must be a number' })
    .min(0, 'must be between 0 and 1')
    .max(1, 'must be between 0 and 1')
    .default(0.85),
  /** Only items with an estimated price are approved. */
  require_price: z.boolean({ message: 'must be true or false' }).default(false),
  /** Items priced above this (USD, per unit) are left for a person; null = no ceiling. */
  max_estimated_price: z
    .number({ message: 'must be a number' })
    .min(0, 'must not be negative')
    .nullable()
    .default(null),
  /** Items whose name contains any of these (ignoring case) are left for a person. */
  exclude_name_keywords: z
    .array(
      z
        .string({ message: 'must be text' })
        .trim()
        .min(1, 'must not be blank')
        .max(EXCLUDE_KEYWORD_MAX_CHARS, `must be at most ${EXCLUDE_KEYWORD_MAX_CHARS} characters`),
    )
    .max(MAX_EXCLUDE_KEYWORDS, `at most ${MAX_EXCLUDE_KEYWORDS} keywords`)
    .default([]),
});

/** The stored file and the PUT body (a full replace: a field left out takes its default). */
export const automationSettingsSchema = z.strictObject({
  auto_approve: autoApproveRulesSchema.default(() => autoApproveRulesSchema.parse({})),
});

export type AutoApproveRules = z.output<typeof autoApproveRulesSchema>;
export type AutomationSettings = z.output<typeof automationSettingsSchema>;

export const DEFAULT_AUTOMATION_SETTINGS: AutomationSettings = automationSettingsSchema.parse({});

const FILE = 'automation_settings.json';

export async function getAutomationSettings(teamId: string): Promise<AutomationSettings> {
  return (await readTeamSettings(teamId, FILE, automationSettingsSchema)).settings;
}

export async function putAutomationSettings(
  teamId: string,
  settings: z.input<typeof automationSettingsSchema>,
): Promise<AutomationSettings> {
  const valid = automationSettingsSchema.parse(settings);
  await writeTeamSettings(teamId, FILE, valid);
  return valid;
}

const money = (v: number | null) => (v === null ? 'no limit' : `$${v}`);
const keywordKey = (k: string) => k.toLowerCase();

/** What a change did, as a person reads it in the activity feed. Empty when nothing changed. */
export function describeAutomationChanges(before: AutomationSettings, after: AutomationSettings): string[] {
  const [b, a] = [before.auto_approve, after.auto_approve];
  const changes: string[] = [];
  if (b.enabled !== a.enabled) changes.push(a.enabled ? 'turned on auto-approval' : 'turned off auto-approval');
  if (b.min_confidence !== a.min_confidence)
    changes.push(`minimum confidence ${b.min_confidence} → ${a.min_confidence}`);
  if (b.require_price !== a.require_price)
    changes.push(a.require_price ? 'now requires a price' : 'no longer requires a price');
  if (b.max_estimated_price !== a.max_estimated_price)
    changes.push(`price ceiling ${money(b.max_estimated_price)} → ${money(a.max_estimated_price)}`);
  const [was, now] = [
    new Set(b.exclude_name_keywords.map(keywordKey)),
    new Set(a.exclude_name_keywords.map(keywordKey)),
  ];
  const added = a.exclude_name_keywords.filter((k) => !was.has(keywordKey(k)));
  const removed = b.exclude_name_keywords.filter((k) => !now.has(keywordKey(k)));
  if (added.length) changes.push(`excluded keywords added: ${added.join(', ')}`);
  if (removed.length) changes.push(`excluded keywords removed: ${removed.join(', ')}`);
  if (
    !added.length &&
    !removed.length &&
    JSON.stringify(b.exclude_name_keywords) !== JSON.stringify(a.exclude_name_keywords)
  )
    changes.push('edited the excluded keywords');
  return changes;
}

export const automationChangeLabel = (changes: string[]) => `Auto-approval settings: ${changes.join('; ')}`;

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
export async function restoreAutomationSettings(
  teamId: string,
  snapshot: Record<string, unknown> | null,
): Promise<void> {
  const before = automationSettingsSchema.safeParse(snapshot?.before);
  if (!before.success) throw new Error('update_automation_settings snapshot is not a valid automation settings shape');
  await putAutomationSettings(teamId, before.data);
}
