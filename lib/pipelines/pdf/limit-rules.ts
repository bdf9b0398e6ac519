/**
 * The PDF import's limits per document: what a read takes on at most, and
 * what the user is told when a document goes past one. Over a limit the read
 * stops there and keeps what it found.
 */
import { plural } from '../../text';

export const MAX_PDF_PAGES = 2000;
export const MAX_PDF_IMAGES = 12000;
/** Bytes of photos taken out of one document. */
export const MAX_EXTRACTED_BYTES = 1024 ** 3;

/**
 * Pages a layout unit reads. Each unit opens the whole document again, so
 * units are large: a page's text takes milliseconds, and a 2,000-page list
 * is still read by 7 units side by side, each well inside a minute. The
 * first unit is read by the stage that opened the document to count its
 * pages, so a list of up to this many pages is opened once.
 */
export const LAYOUT_PAGES_PER_UNIT = 300;
/**
 * Embedded photos an extraction unit takes out: they are copied as stored,
 * so a unit's time is its bucket writes (BUCKET_WRITES_IN_FLIGHT at once),
 * and 12,000 photos are still 20 units.
 */
export const PHOTOS_PER_UNIT = 600;
/** Pages an extraction unit renders and has marked (page images: one AI call per page). */
export const RENDERED_PAGES_PER_UNIT = 4;
/** Photos page_image may cut from one page: each page reserves this many numbers. */
export const MAX_REGIONS_PER_PAGE = 24;

/** The pages read of a document of `pageCount` pages, and the message when the limit cut it. */
export function pagesToRead(pageCount: number): { pages: number; limit: string | null } {
  if (pageCount <= MAX_PDF_PAGES) return { pages: pageCount, limit: null };
  return {
    pages: MAX_PDF_PAGES,
    limit: `The document has ${pageCount} pages; only the first ${MAX_PDF_PAGES} were read (the limit per contents list).`,
  };
}

/** The photos taken of `found`, and the message when the image limit cut them. */
export function imagesToTake(found: number): { take: number; limit: string | null } {
  if (found <= MAX_PDF_IMAGES) return { take: found, limit: null };
  return {
    take: MAX_PDF_IMAGES,
    limit: `The document holds ${plural(found, 'photo')}; only the first ${MAX_PDF_IMAGES} were taken (the limit per contents list).`,
  };
}

export const BYTES_LIMIT_REACHED = `The photos taken out of the document reached ${MAX_EXTRACTED_BYTES / 1024 ** 3} GiB (the limit per contents list); the rest were left in it.`;

/** Consecutive page ranges of `size` pages over pages 1..count. */
export function pageRanges(count: number, size: number): { first: number; last: number }[] {
  const ranges: { first: number; last: number }[] = [];
  for (let first = 1; first <= count; first += size) ranges.push({ first, last: Math.min(count, first + size - 1) });
  return ranges;
}

/** Cuts a list into consecutive runs of at most `size`. */
export function inRuns<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}
