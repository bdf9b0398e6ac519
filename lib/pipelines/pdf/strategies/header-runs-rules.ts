/**
 * The header_runs executor: a heading names an item and owns the run of
 * photos below it until the next heading, across pages. Pages come already
 * limited to the inventory range; nothing here reads the file.
 */
import type { PdfPageLayout } from '../../../pdf/layout';
import { leadingQuantity, normalizePrintedDate } from '../page/caption-rules';
import type { PdfPhotoFinding } from '../finding';
import {
  bottomOf,
  compilePattern,
  firstValue,
  horizontalOverlap,
  middleOf,
  type PageContent,
  type PagePhoto,
  readPages,
  roomAfter,
  roomAt,
} from '../page/page-content-rules';
import type { Recipe } from '../recipe';
import type { PdfLine } from '../page/text-line-rules';

/**
 * Without a label_pattern, a heading is a line with a letter in it whose
 * text is at least this much taller than the document's body text (its most
 * common line height): the larger type vendors head items with. A document
 * set in one size has no headings.
 */
export const HEADING_HEIGHT_RATIO = 1.2;

/** Overlaps this small (points) are rounding in the drawing, not contact. */
const TOUCH_PT = 1;

interface Run {
  /** Index of the heading's page in the pages read. */
  pageIndex: number;
  heading: PdfLine;
  room: string | null;
  photos: { page: number; photo: PagePhoto }[];
}

/** The body text's height: the most common line height (to half a point; the smaller on a tie). */
function bodyHeight(heights: number[]): number {
  const counts = new Map<number, number>();
  for (const h of heights) counts.set(Math.round(h * 2) / 2, (counts.get(Math.round(h * 2) / 2) ?? 0) + 1);
  const [body] = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  return body;
}

/** The heading test: the recipe's label_pattern, else the taller-type rule (HEADING_HEIGHT_RATIO). */
function headingTest(contents: readonly PageContent[], recipe: Recipe): (line: PdfLine) => boolean {
  const pattern = compilePattern(recipe.label_pattern);
  if (pattern) return (line) => pattern.test(line.text);
  const heights = contents.flatMap((c) => c.lines.map((l) => l.height));
  if (heights.length === 0) return () => false;
  const tall = bodyHeight(heights) * HEADING_HEIGHT_RATIO;
  return (line) => line.height >= tall && /\p{L}/u.test(line.text);
}

/**
 * The lines right under the heading: the first within
 * description_max_gap_pt of it, the next within description_line_gap_pt,
 * sharing the heading's columns, until a heading or a photo under the heading.
 */
function linesUnder(heading: PdfLine, content: PageContent, isHeading: (l: PdfLine) => boolean, recipe: Recipe) {
  const found: PdfLine[] = [];
  const block = { ...heading };
  let allowance = recipe.description_max_gap_pt;
  for (const line of content.lines) {
    if (middleOf(line) <= bottomOf(heading) || horizontalOverlap(line, block) <= 0) continue;
    if (line.y - bottomOf(block) > allowance) break;
    // A photo of the heading's columns between it and the line ends the text under the heading.
    const pastPhoto = content.photos.some(
      (p) => horizontalOverlap(p, block) > 0 && p.y >= bottomOf(heading) - TOUCH_PT && p.y < bottomOf(line),
    );
    if (isHeading(line) || pastPhoto) break;
    found.push(line);
    block.height = bottomOf(line) - block.y;
    allowance = recipe.description_line_gap_pt;
  }
  return found;
}

/**
 * Every photo owned by a heading, in reading order, each labelled with its
 * heading. A photo belongs to the last heading that starts above its middle
 * (on its page, else the one still open from an earlier page). A room
 * heading (room_pattern) closes the open item: photos after it and before
 * the next heading are dropped, like photos before the first heading.
 * The description is the text between the heading and its first photo, and
 * the lines right under the heading (for photos set beside it), in reading
 * order. quantity and capturedAt as on a card (description, then heading).
 * The room is the one in force at the heading. [] when no heading owns a
 * photo (the caller then tries card_grid).
 */
