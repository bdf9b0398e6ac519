/** Prompt settings as the API shows them (spec: Endpoints: GET/PUT /api/settings/prompts). */
import { DEFAULT_PROMPTS, resolvePrompts } from './prompt-rules';
import { PROMPT_MAX_CHARS, PROMPT_MAX_PRESETS, type PromptSettings } from './prompt-schemas';

/** What GET (and PUT) /api/settings/prompts answers. */
export function promptSettingsView(settings: PromptSettings) {
  const effective = resolvePrompts(settings);
  return {
    merged: settings.merged,
    unmerged: settings.unmerged,
    presets: settings.presets,
    defaults: { merged: DEFAULT_PROMPTS.merged, unmerged: DEFAULT_PROMPTS.unmerged },
    effective: { merged: effective.merged, unmerged: effective.unmerged },
    max_chars: PROMPT_MAX_CHARS,
    max_presets: PROMPT_MAX_PRESETS,
  };
}
