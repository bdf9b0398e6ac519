/**
 * The card_grid executor: one photo per item, its label drawn on the photo or
 * just under it, its caption found by walking outward from the photo. Pages
 * come already limited to the inventory range; nothing here reads the file.
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
  rightOf,
  roomAfter,
  roomAt,
  verticalOverlap,
} from '../page/page-content-rules';
import type { Recipe } from '../recipe';
import type { PdfLine } from '../page/text-line-rules';

/** Overlaps this small (points) are rounding in the drawing, not contact. */
const TOUCH_PT = 1;

interface Card {
  photo: PagePhoto;
  label: PdfLine | null;
  caption: PdfLine[];
}

/**
 * Where a photo's card may start its text, left of the photo: right of the
 * photo beside it on the left (one sharing some of its height), and never
 * further than half the photo's longer edge. A portrait photo centred in a
 * landscape card has its label and caption printed from the card's left
 * edge, left of the photo itself.
 */
function cardLeftEdge(photo: PagePhoto, photos: readonly PagePhoto[]): number {
  const known = leftEdges.get(photo);
  if (known !== undefined) return known;
  const reach = photo.x - Math.max(photo.width, photo.height) / 2;
  const beside = photos.filter((p) => p !== photo && verticalOverlap(p, photo) > 0 && rightOf(p) <= photo.x + TOUCH_PT);
  const edge = Math.max(reach, ...beside.map(rightOf));
  leftEdges.set(photo, edge);
  return edge;
}

/** Each photo's card edge, worked out once: every line of its page is tested against it. */
const leftEdges = new WeakMap<PagePhoto, number>();

/**
 * True when the line is in the photo's column: it shares some of the
 * photo's width, or (cards printed above or below their photo) it starts on
 * the photo's card left of the photo (cardLeftEdge).
 */
function inColumn(line: PdfLine, photo: PagePhoto, content: PageContent, recipe: Recipe): boolean {
  if (horizontalOverlap(line, photo) > 0) return true;
  if (recipe.description_position !== 'below' && recipe.description_position !== 'above') return false;
  return line.x < photo.x && line.x >= cardLeftEdge(photo, content.photos) - TOUCH_PT;
}

/** A line drawn on the photo: it shares the photo's columns and its middle is within the photo's height. */
const isOver = (line: PdfLine, photo: PagePhoto) =>
  horizontalOverlap(line, photo) > 0 && middleOf(line) >= photo.y && middleOf(line) <= bottomOf(photo);

/** True when the line, below the photo, reaches down into another photo of its column. */
function reachesPhotoBelow(line: PdfLine, photo: PagePhoto, photos: readonly PagePhoto[]): boolean {
  return photos.some(
    (p) =>
      p !== photo &&
      horizontalOverlap(p, line) > 0 &&
      p.y >= bottomOf(photo) - TOUCH_PT &&
      p.y < bottomOf(line) - TOUCH_PT,
  );
}

/** True when the line, above the photo, reaches up into another photo of its column. */
function reachesPhotoAbove(line: PdfLine, photo: PagePhoto, photos: readonly PagePhoto[]): boolean {
  return photos.some(
    (p) =>
      p !== photo &&
      horizontalOverlap(p, line) > 0 &&
      bottomOf(p) <= photo.y + TOUCH_PT &&
      bottomOf(p) > line.y + TOUCH_PT,
  );
}

/**
 * The photo's label: a line drawn on it, else the first line just under it
 * (within description_max_gap_pt, sharing its columns). With a
 * label_pattern, matching lines come first, and a line under the photo that
 * does not match is left to the caption (a line on the photo still labels it).
 */
function findLabel(
  photo: PagePhoto,
  content: PageContent,
  taken: Set<PdfLine>,
  recipe: Recipe,
  pattern: RegExp | null,
) {
  const free = content.lines.filter((l) => !taken.has(l));
  const over = free.filter((l) => isOver(l, photo));
  const under = free.find(
    (l) =>
      inColumn(l, photo, content, recipe) &&
      middleOf(l) > bottomOf(photo) &&
      l.y - bottomOf(photo) <= recipe.description_max_gap_pt &&
      !reachesPhotoBelow(l, photo, content.photos),
  );
  if (!pattern) return over[0] ?? under ?? null;
  return over.find((l) => pattern.test(l.text)) ?? (under && pattern.test(under.text) ? under : over[0]) ?? null;
}

