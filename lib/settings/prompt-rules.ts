/**
 * The photo pipeline's prompts (spec: Photo pipeline 4): the built-in texts,
 * which ones a team's settings select, and what a change did. Pure: no I/O.
 *
 * - 'merged': a group of several photos of ONE item; the answer is exactly one item.
 * - 'unmerged': a single photo; the answer lists every item in it.
 * A team may replace either prompt (null = the built-in default) and keep
 * named presets. The JSON output contract is appended by the pipeline, so a
 * team's prompt can change the instructions but never the answer's shape.
 * Photo prompts never ask for a room or audio evidence (spec: Output budget).
 */
import type { PromptPreset, PromptSettings } from './prompt-schemas';

export type PromptKind = 'merged' | 'unmerged';
const PROMPT_KINDS: readonly PromptKind[] = ['merged', 'unmerged'];

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
