/**
 * An extraction recipe: how one vendor's contents-list layout is read. The
 * AI proposes it once per layout (learning/recipe-rules.ts coerces what it
 * says into this shape); the executors (strategies/card-grid-rules.ts,
 * header-runs-rules.ts) apply it to every page. Layout rules only: nothing
 * of one claim's content.
 */

export const RECIPE_STRATEGIES = ['card_grid', 'header_runs', 'page_image'] as const;
export type RecipeStrategy = (typeof RECIPE_STRATEGIES)[number];

/** The layout each strategy reads, as the model is told it (the recipe prompt and the answer schema). */
export const STRATEGY_DESCRIPTIONS: Record<RecipeStrategy, string> = {
  card_grid: 'one photo per item, its label printed on or just under the photo, the caption near it',
  header_runs: 'a heading line owns the photos below it until the next heading, across pages',
  page_image: 'scanned pages without a text layer: photos are found on rendered pages',
};

/** Where a photo's caption sits relative to the photo. */
export const DESCRIPTION_POSITIONS = ['below', 'above', 'right', 'left'] as const;
export type DescriptionPosition = (typeof DESCRIPTION_POSITIONS)[number];

export interface Recipe {
  strategy: RecipeStrategy;
  /** Matches the text that labels a photo (card_grid) or heads a run (header_runs); null: any line in place. */
  label_pattern: string | null;
  /** Group 1 is the room's name; null: the document names no rooms. */
  room_pattern: string | null;
  /** Lines matching any of these are never labels or captions (page headers, footers, column titles). */
  ignore_patterns: string[];
  description_position: DescriptionPosition;
  /** Largest gap in points between a photo and its caption's first line. */
  description_max_gap_pt: number;
  /** Largest gap in points between two lines of one caption. */
  description_line_gap_pt: number;
  /** A photo is an image at least this many pixels on both edges. */
  min_image_px: number;
}

export const DEFAULT_RECIPE: Recipe = {
  strategy: 'card_grid',
  label_pattern: null,
  room_pattern: null,
  ignore_patterns: [],
  description_position: 'below',
  description_max_gap_pt: 24,
  description_line_gap_pt: 6,
  min_image_px: 80,
};
