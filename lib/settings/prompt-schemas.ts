/**
 * The team's prompt settings file and the PUT /api/settings/prompts body
 * (spec: What the service does 7). A team may replace either photo prompt
 * (null = the built-in default) and keep named presets.
 */
import * as z from 'zod';

/** Character cap per prompt text (a custom prompt or either text of a preset). */
export const PROMPT_MAX_CHARS = 6000;
export const PROMPT_MAX_PRESETS = 20;
const PRESET_NAME_MAX_CHARS = 80;

const promptText = z
  .string({ message: 'must be text' })
  .trim()
  .min(1, 'must not be blank')
  .max(PROMPT_MAX_CHARS, `must be at most ${PROMPT_MAX_CHARS} characters`);

const promptPreset = z.strictObject({
  name: z
    .string({ message: 'must be text' })
    .trim()
    .min(1, 'must not be blank')
    .max(PRESET_NAME_MAX_CHARS, `must be at most ${PRESET_NAME_MAX_CHARS} characters`),
  merged: promptText,
  unmerged: promptText,
});

/**
 * The stored file and the PUT body (a full replace: a field left out takes its
 * default). merged/unmerged null = use the built-in default.
 */
export const promptSettingsSchema = z
  .strictObject({
    merged: promptText.nullable().default(null),
    unmerged: promptText.nullable().default(null),
    presets: z.array(promptPreset).max(PROMPT_MAX_PRESETS, `at most ${PROMPT_MAX_PRESETS} presets`).default([]),
  })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.presets.forEach((preset, i) => {
      const key = preset.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['presets', i, 'name'],
          message: `duplicate preset name "${preset.name}" (names are compared ignoring case)`,
        });
      seen.add(key);
    });
  });

export type PromptSettings = z.output<typeof promptSettingsSchema>;
export type PromptPreset = z.output<typeof promptPreset>;

export const DEFAULT_PROMPT_SETTINGS: PromptSettings = { merged: null, unmerged: null, presets: [] };
