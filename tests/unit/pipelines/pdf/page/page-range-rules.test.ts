/** Covers: lib/pipelines/pdf/page/page-range-rules.ts (the inventory's page range from the photos' pixel size). */
import { inventoryPageRange, MIN_VOTING_PX } from '../../../../../lib/pipelines/pdf/page/page-range-rules';

const img = (pixelWidth: number, pixelHeight: number) => ({ pixelWidth, pixelHeight });
const photo = img(1600, 1200);
const logo = img(400, 120);

/** A cover page, a summary, inventory pages 3..8, an appendix with a diagram and a blank back page. */
const wrapped = [
  { page: 1, images: [logo, img(800, 600)] },
  { page: 2, images: [logo] },
  { page: 3, images: [logo, photo, photo, photo, photo] },
  { page: 4, images: [logo, photo, photo, photo, photo] },
  { page: 5, images: [logo] },
  { page: 6, images: [logo, photo, photo, img(1200, 1600)] },
  { page: 7, images: [logo, photo, photo, photo, photo] },
  { page: 8, images: [logo, photo] },
  { page: 9, images: [logo, img(2000, 1000)] },
  { page: 10, images: [] },
];

describe('inventoryPageRange', () => {
  it('bounds the range by the first and last pages carrying the dominant size', () => {
    expect(inventoryPageRange(wrapped)).toEqual({ first: 3, last: 8, dominant: { width: 1600, height: 1200 } });
  });

  it('trims only the ends: a page inside the range without a photo stays in', () => {
    const range = inventoryPageRange(wrapped);
    expect(range.first).toBeLessThan(5);
    expect(range.last).toBeGreaterThan(5);
  });

  it('reads pages in any order', () => {
    expect(inventoryPageRange([...wrapped].reverse())).toEqual(inventoryPageRange(wrapped));
  });

  it('counts a portrait photo as the same size, and reports the way up most photos are', () => {
    const pages = [
      { page: 1, images: [logo] },
      { page: 2, images: [img(1200, 1600), photo, photo] },
      { page: 3, images: [photo] },
      { page: 4, images: [logo] },
    ];
    expect(inventoryPageRange(pages)).toEqual({ first: 2, last: 3, dominant: { width: 1600, height: 1200 } });
    const portrait = pages.map((p) => ({ ...p, images: p.images.map((i) => (i === photo ? img(1200, 1600) : i)) }));
    expect(inventoryPageRange(portrait).dominant).toEqual({ width: 1200, height: 1600 });
  });

  it('gives a tie between the two ways up to the one seen first', () => {
    const pages = [
      { page: 1, images: [img(1200, 1600)] },
      { page: 2, images: [photo] },
    ];
    expect(inventoryPageRange(pages).dominant).toEqual({ width: 1200, height: 1600 });
  });

  it('uses the whole document when there are no images', () => {
    expect(
      inventoryPageRange([
        { page: 1, images: [] },
        { page: 2, images: [] },
        { page: 3, images: [] },
      ]),
    ).toEqual({ first: 1, last: 3, dominant: null });
  });

  it('uses the whole document when no size holds more than half of the images', () => {
    const pages = [
      { page: 1, images: [logo] },
      { page: 2, images: [img(4032, 3024), img(4000, 3000)] },
      { page: 3, images: [img(4032, 3024), img(1600, 1200)] },
      { page: 4, images: [img(4000, 3000), logo] },
    ];
    expect(inventoryPageRange(pages)).toEqual({ first: 1, last: 4, dominant: null });
  });

  it('needs a strict majority: exactly half is not dominant', () => {
    const pages = [
      { page: 1, images: [logo] },
      { page: 2, images: [photo] },
    ];
    expect(inventoryPageRange(pages).dominant).toBeNull();
  });

  it('lets no tiny image vote (spacers, bullets, rules)', () => {
    const spacer = img(MIN_VOTING_PX - 1, 400);
    const pages = [
      { page: 1, images: [spacer, spacer, spacer, spacer] },
      { page: 2, images: [photo, spacer, spacer] },
      { page: 3, images: [photo, spacer] },
      { page: 4, images: [spacer, spacer, spacer] },
    ];
    expect(inventoryPageRange(pages)).toEqual({ first: 2, last: 3, dominant: { width: 1600, height: 1200 } });
    expect(
      inventoryPageRange([
        { page: 1, images: [spacer] },
        { page: 2, images: [] },
      ]),
    ).toEqual({
      first: 1,
      last: 2,
      dominant: null,
    });
  });

  it('takes a single photo as the dominant size', () => {
    expect(
      inventoryPageRange([
        { page: 1, images: [] },
        { page: 2, images: [photo] },
        { page: 3, images: [] },
      ]),
    ).toEqual({ first: 2, last: 2, dominant: { width: 1600, height: 1200 } });
  });

  it('gives the empty range 1..0 for no pages', () => {
    expect(inventoryPageRange([])).toEqual({ first: 1, last: 0, dominant: null });
  });
});
