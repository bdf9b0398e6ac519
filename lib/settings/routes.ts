import * as z from 'zod';
import { defineRoute } from '../http/route';
import { automationSettingsSchema } from './automation-schemas';
import { PROMPT_MAX_CHARS, PROMPT_MAX_PRESETS, promptSettingsSchema } from './prompt-schemas';

const promptPair = z.object({ merged: z.string(), unmerged: z.string() });

const promptSettingsResponse = z.object({
  merged: z.string().nullable(),
  unmerged: z.string().nullable(),
  presets: z.array(z.object({ name: z.string(), merged: z.string(), unmerged: z.string() })),
  defaults: promptPair,
  effective: promptPair,
  max_chars: z.number(),
  max_presets: z.number(),
});

const automationSettingsResponse = z.object({
  auto_approve: z.object({
    enabled: z.boolean(),
    min_confidence: z.number(),
    require_price: z.boolean(),
    max_estimated_price: z.number().nullable(),
    exclude_name_keywords: z.array(z.string()),
  }),
});

export const settingsRoutes = {
  getAutomation: defineRoute({
    name: 'getAutomationSettings',
    method: 'GET',
    path: '/api/settings/automation',
    auth: 'user',
    tag: 'settings',
    summary: "The team's auto-approval rules (the defaults until someone saves them).",
    handler: 'api/settings/get-automation-settings',
    response: automationSettingsResponse,
  }),
  putAutomation: defineRoute({
    name: 'putAutomationSettings',
    method: 'PUT',
    path: '/api/settings/automation',
    auth: 'actor',
    tag: 'settings',
    summary:
      "Replace the team's auto-approval rules (fields left out take their defaults). Logs what changed with the rules before it (restorable).",
    handler: 'api/settings/put-automation-settings',
    body: automationSettingsSchema,
    response: automationSettingsResponse,
  }),
  getPrompts: defineRoute({
    name: 'getPromptSettings',
    method: 'GET',
    path: '/api/settings/prompts',
    auth: 'user',
    tag: 'settings',
    summary:
      "The team's photo prompts ('merged': several photos of one item; 'unmerged': one photo), presets, the built-in defaults, what the pipeline will use, and the caps.",
    handler: 'api/settings/get-prompt-settings',
    response: promptSettingsResponse,
  }),
  putPrompts: defineRoute({
    name: 'putPromptSettings',
    method: 'PUT',
    path: '/api/settings/prompts',
    auth: 'actor',
    tag: 'settings',
    summary: `Replace the team's prompt settings: merged and unmerged (null = built-in default) and presets (at most ${PROMPT_MAX_PRESETS}, unique names). Each text at most ${PROMPT_MAX_CHARS} characters. Logs what changed (restorable).`,
    handler: 'api/settings/put-prompt-settings',
    body: promptSettingsSchema,
    response: promptSettingsResponse,
  }),
};
