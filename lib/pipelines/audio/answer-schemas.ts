/**
 * The contract with the model for one chunk of a voice note: the items the
 * speaker names, with what was said about them and when (seconds from the
 * start of the recording, for the cross-chunk dedup). No frames, no boxes.
 */
import * as z from 'zod';
import { modelItem } from '../photo/answer-schemas';

export const audioItem = modelItem
  .pick({
    name: true,
    quantity: true,
    brand: true,
    condition: true,
    age: true,
    estimated_price: true,
    notes: true,
    confidence: true,
    evidence: true,
  })
  .extend({ audio_time: z.number().min(0) });
export type AudioItem = z.output<typeof audioItem>;

const audioAnswer = z.object({ items: z.array(audioItem) });

/** response_format schema (strict structured output: every field required, nullable where optional). */
export const AUDIO_ANSWER_JSON_SCHEMA = {
  name: 'spoken_inventory_items',
  schema: z.toJSONSchema(audioAnswer, { target: 'draft-7' }) as Record<string, unknown>,
};

/** The output contract appended to the system prompt, for models that ignore response_format. */
export const AUDIO_OUTPUT_CONTRACT = [
  'Answer with JSON only, no prose: {"items": [ ... ]}.',
  'Each item has exactly these fields: name (short descriptive name), quantity (integer >= 1), brand, condition, age, estimated_price (US dollars, a number, only when the speaker says a price or value), notes, confidence (0 to 1), evidence (the words the speaker used), audio_time (seconds from the start of the recording where the item is named, a number).',
  'Use null for any field the speaker does not give. One entry per distinct item.',
].join('\n');