/**
 * Caption lines above or below the photo: the first within
 * description_max_gap_pt of the photo (or of its label under it), the next
 * within description_line_gap_pt of the previous, all sharing the photo's
 * columns, until another photo or a line that may not join.
 */
function walkVertical(card: Card, content: PageContent, stops: (l: PdfLine) => boolean, recipe: Recipe, down: boolean) {
  const { photo, label } = card;
  const column = content.lines
    .filter(
      (l) => inColumn(l, photo, content, recipe) && (down ? middleOf(l) > bottomOf(photo) : middleOf(l) < photo.y),
    )
    .sort((a, b) => (down ? a.y - b.y : bottomOf(b) - bottomOf(a)));
  let edge = down ? bottomOf(photo) : photo.y;
  let allowance = recipe.description_max_gap_pt;
  const caption: PdfLine[] = [];
  for (const line of column) {
    const gap = down ? line.y - edge : edge - bottomOf(line);
    if (gap > allowance) break;
    if (down ? reachesPhotoBelow(line, photo, content.photos) : reachesPhotoAbove(line, photo, content.photos)) break;
    const next = down ? Math.max(edge, bottomOf(line)) : Math.min(edge, line.y);
    if (line === label) {
      edge = next;
      continue;
    }
    if (stops(line)) break;
    caption.push(line);
    edge = next;
    allowance = recipe.description_line_gap_pt;
  }
  // Back in reading order (the upward walk collects bottom first).
  return caption.sort((a, b) => content.lines.indexOf(a) - content.lines.indexOf(b));
}

/**
 * Caption lines beside the photo: the first starts within
 * description_max_gap_pt of the photo's side and shares some of its height;
 * the next follow down within description_line_gap_pt, sharing the block's
 * columns, until a line sits beside another photo of the photo's column.
 */
function walkSide(card: Card, content: PageContent, stops: (l: PdfLine) => boolean, recipe: Recipe, right: boolean) {
  const { photo } = card;
  const beside = content.lines.filter(
    (l) => l !== card.label && (right ? l.x >= rightOf(photo) - TOUCH_PT : rightOf(l) <= photo.x + TOUCH_PT),
  );
  const gapTo = (l: PdfLine) => (right ? l.x - rightOf(photo) : photo.x - rightOf(l));
  const first = beside.find(
    (l) => verticalOverlap(l, photo) > 0 && gapTo(l) <= recipe.description_max_gap_pt && !stops(l),
  );
  if (!first) return [];
  const caption = [first];
  const block = { x: first.x, y: first.y, width: first.width, height: first.height };
  for (const line of beside.slice(beside.indexOf(first) + 1)) {
    if (horizontalOverlap(line, block) <= 0) continue;
    if (line.y - bottomOf(block) > recipe.description_line_gap_pt) break;
    const nextToOther = content.photos.some(
      (p) => p !== photo && horizontalOverlap(p, photo) > 0 && verticalOverlap(p, line) > 0,
    );
    if (nextToOther || stops(line)) break;
    caption.push(line);
    const x = Math.min(block.x, line.x);
    block.width = Math.max(rightOf(block), rightOf(line)) - x;
    block.x = x;
    block.height = Math.max(bottomOf(block), bottomOf(line)) - block.y;
  }
  return caption;
}

/** A line's place and text with its digits masked: 'Page 3 of 12' and 'Page 4 of 12' at one height are one footer. */
const masked = (line: PdfLine) => `${Math.round(line.y)}|${line.text.replace(/\d/g, '#')}`;

/**
 * Lines printed at the same height with the same masked text on more than
 * half of the pages (and on at least two): running headers and footers that
 * no ignore pattern caught. They are never carried to the next page as a
 * caption.
 */
function runningLines(contents: readonly PageContent[]): Set<string> {
  const pagesOf = new Map<string, number>();
  for (const content of contents) {
    for (const text of new Set(content.lines.map(masked))) pagesOf.set(text, (pagesOf.get(text) ?? 0) + 1);
  }
  return new Set([...pagesOf].filter(([, n]) => n >= 2 && n > contents.length / 2).map(([text]) => text));
}

