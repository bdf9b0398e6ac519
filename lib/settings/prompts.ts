/**
 * The photo pipeline's prompts (spec: Photo pipeline 4) and the team's prompt
 * settings (spec: What the service does 7; Endpoints: GET/PUT
 * /api/settings/prompts).
 *
 * - 'merged': a group of several photos of ONE item; the answer is exactly one item.
 * - 'unmerged': a single photo; the answer lists every item in it.
 * A team may replace either prompt (null = the built-in default) and keep
 * named presets. The JSON output contract is appended by the pipeline, so a
 * team's prompt can change the instructions but never the answer's shape.
 * Photo prompts never ask for a room or audio evidence (spec: Output budget).
 */
import * as z from 'zod';
import type { Identity } from '../auth/identity';
import { recordActivity } from '../activity/log';
import { readTeamSettings, writeTeamSettings } from './store';

export type PromptKind = 'merged' | 'unmerged';
export const PROMPT_KINDS: readonly PromptKind[] = ['merged', 'unmerged'];

/** Character cap per prompt text (a custom prompt or either text of a preset). */
export const PROMPT_MAX_CHARS = 6000;
export const PROMPT_MAX_PRESETS = 20;
export const PRESET_NAME_MAX_CHARS = 80;

const SCOPE = `Only inventory contents: movable personal property such as furniture, electronics, appliances, cabinets, housewares, clothing, tools, decor and other belongings. Never list walls, floors, ceilings, doors, windows, built-in plumbing (sinks, toilets, tubs, showers, faucets) or building systems (electrical wiring, outlets, lighting wired into the structure, HVAC, ductwork).`;

const FIELDS = `For each item fill in:
- name: a plain, specific name as an adjuster would write it, leading with what the item is (for example "Upholstered 3-seat sofa", "55-inch LED television", "Stand mixer"). Never put a brand alone in the name.
- quantity: how many identical units the line stands for.
- brand, model, serial, sku: only what you can read on a logo, label or nameplate, or recognize with certainty from a distinctive design. Copy codes exactly as printed. Leave a field empty rather than guess.
- condition: the condition you can see (New, Like new, Good, Fair or Poor).
- age: the approximate age, judged from the model generation, style and wear (for example "about 5 years").
- estimated price: the replacement cost in US dollars of ONE new unit of like kind and quality at today's typical retail price. Give your best estimate even without a brand; a well-identified item always has a price.
- damage notes: visible damage only (water staining, soot, smoke discoloration, burns, cracks, breakage, mold), described briefly. Leave empty when none is visible; do not speculate about damage you cannot see.
- confidence: a number from 0 to 1 for how sure you are of the identification and its key details. Use values below 0.6 when a person should check the item (partly hidden, blurry, unusual). Do not inflate it.
- evidence: what in the photo supports the identification (for example "KitchenAid logo on the base; model plate reads KSM150PS").
- bounding box: where the item is in the photo, as coordinates normalized to 0..1 of the image width and height, whenever the item is visible.`;

const CLOSING = `Base every answer on what the photos show. When a field cannot be supported by the photos or a reasonable estimate, leave it empty instead of inventing a value.`;

/** The built-in prompts, used when a team has not set its own. */
export const DEFAULT_PROMPTS: Readonly<Record<PromptKind, string>> = {
  merged: `You are an experienced contents inventory specialist preparing a property insurance claim.

All photos in this request show ONE single item, taken from different angles or distances: for example the whole item, its label or nameplate, and a close-up of damage. Identify that one item and return exactly one item. Combine the evidence of all photos: read brand, model and serial from whichever photo shows a legible label, and judge condition and damage from whichever photo shows them best. Do not list other objects that appear in the background, and do not split the item into parts. If the photos show a matched set sold as one unit (for example a pair of nightstands), return one item with the quantity of units.

${SCOPE}

${FIELDS}

${CLOSING}`,

  unmerged: `You are an experienced contents inventory specialist preparing a property insurance claim.

This request has ONE photo. List every distinct item in it that belongs in a contents inventory; there may be several. Identical items are one line with a quantity (for example four matching dining chairs are one line with quantity 4); items that differ in type, brand, model or size are separate lines. Never list the same item twice. Include smaller items when they can be identified; a group of small similar belongings that cannot be told apart (for example assorted paperback books) may be one line with an estimated count, stated in the evidence. Do not guess at things hidden inside closed cabinets, drawers or boxes. List larger and more valuable items first.

${SCOPE}

${FIELDS}

${CLOSING}`,
};

