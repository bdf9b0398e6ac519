/**
 * The images a contents list repeats on most of its pages: logos,
 * letterheads, stamps. They are the document's furniture, never photos
 * (card_grid: a photo does not repeat on most pages). A picture repeats when
 * it is on more than half of the pages (and on at least two) as
 *  - the same image object, drawn again on every page;
 *  - the same stored bytes, embedded anew on every page (a writer that
 *    embeds the logo once per page gives each copy its own object);
 *  - or, re-encoded on every page (the bytes differ), the same pixel size
 *    drawn in the same box with stored sizes within a few percent, on at
 *    least three pages. This one is left to images that are not of the
 *    document's photo size: a grid's photos share their size and their
 *    slots on every page, and flat or similar photos can share their byte
 *    counts too, so a photo slot would look like a logo by place alone.
 * Nothing here reads the file: the layouts carry each image's id, the hash
 * of its stored bytes and their length.
 */
import type { PdfImagePlacement, PdfPageLayout } from '../../../pdf/layout';
import { inventoryPageRange } from './page-range-rules';

/** A group of drawings repeats when it is on more than this share of the pages. */
const MOST_PAGES = 0.5;

/** Re-encoded copies of one picture are recognised by place only on at least this many pages. */
const MIN_PAGES_BY_PLACE = 3;

/** Re-encoded copies of one picture store within this share of their median length. */
const SAME_SIZE_SHARE = 0.05;

interface Drawing {
  page: number;
  image: PdfImagePlacement;
}

/** The drawings grouped by `key` (null: the drawing has no such key). */
function groupBy(pages: readonly PdfPageLayout[], key: (image: PdfImagePlacement) => string | null) {
  const groups = new Map<string, Drawing[]>();
  for (const page of pages) {
    for (const image of page.images) {
      const k = key(image);
      if (k === null) continue;
      const group = groups.get(k) ?? [];
      group.push({ page: page.page, image });
      groups.set(k, group);
    }
  }
  return groups.values();
}

function onMostPages(drawings: readonly Drawing[], pageCount: number, minPages = 2): boolean {
  const pages = new Set(drawings.map((d) => d.page)).size;
  return pages >= minPages && pages > pageCount * MOST_PAGES;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** The drawings of `pages` that repeat (see the module comment), by identity. */
export function repeatedImages(pages: readonly PdfPageLayout[]): Set<PdfImagePlacement> {
  const repeated = new Set<PdfImagePlacement>();
  const take = (drawings: readonly Drawing[]) => {
    for (const { image } of drawings) repeated.add(image);
  };
  for (const group of groupBy(pages, (image) => image.id)) if (onMostPages(group, pages.length)) take(group);
  for (const group of groupBy(pages, (image) => image.contentHash ?? null)) {
    if (onMostPages(group, pages.length)) take(group);
  }

  // The photo size among what is left: a logo drawn on every page must not tie with one photo a page.
  const dominant = inventoryPageRange(
    pages.map((page) => ({ page: page.page, images: page.images.filter((image) => !repeated.has(image)) })),
  ).dominant;
  if (!dominant) return repeated;
  const isPhotoSize = (image: PdfImagePlacement) =>
    (image.pixelWidth === dominant.width && image.pixelHeight === dominant.height) ||
    (image.pixelWidth === dominant.height && image.pixelHeight === dominant.width);
  const byPlace = (image: PdfImagePlacement) =>
    isPhotoSize(image) || image.storedBytes === undefined
      ? null
      : [image.pixelWidth, image.pixelHeight, image.x, image.y, image.width, image.height].map(Math.round).join(',');
  for (const group of groupBy(pages, byPlace)) {
    const middle = median(group.map((d) => d.image.storedBytes as number));
    const alike = group.filter((d) => Math.abs((d.image.storedBytes as number) - middle) <= middle * SAME_SIZE_SHARE);
    if (onMostPages(alike, pages.length, MIN_PAGES_BY_PLACE)) take(alike);
  }
  return repeated;
}
