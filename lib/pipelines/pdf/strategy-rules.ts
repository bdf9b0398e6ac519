/**
 * A recipe applied to the inventory pages: what its strategy finds, or the
 * pages to render for the AI to mark. Every strategy ends in page images:
 * header_runs that finds nothing falls back to card_grid, and card_grid that
 * finds nothing (a list whose pictures are vector drawings has no embedded
 * image to take out) to rendering the pages, as a scanned list is read.
 */
import type { PdfPageLayout } from '../../pdf/layout';
import { readCardGrid } from './card-grid-rules';
import type { PdfPhotoFinding } from './finding';
import { readHeaderRuns } from './header-runs-rules';
import type { Recipe } from './recipe';

/** What a recipe finds: embedded photos with what the page says of them, or pages to render and have marked. */
export interface Reading {
  findings: PdfPhotoFinding[];
  pagesToMark: PdfPageLayout[];
  /** The strategy that found them (page_image when the pages are to be marked). */
  strategy: string;
}

export function applyRecipe(recipe: Recipe, pages: PdfPageLayout[]): Reading {
  if (recipe.strategy === 'header_runs') {
    const runs = readHeaderRuns(pages, recipe);
    if (runs.length > 0) return { findings: runs, pagesToMark: [], strategy: 'header_runs' };
  }
  if (recipe.strategy !== 'page_image') {
    const grid = readCardGrid(pages, recipe);
    if (grid.length > 0) return { findings: grid, pagesToMark: [], strategy: 'card_grid' };
  }
  return { findings: [], pagesToMark: pages, strategy: 'page_image' };
}
