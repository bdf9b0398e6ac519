/**
 * Where the inventory is in a contents list. Vendors wrap the photo pages in
 * a cover letter, a summary, terms or an appendix; the photos themselves
 * come out of one camera pipeline and share a pixel size. The pages carrying
 * that size bound the inventory. Only the ends are trimmed: a page inside
 * the range without such a photo (a room divider, a note) stays in.
 */

interface PageImages {
  page: number;
  images: { pixelWidth: number; pixelHeight: number }[];
}

interface PixelSize {
  width: number;
  height: number;
}

export interface InventoryPageRange {
  /** First and last page of the inventory (1-based, inclusive). */
  first: number;
  last: number;
  /** The photos' pixel size, or null when there is none (the whole document is the range). */
  dominant: PixelSize | null;
}

/** Images smaller than this on either edge are rules, bullets and spacers, never photos: they do not vote. */
export const MIN_VOTING_PX = 32;

/** The dominant size must be more than this share of the images that vote. */
const DOMINANT_SHARE = 0.5;

/** A size and its turned form are one size: a portrait photo from the landscape camera. */
const sizeKey = (w: number, h: number) => `${Math.max(w, h)}x${Math.min(w, h)}`;

/**
 * The inventory's page range. The dominant size is the pixel size (either
 * way up) of more than half of the embedded images at least MIN_VOTING_PX on
 * both edges, each drawing counted; it is reported the way up most of its
 * images are. No image, or no size holding that majority (photos from many
 * cameras, nothing a clear majority), gives the whole document. Pages come
 * in any order; an empty list is the empty range 1..0.
 */
export function inventoryPageRange(pages: readonly PageImages[]): InventoryPageRange {
  const numbers = pages.map((p) => p.page);
  const whole: InventoryPageRange = {
    first: numbers.length ? Math.min(...numbers) : 1,
    last: numbers.length ? Math.max(...numbers) : 0,
    dominant: null,
  };
  const counts = new Map<string, number>();
  const turns = new Map<string, Map<string, { size: PixelSize; count: number }>>();
  let voters = 0;
  for (const page of pages) {
    for (const { pixelWidth: width, pixelHeight: height } of page.images) {
      if (Math.min(width, height) < MIN_VOTING_PX) continue;
      voters += 1;
      const key = sizeKey(width, height);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const ways = turns.get(key) ?? new Map<string, { size: PixelSize; count: number }>();
      const way = ways.get(`${width}x${height}`) ?? { size: { width, height }, count: 0 };
      way.count += 1;
      ways.set(`${width}x${height}`, way);
      turns.set(key, ways);
    }
  }
  let best: string | null = null;
  for (const [key, count] of counts) if (best === null || count > (counts.get(best) as number)) best = key;
  if (best === null || (counts.get(best) as number) <= voters * DOMINANT_SHARE) return whole;

  const key = best;
  const carrying = pages
    .filter((p) => p.images.some((i) => sizeKey(i.pixelWidth, i.pixelHeight) === key))
    .map((p) => p.page);
  // Map order is first-seen order, so a tie between the two ways up goes to the one seen first.
  const ways = [...(turns.get(key) as Map<string, { size: PixelSize; count: number }>).values()];
  const dominant = ways.reduce((a, b) => (b.count > a.count ? b : a)).size;
  return { first: Math.min(...carrying), last: Math.max(...carrying), dominant };
}
