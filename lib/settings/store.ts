/**
 * Per-team settings files (spec: What the service does 7): JSON objects in the
 * media bucket under team_settings/<team_id>/. A missing file means the
 * built-in defaults. Each PUT replaces the whole file (last writer wins, like
 * the single-server JSON files this replaces).
 */
import type * as z from 'zod';
import { blobKeys } from '../blob/keys';
import { putJson, readObject } from '../blob/objects';
import { logger } from '../observability/logger';
import { automationSettingsSchema, type AutomationSettings } from './automation-schemas';
import { promptSettingsSchema, type PromptSettings } from './prompt-schemas';

type TeamSettingsFile = 'automation_settings.json' | 'prompt_settings.json';

/**
 * The team's settings, or the schema's defaults when there is no file. A file
 * that no longer parses (edited by hand, or written by an older shape) must
 * not stop the pipeline: it is logged at error level and the defaults are used.
 */
async function readTeamSettings<S extends z.ZodType>(
  teamId: string,
  file: TeamSettingsFile,
  schema: S,
): Promise<{ settings: z.output<S>; stored: boolean }> {
  const key = blobKeys.teamSettings(teamId, file);
  const object = await readObject(key);
  if (object) {
    let raw: unknown;
    try {
      raw = JSON.parse(object.body.toString('utf8'));
    } catch {
      raw = undefined;
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) return { settings: parsed.data, stored: true };
    logger.error('unreadable team settings file; using the defaults', { key });
  }
  return { settings: schema.parse({}), stored: false };
}

async function writeTeamSettings(teamId: string, file: TeamSettingsFile, settings: unknown): Promise<void> {
  await putJson(blobKeys.teamSettings(teamId, file), settings);
}

export async function getPromptSettings(teamId: string): Promise<PromptSettings> {
  return (await readTeamSettings(teamId, 'prompt_settings.json', promptSettingsSchema)).settings;
}

/** Validates and replaces the team's prompt settings. */
export async function putPromptSettings(
  teamId: string,
  settings: z.input<typeof promptSettingsSchema>,
): Promise<PromptSettings> {
  const valid = promptSettingsSchema.parse(settings);
  await writeTeamSettings(teamId, 'prompt_settings.json', valid);
  return valid;
}

export async function getAutomationSettings(teamId: string): Promise<AutomationSettings> {
  return (await readTeamSettings(teamId, 'automation_settings.json', automationSettingsSchema)).settings;
}

/** Validates and replaces the team's automation settings. */
export async function putAutomationSettings(
  teamId: string,
  settings: z.input<typeof automationSettingsSchema>,
): Promise<AutomationSettings> {
  const valid = automationSettingsSchema.parse(settings);
  await writeTeamSettings(teamId, 'automation_settings.json', valid);
  return valid;
}
