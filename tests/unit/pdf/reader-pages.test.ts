import { deflateSync } from 'node:zlib';
import {
  concatTransformationMatrix,
  degrees,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
} from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { openPdf, type PdfReader } from '../../../lib/pdf/reader';
import { photoColour, photoIndexOf } from '../../support/pdf-fixtures';

const flatPng = (index: number, alpha = false) => {
  const [r, g, b] = photoColour(index);
  return sharp({ create: { width: 120, height: 90, channels: alpha ? 4 : 3, background: { r, g, b, alpha: 1 } } })
    .png()
    .toBuffer();
};
const flatJpeg = (index: number) => {
  const [r, g, b] = photoColour(index);
  return sharp({ create: { width: 120, height: 90, channels: 3, background: { r, g, b } } })
    .jpeg()
    .toBuffer();
};

async function withReader(doc: PDFDocument, use: (reader: PdfReader) => Promise<void>): Promise<void> {
  const reader = await openPdf(await doc.save());
  try {
    await use(reader);
  } finally {
    await reader.close();
  }
}

/** 8-bit RGB samples stored with PNG row predictors (a different filter type on each row). */
function predictedSamples(width: number, height: number, colour: readonly number[]): Buffer {
  const rowBytes = width * 3;
  const rows: Buffer[] = [];
  const raw = (x: number, y: number) => (x < 0 || y < 0 ? 0 : colour[x % 3] + ((y + Math.floor(x / 3)) % 3));
  for (let y = 0; y < height; y++) {
    const type = y % 5;
    const row = Buffer.alloc(rowBytes + 1);
    row[0] = type;
    for (let x = 0; x < rowBytes; x++) {
      const [left, up, upLeft] = [raw(x - 3, y), raw(x, y - 1), raw(x - 3, y - 1)];
      const p = left + up - upLeft;
      const paeth =
        Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft)
          ? left
          : Math.abs(p - up) <= Math.abs(p - upLeft)
            ? up
            : upLeft;
      const predicted = [0, left, up, (left + up) >> 1, paeth][type];
      row[x + 1] = (raw(x, y) - predicted) & 0xff;
    }
    rows.push(row);
  }
  return Buffer.concat(rows);
}

describe('page geometry', () => {
  it('measures from the crop box of a page whose media box is not at 0,0', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    page.setMediaBox(100, 200, 612, 792);
    page.drawImage(await doc.embedJpg(await flatJpeg(7)), { x: 150, y: 300, width: 200, height: 100 });
    await withReader(doc, async (reader) => {
      const layout = await reader.pageLayout(1);
      expect(layout).toMatchObject({ width: 612, height: 792 });
      expect(layout.images[0]).toMatchObject({ x: 50, y: 592, width: 200, height: 100 });
      expect(await photoIndexOf(await reader.renderRegion(1, layout.images[0], 100))).toBe(7);
    });
  });

  it('turns boxes with a rotated page', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    page.setRotation(degrees(90));
    page.drawImage(await doc.embedJpg(await flatJpeg(9)), { x: 100, y: 500, width: 200, height: 100 });
    page.drawText('Turned', { x: 100, y: 400, size: 10 });
    await withReader(doc, async (reader) => {
      const layout = await reader.pageLayout(1);
      expect(layout).toMatchObject({ width: 792, height: 612 });
      const [image] = layout.images;
      expect(image).toMatchObject({ x: 500, y: 100, width: 100, height: 200 });
      expect(await photoIndexOf(await reader.renderRegion(1, image, 100))).toBe(9);
      expect(layout.texts[0]).toMatchObject({ str: 'Turned', x: 400, y: 100, height: expect.any(Number) });
    });
  });

  it('follows images into form XObjects with their matrices', async () => {
    const source = await PDFDocument.create();
    const inner = source.addPage([300, 300]);
    inner.drawImage(await source.embedJpg(await flatJpeg(11)), { x: 10, y: 10, width: 100, height: 80 });
    const doc = await PDFDocument.create();
    const [form] = await doc.embedPdf(await source.save());
    doc.addPage([612, 792]).drawPage(form, { x: 200, y: 300, xScale: 0.5, yScale: 0.5 });
    await withReader(doc, async (reader) => {
      const [image] = (await reader.pageLayout(1)).images;
      expect(image).toMatchObject({ x: 205, y: 792 - 305 - 40, width: 50, height: 40, pixelWidth: 120, jpeg: true });
      expect(await photoIndexOf(await reader.imageJpeg(1, image))).toBe(11);
    });
  });
});

describe('images that are not stored as JPEG', () => {
  it('encodes 8-bit RGB samples with sharp', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([612, 792]).drawImage(await doc.embedPng(await flatPng(20)), { x: 0, y: 0, width: 120, height: 90 });
    await withReader(doc, async (reader) => {
      const [image] = (await reader.pageLayout(1)).images;
      expect(image).toMatchObject({ pixelWidth: 120, pixelHeight: 90, jpeg: false, jpegRange: null });
      const jpeg = await reader.imageJpeg(1, image);
      expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 120, height: 90 });
      expect(await photoIndexOf(jpeg)).toBe(20);
    });
  });

  it('undoes PNG row predictors', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    const colour = photoColour(30);
    const stream = doc.context.stream(deflateSync(predictedSamples(60, 40, colour)), {
      Type: 'XObject',
      Subtype: 'Image',
      Width: 60,
      Height: 40,
      ColorSpace: 'DeviceRGB',
      BitsPerComponent: 8,
      Filter: 'FlateDecode',
      DecodeParms: { Predictor: 15, Colors: 3, Columns: 60 },
    });
    const name = page.node.newXObject('Im', doc.context.register(stream));
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(60, 0, 0, 40, 10, 10),
      drawObject(name),
      popGraphicsState(),
    );
    await withReader(doc, async (reader) => {
      const [image] = (await reader.pageLayout(1)).images;
      const { data } = await sharp(await reader.imageJpeg(1, image))
        .raw()
        .toBuffer({ resolveWithObject: true });
      for (const [c, value] of colour.entries()) expect(Math.abs(data[c] - value)).toBeLessThanOrEqual(4);
    });
  });

  it('renders what it cannot take as samples (here a soft mask) from the page', async () => {
    const doc = await PDFDocument.create();
    doc
      .addPage([612, 792])
      .drawImage(await doc.embedPng(await flatPng(40, true)), { x: 50, y: 50, width: 240, height: 180 });
    await withReader(doc, async (reader) => {
      const [image] = (await reader.pageLayout(1)).images;
      const jpeg = await reader.imageJpeg(1, image);
      // Rendered at the image's own pixel size.
      expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 120, height: 90 });
      expect(await photoIndexOf(jpeg)).toBe(40);
    });
  });
});
