import type { PdfImagePlacement } from '../../../../../lib/pdf/layout';
import { repeatedImages } from '../../../../../lib/pipelines/pdf/page/repeated-image-rules';
import { image, page } from '../../../../support/pdf-layouts';

const ids = (found: Set<PdfImagePlacement>) => [...found].map((i) => i.id).sort();

/** A drawing with its stored bytes' hash and length. */
const stored = (
  id: string,
  box: [number, number, number, number],
  hash: string,
  bytes: number,
  pixels = { width: 600, height: 400 },
): PdfImagePlacement => ({ ...image(id, ...box, pixels), contentHash: hash, storedBytes: bytes });

describe('repeatedImages by object', () => {
  const withImages = (n: number, names: string[]) => page(n, { images: names.map((id) => image(id, 0, 0, 10, 10)) });

  it('takes images drawn on more than half of the pages, and on at least two', () => {
    expect(ids(repeatedImages([withImages(1, ['logo', 'logo', 'a'])]))).toEqual([]);
    expect(ids(repeatedImages([withImages(1, ['logo']), withImages(2, ['logo'])]))).toEqual(['logo', 'logo']);
    const four = [
      withImages(1, ['logo', 'half']),
      withImages(2, ['logo', 'half']),
      withImages(3, ['logo']),
      withImages(4, []),
    ];
    expect(ids(repeatedImages(four))).toEqual(['logo', 'logo', 'logo']);
  });
});

describe('repeatedImages by stored bytes', () => {
  it('takes one picture embedded anew on most pages (its own object each time), not the photos', () => {
    const pages = [1, 2, 3, 4].map((n) =>
      page(n, {
        images: [
          stored(`logo-${n}`, [500, 10, 80, 40], 'LOGO', 3000 + n * 40, { width: 200, height: 100 }),
          stored(`photo-${n}a`, [40, 80, 200, 150], `A${n}`, 50_000 + n),
          stored(`photo-${n}b`, [300, 80, 200, 150], `B${n}`, 50_000 + n),
        ],
      }),
    );
    // The logo's copies even lie at other places and store other lengths: the hash alone tells.
    pages[2].images[0] = { ...pages[2].images[0], x: 20, y: 700 };
    expect(ids(repeatedImages(pages))).toEqual(['logo-1', 'logo-2', 'logo-3', 'logo-4']);
    // On half of the pages only, it is not furniture.
    expect(ids(repeatedImages([pages[0], pages[1], page(3, {}), page(4, {})]))).toEqual([]);
  });
});

describe('repeatedImages by place', () => {
  /** Pages of two photos of the document's photo size (600 x 400), the same two slots on every page. */
  const gridPages = (count: number, extra: (n: number) => PdfImagePlacement[]) =>
    Array.from({ length: count }, (_, i) =>
      page(i + 1, {
        images: [
          stored(`p${i}a`, [40, 80, 200, 150], `A${i}`, 40_000),
          stored(`p${i}b`, [300, 80, 200, 150], `B${i}`, 40_001),
          ...extra(i + 1),
        ],
      }),
    );

  it('takes a picture re-encoded on every page: same pixel size, same box, nearly the same stored length', () => {
    const pages = gridPages(4, (n) => [
      stored(`logo-${n}`, [500, 10, 80, 40], `L${n}`, [2878, 2915, 2924, 2927][n - 1], { width: 200, height: 100 }),
    ]);
    expect(ids(repeatedImages(pages))).toEqual(['logo-1', 'logo-2', 'logo-3', 'logo-4']);
  });

  it("never takes the grid's photos, though they share their size, their slots and their byte counts", () => {
    expect(ids(repeatedImages(gridPages(4, () => [])))).toEqual([]);
  });

  it('keeps a photo of another size in the same box on every page when its stored lengths differ', () => {
    const overview = [180_000, 240_000, 95_000, 310_000];
    const pages = gridPages(4, (n) => [
      stored(`room-${n}`, [40, 300, 400, 300], `R${n}`, overview[n - 1], { width: 1600, height: 1200 }),
    ]);
    expect(ids(repeatedImages(pages))).toEqual([]);
  });

  it('needs three pages to go by place alone', () => {
    const pages = gridPages(2, (n) => [
      stored(`logo-${n}`, [500, 10, 80, 40], `L${n}`, 2900 + n, { width: 200, height: 100 }),
    ]);
    expect(ids(repeatedImages(pages))).toEqual([]);
  });

  it('goes by place only past the photo size: with no size the photos share, nothing is taken by place', () => {
    // Three cameras, no size a majority: the photo size is unknown, so no place is trusted.
    const sizes = [
      { width: 600, height: 400 },
      { width: 800, height: 600 },
      { width: 1024, height: 768 },
    ];
    const pages = [1, 2, 3, 4].map((n) =>
      page(n, {
        images: [
          stored(`photo-${n}`, [40, 80, 400, 300], `P${n}`, 5000, sizes[n % 3]),
          stored(`logo-${n}`, [500, 10, 80, 40], `L${n}`, 5000, { width: 200, height: 100 }),
        ],
      }),
    );
    expect(ids(repeatedImages(pages))).toEqual([]);
  });
});
