/**
 * The contract with the vision model for photo groups: the model
 * is asked for JSON of this shape (response_format with the JSON schema made
 * from the same zod schema), and every item of the answer is validated with
 * it one by one, so a partial answer still yields its complete items.
 */
import * as z from 'zod';
import type { ItemDraft } from '../../inventory/items';

const text = (max: number) => z.string().max(max).nullable();

/** One item as the model returns it (no room and no audio evidence: photo prompts never ask for them). */
export const modelItem = z.object({
  name: z.string().min(1).max(200),
  quantity: z.number().int().min(1).max(10_000),
  brand: text(120),
  model: text(120),
  serial: text(120),
  sku: text(120),
  condition: text(200),
  age: text(60),
  estimated_price: z.number().min(0).nullable(),
  damage: text(1000),
  notes: text(1000),
  confidence: z.number().min(0).max(1),
  evidence: text(1000),
});
export type ModelItem = z.output<typeof modelItem>;

export const modelAnswer = z.object({ items: z.array(modelItem) });

/** response_format schema (strict structured output: every field required, nullable where optional). */
export const ANSWER_JSON_SCHEMA = {
  name: 'inventory_items',
  schema: z.toJSONSchema(modelAnswer, { target: 'draft-7' }) as Record<string, unknown>,
};

/** The output contract appended to the system prompt, for models that ignore response_format. */
export const OUTPUT_CONTRACT = [
  'Answer with JSON only, no prose: {"items": [ ... ]}.',
  'Each item has exactly these fields: name (short descriptive name, never a note or caption), quantity (integer >= 1), brand, model, serial, sku, condition, age, estimated_price (replacement cost in US dollars, a number), damage, notes, confidence (0 to 1), evidence (what in the photo shows it).',
  'Use null for any field you cannot determine. List the most prominent items first.',
].join('\n');

/**
 * Reads one raw item of an answer leniently (models put numbers in strings,
 * omit nullable fields or send quantity 0): null when it has no usable name.
 */
export function readModelItem(raw: unknown): ModelItem | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const str = (v: unknown, max: number) =>
    typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : typeof v === 'number' ? String(v) : null;
  const num = (v: unknown) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.replace(/[$,\s]/g, '')) : NaN;
    return Number.isFinite(n) ? n : null;
  };
  const name = str(r.name, 200);
  if (!name) return null;
  const quantity = num(r.quantity);
  const confidence = num(r.confidence);
  const price = num(r.estimated_price);
  const parsed = modelItem.safeParse({
    name,
    quantity: quantity !== null && quantity >= 1 ? Math.min(10_000, Math.round(quantity)) : 1,
    brand: str(r.brand, 120),
    model: str(r.model, 120),
    serial: str(r.serial, 120),
    sku: str(r.sku, 120),
    condition: str(r.condition, 200),
    age: str(r.age, 60),
    estimated_price: price !== null && price >= 0 ? price : null,
    damage: str(r.damage, 1000),
    notes: str(r.notes, 1000),
    confidence: confidence === null ? 0.5 : Math.min(1, Math.max(0, confidence)),
    evidence: str(r.evidence, 1000),
  });
  return parsed.success ? parsed.data : null;
}

/** The line a source note leaves in an item's notes (spec: Photo pipeline 8). */
export function sourceNoteLine(notes: string[]): string | null {
  return notes.length ? `From the source PDF: ${notes.join('; ')}` : null;
}

export function draftFromModel(
  item: ModelItem,
  group: { group_index: number; photos: { filename: string; key: string }[]; notes: string[]; quantity: number | null },
): ItemDraft {
  const notes = [item.notes, sourceNoteLine(group.notes)].filter(Boolean).join('\n') || null;
  return {
    name: item.name,
    // A user's quantity (a segment's) overrides the model's count.
    quantity: group.quantity ?? item.quantity,
    brand: item.brand,
    model: item.model,
    serial: item.serial,
    sku: item.sku,
    condition: item.condition,
    age: item.age,
    estimated_price: item.estimated_price,
    damage: item.damage,
    notes,
    confidence: item.confidence,
    evidence: item.evidence,
    source_group_index: group.group_index,
    photos: group.photos,
  };
}
