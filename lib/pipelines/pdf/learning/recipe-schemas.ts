/**
 * The contract with the model that learns a vendor's layout: the recipe it
 * answers with (strict structured output), and the bounds a recipe's numbers
 * are held to. What the model says is read leniently (recipe-rules.ts), so
 * these bounds are also where an answer outside them is clamped.
 */
import * as z from 'zod';
import { DEFAULT_RECIPE, DESCRIPTION_POSITIONS, RECIPE_STRATEGIES, STRATEGY_DESCRIPTIONS } from '../recipe';

/** [min, max] of each numeric recipe field. */
export const RECIPE_BOUNDS = {
  /** Up to two inches between a photo and its caption's first line. */
  description_max_gap_pt: [0, 144],
  /** Up to one inch between two lines of one caption. */
  description_line_gap_pt: [0, 72],
  /** Smaller images are icons and bullets; a larger minimum would skip ordinary phone photos. */
  min_image_px: [16, 1000],
} as const;

/** Longest regular expression kept (a longer one is not a layout rule). */
export const MAX_PATTERN_LENGTH = 300;

/** Most ignore_patterns kept; the rest are dropped. */
export const MAX_IGNORE_PATTERNS = 30;

const bounded = (field: keyof typeof RECIPE_BOUNDS, description: string) =>
  z
    .number()
    .min(RECIPE_BOUNDS[field][0])
    .max(RECIPE_BOUNDS[field][1])
    .describe(`${description} Default ${DEFAULT_RECIPE[field]}.`);

const pattern = (description: string) => z.string().max(MAX_PATTERN_LENGTH).nullable().describe(description);

const recipeAnswer = z.object({
  strategy: z
    .enum(RECIPE_STRATEGIES)
    .describe(`${RECIPE_STRATEGIES.map((strategy) => `${strategy}: ${STRATEGY_DESCRIPTIONS[strategy]}`).join('; ')}.`),
  label_pattern: pattern(
    'JavaScript regular expression (no slashes, no flags) matching the line that labels a photo (card_grid) or heads a run (header_runs); null: any line in place.',
  ),
  room_pattern: pattern(
    'JavaScript regular expression whose first capture group is the room name, matching the lines that name a room; null when the document names no rooms.',
  ),
  ignore_patterns: z
    .array(z.string().max(MAX_PATTERN_LENGTH))
    .max(MAX_IGNORE_PATTERNS)
    .describe(
      'JavaScript regular expressions for lines that are never labels or captions (page headers and footers, column titles). Write digits as \\d+ so they fit every page.',
    ),
  description_position: z.enum(DESCRIPTION_POSITIONS).describe("Where a photo's caption sits relative to the photo."),
  description_max_gap_pt: bounded(
    'description_max_gap_pt',
    "Largest gap in points between a photo and its caption's first line.",
  ),
  description_line_gap_pt: bounded(
    'description_line_gap_pt',
    'Largest gap in points between two lines of one caption.',
  ),
  min_image_px: bounded('min_image_px', 'A photo is an embedded image at least this many pixels on both edges.').int(),
});

/** response_format schema (strict structured output: every field required, nullable where optional). */
export const RECIPE_JSON_SCHEMA = {
  name: 'contents_list_recipe',
  schema: z.toJSONSchema(recipeAnswer, { target: 'draft-7' }) as Record<string, unknown>,
};

/** The output contract appended to the system prompt, for models that ignore response_format. */
export const RECIPE_OUTPUT_CONTRACT = [
  'Answer with JSON only, no prose: one object with exactly these fields:',
  `strategy (one of ${RECIPE_STRATEGIES.join(', ')}), label_pattern (regular expression or null), room_pattern (regular expression whose group 1 is the room name, or null), ignore_patterns (list of regular expressions), description_position (one of ${DESCRIPTION_POSITIONS.join(', ')}), description_max_gap_pt (number), description_line_gap_pt (number), min_image_px (integer).`,
  'Regular expressions are JavaScript sources without slashes or flags. Describe the layout only: never copy a name, an address, a claim number or any other content of this document into a pattern.',
].join('\n');