const promptText = z
  .string({ message: 'must be text' })
  .trim()
  .min(1, 'must not be blank')
  .max(PROMPT_MAX_CHARS, `must be at most ${PROMPT_MAX_CHARS} characters`);

export const promptPreset = z.strictObject({
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

const FILE = 'prompt_settings.json';

export async function getPromptSettings(teamId: string): Promise<PromptSettings> {
  return (await readTeamSettings(teamId, FILE, promptSettingsSchema)).settings;
}

/** Validates and replaces the team's prompt settings. */
export async function putPromptSettings(
  teamId: string,
  settings: z.input<typeof promptSettingsSchema>,
): Promise<PromptSettings> {
  const valid = promptSettingsSchema.parse(settings);
  await writeTeamSettings(teamId, FILE, valid);
  return valid;
}

export interface EffectivePrompts {
  merged: string;
  unmerged: string;
  source: Record<PromptKind, 'team' | 'default'>;
}

export function resolvePrompts(settings: PromptSettings): EffectivePrompts {
  return {
    merged: settings.merged ?? DEFAULT_PROMPTS.merged,
    unmerged: settings.unmerged ?? DEFAULT_PROMPTS.unmerged,
    source: {
      merged: settings.merged === null ? 'default' : 'team',
      unmerged: settings.unmerged === null ? 'default' : 'team',
    },
  };
}

/** The prompts the photo pipeline sends for this team. */
export async function effectivePrompts(teamId: string): Promise<EffectivePrompts> {
  return resolvePrompts(await getPromptSettings(teamId));
}

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

export async function getPromptSettingsView(teamId: string) {
  return promptSettingsView(await getPromptSettings(teamId));
}

/**
 * What a change did, as a person reads it in the activity feed, e.g.
 * "Changed the merged prompt; added preset Kitchen". Empty when nothing changed.
 */
export function describePromptChanges(before: PromptSettings, after: PromptSettings): string[] {
  const changes: string[] = [];
  for (const kind of PROMPT_KINDS) {
    const [was, now] = [before[kind], after[kind]];
    if (was === now) continue;
    if (now === null) changes.push(`reset the ${kind} prompt to the default`);
    else if (was === null) changes.push(`set a custom ${kind} prompt`);
    else changes.push(`changed the ${kind} prompt`);
  }
  const byName = (presets: PromptPreset[]) => new Map(presets.map((p) => [p.name.toLowerCase(), p]));
  const [was, now] = [byName(before.presets), byName(after.presets)];
  for (const preset of after.presets) {
    const old = was.get(preset.name.toLowerCase());
    if (!old) changes.push(`added preset ${preset.name}`);
    else if (old.name !== preset.name || old.merged !== preset.merged || old.unmerged !== preset.unmerged)
      changes.push(`changed preset ${preset.name}`);
  }
  for (const preset of before.presets)
    if (!now.has(preset.name.toLowerCase())) changes.push(`removed preset ${preset.name}`);
  if (changes.length === 0) {
    const order = (presets: PromptPreset[]) => presets.map((p) => p.name.toLowerCase()).join('\n');
    if (order(before.presets) !== order(after.presets)) changes.push('reordered the presets');
  }
  return changes;
}

export function promptChangeLabel(changes: string[]): string {
  const text = changes.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
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
export async function restorePromptSettings(teamId: string, snapshot: Record<string, unknown> | null): Promise<void> {
  const before = promptSettingsSchema.safeParse(snapshot?.before);
  if (!before.success) throw new Error('update_prompt_settings snapshot is not a valid prompt settings shape');
  await putPromptSettings(teamId, before.data);
}
