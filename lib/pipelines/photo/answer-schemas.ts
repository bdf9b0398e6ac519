/**
 * The contract with the vision model for photo groups: the model is asked
 * for JSON of this shape (response_format with the JSON schema made from the
 * same zod schema), and every item of the answer is validated with it one by
 * one (answer-rules.ts), so a partial answer still yields its complete items.
 */
import * as z from 'zod';

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

const modelAnswer = z.object({ items: z.array(modelItem) });

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
