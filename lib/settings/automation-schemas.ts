/**
 * The team's automation settings file and the PUT /api/settings/automation
 * body (spec: What the service does 7): the auto-approval rules applied after
 * synthesis. How the rules judge an item lives in lib/inventory/editing/auto-approval-rules.ts.
 */
import * as z from 'zod';

const MAX_EXCLUDE_KEYWORDS = 50;
const EXCLUDE_KEYWORD_MAX_CHARS = 60;

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
