/**
 * The contract with the vision model for one video chunk: the photo item's
 * fields plus where the item is in the video (seconds), the frame it is best
 * seen on and its box on that frame. The answer is read item by item
 * (answer-rules.ts), so a partial answer still yields its complete items.
 */
import * as z from 'zod';
import { modelItem } from '../photo/answer-schemas';

/** A box as fractions (0..1) of the frame's width and height, from its top-left corner. */
export const frameBox = z.object({
  x: z.number().min(0).max(1),
  y: z.number().min(0).max(1),
  width: z.number().gt(0).max(1),
  height: z.number().gt(0).max(1),
});
export type FrameBox = z.output<typeof frameBox>;

/** One item of a chunk's answer. frame and box are null for an item only heard in the transcript. */
export const videoItem = modelItem.extend({
  video_time: z.number().min(0),
  frame: z.string().min(1).max(200).nullable(),
  box: frameBox.nullable(),
});
export type VideoItem = z.output<typeof videoItem>;

const videoAnswer = z.object({ items: z.array(videoItem) });

/** response_format schema (strict structured output: every field required, nullable where optional). */
export const VIDEO_ANSWER_JSON_SCHEMA = {
  name: 'video_inventory_items',
  schema: z.toJSONSchema(videoAnswer, { target: 'draft-7' }) as Record<string, unknown>,
};

/** The output contract appended to the system prompt, for models that ignore response_format. */
export const VIDEO_OUTPUT_CONTRACT = [
  'Answer with JSON only, no prose: {"items": [ ... ]}.',
  'Each item has exactly these fields: name (short descriptive name, never a note or caption), quantity (integer >= 1), brand, model, serial, sku, condition, age, estimated_price (replacement cost in US dollars, a number), damage, notes, confidence (0 to 1), evidence (what in the frames or the narration shows it), video_time (seconds from the start of the video where the item is best seen or named, a number), frame (the exact name of the frame the item is best seen on, or null when it is only named), box (where the item is on that frame: {"x", "y", "width", "height"} as fractions 0 to 1 of the frame width and height from its top-left corner, or null).',
  'Use null for any field you cannot determine. One entry per distinct item; list the most prominent items first.',
].join('\n');
