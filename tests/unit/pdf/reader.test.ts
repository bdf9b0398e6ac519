import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { PdfBox, PdfImagePlacement, PdfPageLayout } from '../../../lib/pdf/layout';
import { openPdf, type PdfReader } from '../../../lib/pdf/reader';
import {
  MULTI_SCRIPT_LINES,
  multiScriptPdf,
  TYPE3_WORD,
  type3Pdf,
  WHOLE_FONT_TEXT,
  wholeFontPdf,
} from '../../support/font-pdfs';
import {
  CARD_GRID_HEADER,
  CARD_GRID_ROOMS,
  cardGridList,
  coverAndAppendixList,
  type FixturePhoto,
  HEADER_RUNS_HEADER,
  headerRunsList,
  type ListExpected,
  photoIndexOf,
  scannedList,
} from '../../support/pdf-fixtures';

function expectBox(actual: PdfBox, expected: PdfBox): void {
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    expect(Math.abs(actual[key] - expected[key])).toBeLessThanOrEqual(0.5);
  }
}

async function layouts(reader: PdfReader): Promise<PdfPageLayout[]> {
  const pages: PdfPageLayout[] = [];
  for (let page = 1; page <= reader.pageCount; page++) pages.push(await reader.pageLayout(page));
  return pages;
}

/** Every photo and decoration of the answer is found where it was drawn, and nothing else. */
async function expectPlacements(
  reader: PdfReader,
  expected: ListExpected,
): Promise<Map<FixturePhoto, PdfImagePlacement>> {
  const found = new Map<FixturePhoto, PdfImagePlacement>();
  for (const layout of await layouts(reader)) {
    const photos = expected.photos.filter((photo) => photo.page === layout.page);
    const decorations = expected.decorations.filter((decoration) => decoration.page === layout.page);
    expect(layout.images).toHaveLength(photos.length + decorations.length);
    for (const photo of photos) {
      const image = layout.images.find(
        (each) => Math.abs(each.x - photo.box.x) < 1 && Math.abs(each.y - photo.box.y) < 1,
      );
      expect(image).toBeDefined();
      expectBox(image as PdfImagePlacement, photo.box);
      expect(image).toMatchObject({ pixelWidth: photo.pixelWidth, pixelHeight: photo.pixelHeight, jpeg: true });
      found.set(photo, image as PdfImagePlacement);
    }
    for (const decoration of decorations) {
      const image = layout.images.find((each) => each.pixelWidth === decoration.pixelWidth);
      expectBox(image as PdfImagePlacement, decoration.box);
    }
  }
  return found;
}

describe('openPdf on a card grid', () => {
  let reader: PdfReader;
  let expected: ListExpected;
  let fixture: Awaited<ReturnType<typeof cardGridList>>;

  beforeAll(async () => {
    fixture = await cardGridList({ pages: 3, rooms: true });
    expected = fixture.expected;
    reader = await openPdf(fixture.bytes);
  });
  afterAll(() => reader.close());

  it('reads the page count, the producer and the page size', async () => {
    expect(reader.pageCount).toBe(3);
    expect(reader.producer).toBe('Acme Inventory Suite 4.2');
    expect(await reader.pageLayout(1)).toMatchObject({ page: 1, width: 612, height: 792 });
  });

  it('places every photo where it was drawn and gives its embedded bytes back unchanged', async () => {
    const found = await expectPlacements(reader, expected);
    expect(found.size).toBe(expected.photos.length);
    for (const [photo, image] of found) {
      expect(Buffer.compare(await reader.imageJpeg(photo.page, image), photo.jpeg)).toBe(0);
    }
  });

  it("records where each stored JPEG lies in the document's bytes", async () => {
    const found = await expectPlacements(reader, expected);
    const document = Buffer.from(fixture.bytes);
    for (const [photo, image] of found) {
      const range = image.jpegRange as { offset: number; length: number };
      expect(Buffer.compare(document.subarray(range.offset, range.offset + range.length), photo.jpeg)).toBe(0);
    }
  });

  it("records each image's stored length and the hash of its stored bytes", async () => {
    const found = await expectPlacements(reader, expected);
    for (const [photo, image] of found) {
      expect(image.storedBytes).toBe(photo.jpeg.length);
      expect(image.contentHash).toBe(createHash('sha256').update(photo.jpeg).digest('base64url'));
    }
  });

  it('gives the repeated logo one id on every page', async () => {
    const ids = new Set<string>();
    for (const layout of await layouts(reader)) {
      ids.add((layout.images.find((image) => image.pixelWidth === 96) as PdfImagePlacement).id);
    }
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^\d+ \d+ R$/);
  });

  it('reads the texts with their top-left boxes', async () => {
    const layout = await reader.pageLayout(2);
    const strings = layout.texts.map((text) => text.str);
    expect(strings).toEqual(expect.arrayContaining([CARD_GRID_HEADER, `Room: ${CARD_GRID_ROOMS[0]}`, 'Page 2 of 3']));
    expect(strings.every((str) => str.trim() !== '')).toBe(true);
    const first = expected.photos.find((photo) => photo.page === 2 && photo.box.y > 100) as FixturePhoto;
    const group = expected.groups.find((each) => each.photos.includes(first.index));
    const label = layout.texts.find(
      (text) => text.str === group?.label && Math.abs(text.x - first.box.x) < 0.5 && text.y > first.box.y,
    );
    // The label's baseline is 14 pt under the photo, in 11 pt type.
    expectBox(label as PdfBox, {
      x: first.box.x,
      y: first.box.y + first.box.height + 3,
      width: label?.width ?? 0,
      height: 11,
    });
    const header = layout.texts.find((text) => text.str === CARD_GRID_HEADER);
    expectBox(header as PdfBox, { x: 40, y: 19, width: header?.width ?? 0, height: 9 });
  });

  it('renders a page to the asked long edge, and a region at the colour drawn there', async () => {
    const page = await sharp(await reader.renderPage(1, 1000)).metadata();
    expect([page.format, page.width, page.height]).toEqual(['jpeg', 773, 1000]);
    const photo = expected.photos[3];
    const region = await reader.renderRegion(photo.page, photo.box, 300);
    expect(await sharp(region).metadata()).toMatchObject({ width: 300, height: 225 });
    expect(await photoIndexOf(region)).toBe(photo.index);
  });

  it('opened without the rendering check, takes stored photos out and still reads text and renders later', async () => {
    const fixture = await cardGridList({ pages: 2 });
    // The placement comes from a reader of the same bytes (image ids are the file's object numbers).
    const eager = await openPdf(fixture.bytes);
    const photo = fixture.expected.photos[0];
    const placed = (await eager.pageLayout(1)).images.find(
      (image) => image.pixelWidth === photo.pixelWidth,
    ) as PdfImagePlacement;
    await eager.close();
    const lazy = await openPdf(fixture.bytes, { checkRendering: false });
    try {
      expect(Buffer.compare(await lazy.imageJpeg(1, placed), fixture.expected.photos[0].jpeg)).toBe(0);
      expect((await lazy.pageLayout(2)).texts.length).toBeGreaterThan(0);
      expect((await sharp(await lazy.renderPage(1, 200)).metadata()).height).toBe(200);
    } finally {
      await lazy.close();
    }
  });

  it('refuses pages outside the document', async () => {
    await expect(reader.pageLayout(4)).rejects.toThrow(RangeError);
    await expect(reader.renderPage(0, 100)).rejects.toThrow(RangeError);
  });
});

