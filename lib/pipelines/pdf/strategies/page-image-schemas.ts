/**
 * The contract with the vision model for one rendered page of a scanned
 * contents list (the page_image recipe): the photos it sees on the page, each
 * as a box in fractions of the page with the label and caption printed with
 * it. The answer is read box by box (page-image-rules.ts), so a partial
 * answer still yields its complete boxes.
 */
import * as z from 'zod';

/** One photo on the page: its box as fractions (0..1) of the page's width and height, from the top-left corner. */
export const markedBox = z.object({
  x: z.number().min(0).max(1),
  y: z.number().min(0).max(1),
  width: z.number().gt(0).max(1),
  height: z.number().gt(0).max(1),
  label: z.string().max(200).nullable(),
  description: z.string().max(1000).nullable(),
});
export type MarkedBox = z.output<typeof markedBox>;

const pageImageAnswer = z.object({ photos: z.array(markedBox) });

/** response_format schema (strict structured output: every field required, nullable where optional). */
export const PAGE_IMAGE_ANSWER_JSON_SCHEMA = {
  name: 'contents_list_page_photos',
  schema: z.toJSONSchema(pageImageAnswer, { target: 'draft-7' }) as Record<string, unknown>,
};

/** The output contract appended to the system prompt, for models that ignore response_format. */
export const PAGE_IMAGE_OUTPUT_CONTRACT = [
  'Answer with JSON only, no prose: {"photos": [ ... ]}.',
  "Each photo has exactly these fields: x, y, width, height (the photo's box as fractions 0 to 1 of the page width and height from its top-left corner, numbers), label (the item name printed on or next to the photo, or null), description (the caption printed with the photo, word for word, or null).",
  'Mark only photographs of items, never logos, signatures, stamps or the page itself. Answer {"photos": []} when the page shows no photo.',
].join('\n');
