/**
 * What the recipe executors (../strategies/card-grid-rules.ts,
 * header-runs-rules.ts) see of a page: its photos in reading order, its
 * readable lines (ignored lines and room headings taken out) and its room
 * headings, plus the geometry they share. Boxes are in points, top-left
 * origin, y down.
 */
import type { PdfBox, PdfPageLayout } from '../../../pdf/layout';
import type { Recipe } from '../recipe';
import { repeatedImages } from './repeated-image-rules';
import { type PdfLine, textLines } from './text-line-rules';

/** An embedded image that is a photo, where it is drawn. */
export interface PagePhoto extends PdfBox {
  imageId: string;
}

interface RoomHeading {
  /** The room's name as printed (room_pattern's group 1, trimmed). */
  name: string;
  line: PdfLine;
}

export interface PageContent {
  page: number;
  /** Photos in reading order (rows top to bottom, each left to right). */
  photos: PagePhoto[];
  /** Lines that may label or describe a photo, in reading order. */
  lines: PdfLine[];
  /** Room headings in reading order. */
  rooms: RoomHeading[];
}

/** The pattern as a regular expression (as written: case matters), or null when there is none or it does not compile. */
export function compilePattern(source: string | null): RegExp | null {
  if (!source) return null;
  try {
    return new RegExp(source);
  } catch {
    return null;
  }
}

export const bottomOf = (b: PdfBox) => b.y + b.height;
export const rightOf = (b: PdfBox) => b.x + b.width;
export const middleOf = (b: PdfBox) => b.y + b.height / 2;

/** How much two boxes share horizontally (negative: the gap between them). */
export const horizontalOverlap = (a: PdfBox, b: PdfBox) => Math.min(rightOf(a), rightOf(b)) - Math.max(a.x, b.x);

/** How much two boxes share vertically (negative: the gap between them). */
export const verticalOverlap = (a: PdfBox, b: PdfBox) => Math.min(bottomOf(a), bottomOf(b)) - Math.max(a.y, b.y);

/**
 * Boxes in reading order: rows top to bottom, each row left to right. A box
 * joins the row of the box opening it when they share at least half of the
 * smaller height, so a grid's slightly uneven cells still read row by row.
 */
export function inReadingOrder<T extends PdfBox>(boxes: readonly T[]): T[] {
  const rows: T[][] = [];
  for (const box of [...boxes].sort((a, b) => a.y - b.y || a.x - b.x)) {
    const row = rows[rows.length - 1];
    if (row && verticalOverlap(row[0], box) >= Math.min(row[0].height, box.height) / 2) row.push(box);
    else rows.push([box]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.x - b.x));
}

/**
 * Each page's photos, lines and room headings under the recipe. A photo is
 * an embedded image at least min_image_px pixels on both edges, drawn in a
 * box of some size, that does not repeat on most pages
 * (repeated-image-rules.ts). A line matching an ignore pattern is dropped; a
 * line matching room_pattern is a room heading (group 1 is the name; the
 * whole match without a group) and never a label or a caption.
 */
export function readPages(pages: readonly PdfPageLayout[], recipe: Recipe): PageContent[] {
  const repeated = repeatedImages(pages);
  const ignore = recipe.ignore_patterns.map(compilePattern).filter((p): p is RegExp => p !== null);
  const room = compilePattern(recipe.room_pattern);
  return pages.map((page) => {
    const photos = page.images
      .filter(
        (i) =>
          i.pixelWidth >= recipe.min_image_px &&
          i.pixelHeight >= recipe.min_image_px &&
          i.width > 0 &&
          i.height > 0 &&
          !repeated.has(i),
      )
      .map(({ id, x, y, width, height }) => ({ imageId: id, x, y, width, height }));
    const lines: PdfLine[] = [];
    const rooms: RoomHeading[] = [];
    for (const line of textLines(page.texts)) {
      if (ignore.some((p) => p.test(line.text))) continue;
      const match = room?.exec(line.text);
      const name = match ? (match[1] ?? match[0]).trim() : '';
      if (name) rooms.push({ name, line });
      else lines.push(line);
    }
    return { page: page.page, photos: inReadingOrder(photos), lines, rooms };
  });
}

/** The room at a point of the page: the last room heading above it there, else the room carried in. */
export function roomAt(content: PageContent, y: number, carried: string | null): string | null {
  let room = carried;
  for (const heading of content.rooms) if (heading.line.y < y) room = heading.name;
  return room;
}

/** The room carried to the next page: the page's last room heading, else the one carried in. */
export function roomAfter(content: PageContent, carried: string | null): string | null {
  return content.rooms[content.rooms.length - 1]?.name ?? carried;
}

/** The first value the reader finds in the texts, in their order; null when none has one. */
export function firstValue<T>(texts: readonly string[], read: (text: string) => T | null): T | null {
  for (const text of texts) {
    const value = read(text);
    if (value !== null) return value;
  }
  return null;
}