/**
 * Lines left at the page's end for the next page's first photo: not used,
 * not on a photo, below the top of the page's first photo, with no photo
 * below them in their column, and not a running header or footer.
 */
function orphanLines(content: PageContent, used: Set<PdfLine>, running: Set<string>, recipe: Recipe): PdfLine[] {
  if (content.photos.length === 0) return [];
  const top = Math.min(...content.photos.map((p) => p.y));
  return content.lines.filter(
    (l) =>
      !used.has(l) &&
      l.y >= top &&
      !running.has(masked(l)) &&
      !content.photos.some(
        (p) => inColumn(l, p, content, recipe) && (p.y >= bottomOf(l) - TOUCH_PT || verticalOverlap(p, l) > 0),
      ),
  );
}

/** The page's cards (photos with their label and caption) and its orphan caption lines. */
function readCards(content: PageContent, recipe: Recipe, pattern: RegExp | null, running: Set<string>) {
  const labels = new Set<PdfLine>();
  const cards: Card[] = content.photos.map((photo) => {
    const label = findLabel(photo, content, labels, recipe, pattern);
    if (label) labels.add(label);
    return { photo, label, caption: [] };
  });
  const used = new Set<PdfLine>(labels);
  for (const card of cards) {
    // A caption ends at another photo's label, at a line that would label something, or at another caption.
    const stops = (l: PdfLine) => used.has(l) || (pattern?.test(l.text) ?? false);
    const position = recipe.description_position;
    card.caption =
      position === 'below' || position === 'above'
        ? walkVertical(card, content, stops, recipe, position === 'below')
        : walkSide(card, content, stops, recipe, position === 'right');
    for (const line of card.caption) used.add(line);
  }
  return { cards, orphans: orphanLines(content, used, running, recipe) };
}

function findingOf(page: number, card: Card, room: string | null): PdfPhotoFinding {
  const label = card.label?.text ?? null;
  const description = card.caption.map((l) => l.text).join(' ') || null;
  const texts = [description, label].filter((t): t is string => t !== null);
  return {
    page,
    source: { kind: 'embedded', imageId: card.photo.imageId },
    label,
    description,
    quantity: firstValue(texts, leadingQuantity),
    room,
    capturedAt: firstValue(
      [...card.caption.map((l) => l.text), ...(label === null ? [] : [label])],
      normalizePrintedDate,
    ),
  };
}

/**
 * Every photo of the pages with what the document prints about it, in
 * reading order (page, rows top to bottom, left to right).
 *  - Labels and captions as in findLabel, walkVertical and walkSide
 *    (recipe.description_position chooses the walk; below by default).
 *  - Caption lines at a page's end with no photo below them belong to the
 *    first photo of the next page, before its own caption (a matching line
 *    among them labels it when it has no label and there is a label_pattern);
 *    running headers and footers are not carried (orphanLines).
 *  - quantity: a leading 'N x' on the caption, else on the label.
 *  - capturedAt: the first printed date on the caption's lines, else the label.
 *  - room: the last room heading above the photo, carried across pages.
 */
export function readCardGrid(pages: PdfPageLayout[], recipe: Recipe): PdfPhotoFinding[] {
  const pattern = compilePattern(recipe.label_pattern);
  const findings: PdfPhotoFinding[] = [];
  let room: string | null = null;
  let orphans: { page: number; lines: PdfLine[] } = { page: Number.NaN, lines: [] };
  const contents = readPages(pages, recipe);
  const running = runningLines(contents);
  for (const content of contents) {
    const { cards, orphans: left } = readCards(content, recipe, pattern, running);
    const first = cards[0];
    if (first && orphans.page === content.page - 1 && orphans.lines.length > 0) {
      let carried = orphans.lines;
      // A card prints its label first: without a label pattern, the first of several carried lines is the label.
      const heading = first.label
        ? undefined
        : pattern
          ? carried.find((l) => pattern.test(l.text))
          : carried.length > 1
            ? carried[0]
            : undefined;
      if (heading) {
        first.label = heading;
        carried = carried.filter((l) => l !== heading);
      }
      first.caption = [...carried, ...first.caption];
    }
    for (const card of cards) findings.push(findingOf(content.page, card, roomAt(content, card.photo.y, room)));
    orphans = { page: content.page, lines: left };
    room = roomAfter(content, room);
  }
  return findings;
}