describe('openPdf on the other layouts', () => {
  it('places the photos of a header-runs list across its pages', async () => {
    const { bytes, expected } = await headerRunsList();
    const reader = await openPdf(bytes);
    try {
      expect(reader.pageCount).toBe(expected.pageCount);
      const found = await expectPlacements(reader, expected);
      expect(found.size).toBe(expected.photos.length);
      const layout = await reader.pageLayout(2);
      expect(layout.texts.map((text) => text.str)).toEqual(
        expect.arrayContaining([HEADER_RUNS_HEADER, 'Item 3 - Washing machine', 'Page 2']),
      );
      // The open item carries over the page break.
      expect(expected.groups.find((group) => group.label === 'Item 3 - Washing machine')?.pages).toEqual([2, 3]);
    } finally {
      await reader.close();
    }
  });

  it('tells the cover and appendix images apart by their pixel sizes', async () => {
    const { bytes, expected } = await coverAndAppendixList();
    const reader = await openPdf(bytes);
    try {
      await expectPlacements(reader, expected);
      const cover = await reader.pageLayout(1);
      expect(cover.images.map((image) => [image.pixelWidth, image.pixelHeight])).toEqual([[600, 300]]);
      const appendix = await reader.pageLayout(6);
      expect(appendix.images.map((image) => [image.pixelWidth, image.pixelHeight])).toEqual([[400, 120]]);
      expect(appendix.texts.map((text) => text.str)).toContain('Terms and conditions');
    } finally {
      await reader.close();
    }
  });

  it('reads a scanned list as one full-page image per page and no text', async () => {
    const { bytes, expected } = await scannedList();
    const reader = await openPdf(bytes);
    try {
      for (const layout of await layouts(reader)) {
        expect(layout.texts).toEqual([]);
        expect(layout.images).toHaveLength(1);
        const [image] = layout.images;
        expect(image).toMatchObject({ x: 0, y: 0, width: 612, height: 792, pixelWidth: expected.pagePx[0] });
        expect(Buffer.compare(await reader.imageJpeg(layout.page, image), expected.pageJpegs[layout.page - 1])).toBe(0);
      }
      const photo = expected.photos[5];
      expect(await photoIndexOf(await reader.renderRegion(photo.page, photo.box, 200))).toBe(5);
    } finally {
      await reader.close();
    }
  });
});

describe('openPdf on embedded fonts (within the font limits)', () => {
  /** The text runs of the document's only page. */
  async function pageText(bytes: Uint8Array): Promise<string[]> {
    const reader = await openPdf(bytes);
    try {
      return (await reader.pageLayout(1)).texts.map((text) => text.str);
    } finally {
      await reader.close();
    }
  }

  it('reads text set in subsets of Latin, Arabic, Hebrew, Chinese and Korean fonts', async () => {
    expect(await pageText(await multiScriptPdf())).toEqual(MULTI_SCRIPT_LINES);
  });

  it('reads text set in a whole Chinese font (8 MB of font program)', async () => {
    expect(await pageText(wholeFontPdf())).toEqual([WHOLE_FONT_TEXT]);
  });

  it('reads text set in a Type3 font', async () => {
    expect(await pageText(type3Pdf())).toEqual([TYPE3_WORD]);
  });
});
