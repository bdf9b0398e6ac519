/**
 * What the PDF fixtures (./pdf-fixtures.ts) share: page drawing with a
 * top-left origin, the photos' colours, and the answer collected as pages
 * are drawn.
 */
import { type PDFDocument, type PDFFont, type PDFImage, type PDFPage, rgb, StandardFonts } from '@cantoo/pdf-lib';
import PDFKit from 'pdfkit';
import sharp from 'sharp';
import type { PdfBox } from '../../lib/pdf/layout';

export const PAGE_WIDTH = 612;
export const PAGE_HEIGHT = 792;

export type Rgb = readonly [number, number, number];

/** One embedded photo: where it is drawn and the exact JPEG bytes embedded. */
export interface FixturePhoto {
  index: number;
  page: number;
  box: PdfBox;
  pixelWidth: number;
  pixelHeight: number;
  rgb: Rgb;
  jpeg: Buffer;
}

/** One item of the list as printed. */
export interface ExpectedGroup {
  room: string | null;
  label: string | null;
  quantity: number | null;
  description: string | null;
  capturedAt: string | null;
  /** Photo indices (FixturePhoto.index) in document order. */
  photos: number[];
  /** Pages its photos are on. */
  pages: number[];
}

export interface ListExpected {
  pageCount: number;
  /** First and last page of the inventory (pages holding the dominant photo size). */
  inventoryPages: [number, number];
  /** Lines printed on every inventory page (header, footer with its digits). */
  repeatingLines: string[];
  groups: ExpectedGroup[];
  photos: FixturePhoto[];
  /** Other images (logos, signatures): never photos. */
  decorations: { page: number; box: PdfBox; pixelWidth: number; pixelHeight: number }[];
}

export interface PdfFixture<E = ListExpected> {
  bytes: Uint8Array;
  expected: E;
}

const LEVELS = 13;
const STEP = 20;

/** Photo `index`'s flat colour: 13 levels per channel 20 apart, so 2,197 colours JPEG cannot confuse. */
export function photoColour(index: number): Rgb {
  const i = index % LEVELS ** 3;
  return [
    10 + STEP * (i % LEVELS),
    10 + STEP * (Math.floor(i / LEVELS) % LEVELS),
    10 + STEP * Math.floor(i / LEVELS ** 2),
  ];
}

/** Which photo a JPEG shows (the index modulo 2,197), from its mean colour. */
export async function photoIndexOf(jpeg: Buffer): Promise<number> {
  const { channels } = await sharp(jpeg).stats();
  const level = (mean: number) => Math.min(LEVELS - 1, Math.max(0, Math.round((mean - 10) / STEP)));
  return level(channels[0].mean) + LEVELS * level(channels[1].mean) + LEVELS ** 2 * level(channels[2].mean);
}

export async function flatJpeg(colour: Rgb, width: number, height: number): Promise<Buffer> {
  const [r, g, b] = colour;
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The grain camera-like photos are cut from: gaussian noise, slightly blurred, around mid-grey. */
const GRAIN = { width: 2048, height: 1536, sigma: 24, blur: 0.8 };
let grain: Promise<Buffer> | null = null;

/**
 * A photo of a camera's size and texture (vendor lists carry 100-300 KB JPEGs, not flat colours): a crop of the
 * shared grain, its place shifted with `index` so no two photos have the same bytes, moved to `colour` (the mean
 * colour stays the photo's own, as photoIndexOf reads it). About 130-150 KB at 1024×768.
 */
async function cameraJpeg(colour: Rgb, index: number, width: number, height: number): Promise<Buffer> {
  grain ??= sharp({
    create: {
      width: GRAIN.width,
      height: GRAIN.height,
      channels: 3,
      background: { r: 128, g: 128, b: 128 },
      noise: { type: 'gaussian', mean: 128, sigma: GRAIN.sigma },
    },
  })
    .blur(GRAIN.blur)
    .raw()
    .toBuffer();
  const raw = { width: GRAIN.width, height: GRAIN.height, channels: 3 as const };
  return sharp(await grain, { raw })
    .extract({
      left: (index * 37) % (GRAIN.width - width + 1),
      top: (index * 53) % (GRAIN.height - height + 1),
      width,
      height,
    })
    .linear(
      [1, 1, 1],
      colour.map((c) => c - 128),
    )
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Draws with top-left coordinates. */
export class Sheet {
  constructor(
    readonly page: PDFPage,
    readonly number: number,
  ) {}

  text(str: string, x: number, baseline: number, size: number, font: PDFFont): void {
    this.page.drawText(str, { x, y: PAGE_HEIGHT - baseline, size, font, color: rgb(0, 0, 0) });
  }

  image(image: PDFImage, box: PdfBox): void {
    this.page.drawImage(image, { x: box.x, y: PAGE_HEIGHT - box.y - box.height, width: box.width, height: box.height });
  }
}

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

export async function fontsOf(doc: PDFDocument): Promise<Fonts> {
  return {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };
}

/** Collects photos and groups as pages are drawn. */
export class Answer {
  readonly photos: FixturePhoto[] = [];
  readonly groups: ExpectedGroup[] = [];
  readonly decorations: ListExpected['decorations'] = [];

  constructor(
    readonly doc: PDFDocument,
    readonly photoPx: readonly [number, number],
    /** Camera-like photos (cameraJpeg) instead of flat colours. */
    readonly cameraPhotos = false,
  ) {}

  /** Draws the next photo in `box` (of `px` pixels, the list's photo size unless given) under `group`. */
  async photo(
    sheet: Sheet,
    box: PdfBox,
    group: Omit<ExpectedGroup, 'photos' | 'pages'>,
    px: readonly [number, number] = this.photoPx,
  ): Promise<void> {
    const index = this.photos.length;
    const colour = photoColour(index);
    const [pixelWidth, pixelHeight] = px;
    const jpeg = this.cameraPhotos
      ? await cameraJpeg(colour, index, pixelWidth, pixelHeight)
      : await flatJpeg(colour, pixelWidth, pixelHeight);
    sheet.image(await this.doc.embedJpg(jpeg), box);
    this.photos.push({ index, page: sheet.number, box, pixelWidth, pixelHeight, rgb: colour, jpeg });
    let entry = this.groups.find((g) => g.room === group.room && g.label === group.label);
    if (!entry) {
      entry = { ...group, photos: [], pages: [] };
      this.groups.push(entry);
    }
    entry.photos.push(index);
    if (!entry.pages.includes(sheet.number)) entry.pages.push(sheet.number);
  }
}

/** The bytes of a PDF pdfkit writes with `options`, its pages drawn by `draw`. */
export function pdfkitBytes(
  options: PDFKit.PDFDocumentOptions,
  draw: (doc: PDFKit.PDFDocument) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFKit(options);
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    draw(doc);
    doc.end();
  });
}
