/**
 * What the AI is shown when it is asked for a contents list's recipe, and
 * when it marks the photos of a rendered page: which sample pages, and each
 * page as text lines with their positions and the image boxes with their
 * pixel sizes (numbers rounded: the model reads a layout, not coordinates to
 * the hundredth). Pure.
 */
import type { PdfPageLayout } from '../../../pdf/layout';
import { PAGE_IMAGE_OUTPUT_CONTRACT } from '../strategies/page-image-schemas';
import { RECIPE_OUTPUT_CONTRACT } from './recipe-schemas';
import { RECIPE_STRATEGIES, STRATEGY_DESCRIPTIONS } from '../recipe';
import { textLines } from '../page/text-line-rules';

/** Up to `count` pages spread over the range (its ends and evenly between), in order. */
export function samplePages(range: { first: number; last: number }, count: number): number[] {
  const span = range.last - range.first + 1;
  if (span <= 0 || count <= 0) return [];
  if (span <= count) return Array.from({ length: span }, (_, i) => range.first + i);
  if (count === 1) return [range.first];
  const pages = Array.from({ length: count }, (_, i) => range.first + Math.round((i * (span - 1)) / (count - 1)));
  return [...new Set(pages)];
}

/** Text lines per page a sample carries at most (a dense page is cut). */
const MAX_LINES_PER_PAGE = 120;

/** One sample page as text: size, lines with positions, image boxes with pixel sizes. */
function describePage(page: PdfPageLayout): string {
  const r = Math.round;
  const lines = textLines(page.texts).slice(0, MAX_LINES_PER_PAGE);
  const out = [`Page ${page.page} (${r(page.width)} x ${r(page.height)} pt):`];
  for (const image of page.images)
    out.push(
      `  image at x=${r(image.x)} y=${r(image.y)} size ${r(image.width)} x ${r(image.height)} pt (${image.pixelWidth} x ${image.pixelHeight} px)`,
    );
  for (const line of lines) out.push(`  text at x=${r(line.x)} y=${r(line.y)} h=${r(line.height)}: ${line.text}`);
  if (lines.length === 0) out.push('  (no text layer)');
  return out.join('\n');
}

export function recipeSystemPrompt(): string {
  return [
    'You read the layout of vendor contents lists (restoration and pack-out inventories): PDFs of item photos with labels and captions.',
    `Describe how to read this layout as a recipe. Strategies: ${RECIPE_STRATEGIES.map((strategy) => `${strategy} (${STRATEGY_DESCRIPTIONS[strategy]})`).join(', ')}. Allowed strategies: ${RECIPE_STRATEGIES.join(', ')}.`,
    'Coordinates are PDF points from the top-left corner of the page, y growing downwards.',
    RECIPE_OUTPUT_CONTRACT,
  ].join('\n');
}

export function recipeUserText(document: string, pages: PdfPageLayout[], withRenders: boolean): string {
  return [
    `Sample pages of the contents list "${document}"${withRenders ? ' (their rendered images follow, in the same order)' : ''}:`,
    ...pages.map(describePage),
  ].join('\n\n');
}

export function pageBoxesSystemPrompt(): string {
  return [
    'You look at one rendered page of a scanned contents list (an inventory of item photos with labels and captions).',
    'Mark every photograph of an item on the page.',
    PAGE_IMAGE_OUTPUT_CONTRACT,
  ].join('\n');
}

export function pageBoxesUserText(document: string, page: { page: number; width: number; height: number }): string {
  return `Page ${page.page} of the contents list "${document}" (${Math.round(page.width)} x ${Math.round(page.height)} pt). Mark its photos.`;
}
