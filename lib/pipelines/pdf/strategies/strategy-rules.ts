/**
 * The reading strategies and the order they fall back in. Every read ends in
 * page images: header_runs that finds nothing falls back to card_grid, and
 * card_grid that finds nothing (a list whose pictures are vector drawings has
 * no embedded image to take out) to rendering the pages, as a scanned list is
 * read. A recipe's strategy is where its read starts in that order.
 */
import type { PdfPageLayout } from '../../../pdf/layout';
import type { PdfPhotoFinding } from '../finding';
import type { Recipe, RecipeStrategy } from '../recipe';
import { readCardGrid } from './card-grid-rules';
import { readHeaderRuns } from './header-runs-rules';

/** What a recipe finds: embedded photos with what the page says of them, or pages to render and have marked. */
export interface Reading {
  findings: PdfPhotoFinding[];
  pagesToMark: PdfPageLayout[];
  /** The strategy that found them (page_image when the pages are to be marked). */
  strategy: RecipeStrategy;
}

/** One way of reading a contents list's inventory pages. */
export interface ReadingStrategy {
  /** Its name in a recipe. */
  readonly name: RecipeStrategy;
  /** The pages as this strategy reads them, or null when it does not apply to them (it finds nothing). */
  read(pages: PdfPageLayout[], recipe: Recipe): Reading | null;
}

/** A strategy that takes embedded photos out: it applies when its executor finds at least one. */
const embeddedPhotos = (
  name: RecipeStrategy,
  find: (pages: PdfPageLayout[], recipe: Recipe) => PdfPhotoFinding[],
): ReadingStrategy => ({
  name,
  read(pages, recipe) {
    const findings = find(pages, recipe);
    return findings.length > 0 ? { findings, pagesToMark: [], strategy: name } : null;
  },
});

/** Rendering the pages for the AI to mark: applies to any page, so it ends every read. */
const pageImage = {
  name: 'page_image',
  read: (pages: PdfPageLayout[]): Reading => ({ findings: [], pagesToMark: pages, strategy: 'page_image' }),
} satisfies ReadingStrategy;

/** Tried in this order from the recipe's strategy on; the first that applies reads the pages. */
export const FALLBACK_ORDER: readonly ReadingStrategy[] = [
  embeddedPhotos('header_runs', readHeaderRuns),
  embeddedPhotos('card_grid', readCardGrid),
  pageImage,
];

export function applyRecipe(recipe: Recipe, pages: PdfPageLayout[]): Reading {
  // Every recipe strategy is in the order (a unit test holds it), so the read starts at the recipe's own.
  const start = FALLBACK_ORDER.findIndex((strategy) => strategy.name === recipe.strategy);
  for (const strategy of FALLBACK_ORDER.slice(start, -1)) {
    const reading = strategy.read(pages, recipe);
    if (reading) return reading;
  }
  // page_image ends the order (a unit test holds it) and applies to any page.
  return pageImage.read(pages);
}