export function readHeaderRuns(pages: PdfPageLayout[], recipe: Recipe): PdfPhotoFinding[] {
  const contents = readPages(pages, recipe);
  const isHeading = headingTest(contents, recipe);
  const runs: Run[] = [];
  let open: Run | null = null;
  let room: string | null = null;
  contents.forEach((content, pageIndex) => {
    // Item headings open a run; room headings close the open one (run: null).
    const marks: { y: number; run: Run | null }[] = [
      ...content.lines.filter(isHeading).map((heading) => ({
        y: heading.y,
        run: { pageIndex, heading, room: roomAt(content, heading.y, room), photos: [] },
      })),
      ...content.rooms.map((r) => ({ y: r.line.y, run: null })),
    ].sort((a, b) => a.y - b.y);
    for (const mark of marks) if (mark.run) runs.push(mark.run);
    for (const photo of content.photos) {
      const above = marks.filter((m) => m.y < middleOf(photo));
      const owner = above.length ? above[above.length - 1].run : open;
      owner?.photos.push({ page: content.page, photo });
    }
    if (marks.length) open = marks[marks.length - 1].run;
    room = roomAfter(content, room);
  });
  return runs.filter((run) => run.photos.length > 0).flatMap((run) => findingsOf(run, contents, isHeading, recipe));
}

/** Dashes, colons and the like between a heading's label and its description ("Item 1 – Sofa, 3-seat"). */
const LEADING_SEPARATORS = /^[\s\-–—:.,;|/]+/u;
const TRAILING_SEPARATORS = /[\s\-–—:.,;|/]+$/u;

/**
 * A heading's label and the description printed after it: with a
 * label_pattern that matches the heading's start, the match is the label and
 * what follows (separators dropped) is the start of the description; else
 * the whole heading is the label.
 */
export function splitHeading(text: string, pattern: RegExp | null): { label: string; rest: string | null } {
  const match = pattern?.exec(text);
  const label = match?.index === 0 ? match[0].replace(TRAILING_SEPARATORS, '').trim() : '';
  if (!match || !label) return { label: text, rest: null };
  const rest = text.slice(match[0].length).replace(LEADING_SEPARATORS, '').trim();
  return { label, rest: rest || null };
}

function findingsOf(run: Run, contents: readonly PageContent[], isHeading: (l: PdfLine) => boolean, recipe: Recipe) {
  const first = run.photos[0];
  const headingPage = contents[run.pageIndex];
  const between: PdfLine[] = [];
  for (let i = run.pageIndex; i < contents.length && contents[i].page <= first.page; i++) {
    const content = contents[i];
    const start = i === run.pageIndex ? content.lines.indexOf(run.heading) + 1 : 0;
    for (const line of content.lines.slice(start)) {
      if (content.page === first.page && bottomOf(line) > first.photo.y + TOUCH_PT) continue;
      if (!isHeading(line)) between.push(line);
    }
  }
  const under = linesUnder(run.heading, headingPage, isHeading, recipe).filter((l) => !between.includes(l));
  // Lines under the heading are on its page, before any later page's lines: merge by reading order there.
  const lines = [...between, ...under].sort((a, b) => orderOf(a) - orderOf(b));
  function orderOf(line: PdfLine): number {
    const index = headingPage.lines.indexOf(line);
    return index >= 0 ? index : headingPage.lines.length + between.indexOf(line);
  }
  const { label, rest } = splitHeading(run.heading.text, compilePattern(recipe.label_pattern));
  const body = lines.map((l) => l.text).join(' ') || null;
  const description = [rest, body].filter((t): t is string => t !== null).join(' ') || null;
  const quantity = firstValue(
    [body, rest, label].filter((t): t is string => t !== null),
    leadingQuantity,
  );
  const capturedAt = firstValue([...lines.map((l) => l.text), ...(rest ? [rest] : []), label], normalizePrintedDate);
  return run.photos.map(
    ({ page, photo }): PdfPhotoFinding => ({
      page,
      source: { kind: 'embedded', imageId: photo.imageId },
      label,
      description,
      quantity,
      room: run.room,
      capturedAt,
    }),
  );
}
