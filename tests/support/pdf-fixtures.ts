/**
 * Vendor contents lists generated at test time with pdf-lib (photos made with
 * sharp), each with its known answer:
 *
 *  - cardGridList: 2×3 photo cards per page, label just under each photo,
 *    caption lines under the label; a repeated header naming the insured and
 *    the claim, "Page N of M" footers, a logo on every page (small and drawn
 *    once unless `logo` says otherwise); optional "Room: X" headings; with
 *    `portraitEvery`, some photos portrait, centred in their landscape card,
 *    their label and caption printed from the card's left edge (left of the photo).
 *  - headerRunsList: "Item N - Name" headings, each owning the photos below it
 *    until the next heading (across page breaks); photos before the first heading.
 *  - scannedList: each page one full-page JPEG of a card layout, no text layer.
 *  - coverAndAppendixList: a cover (big logo, title), card-grid inventory pages,
 *    appendix pages (terms, a signature image).
 *  - badPdfs: files that are not readable PDFs, and a PDF with a photo's name.
 *
 * Every photo is a flat colour of its own (photoColour(index)), so a JPEG the
 * import produced tells which photo it is (photoIndexOf). Boxes are in points
 * with a top-left origin, like lib/pdf/layout.ts.
 *
 * Expected groups are the document's items as printed, one group per
 * (room, label) in order of first appearance, before any split over the
 * per-item photo limit: `description` is the caption lines joined with spaces
 * (a leading "N x" kept), `quantity` comes from that "N x" (null without
 * one), `capturedAt` is the printed "Photographed" date normalised.
 */
import { PDFDocument, type PDFImage } from '@cantoo/pdf-lib';
import { randomInt } from 'node:crypto';
import sharp from 'sharp';
import type { PdfBox, PdfUnreadableKind } from '../../lib/pdf/layout';
import {
  Answer,
  type ExpectedGroup,
  type Fonts,
  flatJpeg,
  fontsOf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  type PdfFixture,
  pdfkitBytes,
  photoColour,
  type Rgb,
  Sheet,
} from './pdf-drawing';

export { type FixturePhoto, type ListExpected, photoColour, photoIndexOf } from './pdf-drawing';
// ---------------------------------------------------------------------------------------------------------------
// Card grid

/** The recipe the AI (the fake gateway, as scripted by a test) answers for a card-grid list. */
export const CARD_GRID_RECIPE = {
  strategy: 'card_grid',
  label_pattern: null,
  room_pattern: null,
  ignore_patterns: ['^Page \\d+ of \\d+$'],
  description_position: 'below',
  description_max_gap_pt: 24,
  description_line_gap_pt: 6,
  min_image_px: 80,
};

/**
 * A word that makes one test's layout its own: six random letters. The
 * layout fingerprint masks digits, so a tag with digits in it ('1a2b3c',
 * '4a5b6c') can print differently and still fingerprint alike; letters never do.
 */
export const layoutTag = () => Array.from({ length: 6 }, () => String.fromCharCode(97 + randomInt(26))).join('');

export const CARD_GRID_HEADER = 'Acme Restoration - Contents inventory - Claim 88-12345 - Insured: Jane Doe';
export const CARD_GRID_ROOMS = ['Kitchen', 'Living Room', 'Master Bedroom', 'Garage'];

interface ItemTemplate {
  label: string;
  caption: string;
  photos: number;
}

/** Cycled through; "Dining chair" has 7 photos (more than 5 under one label). */
const ITEMS: ItemTemplate[] = [
  { label: 'Sofa', caption: 'Grey fabric three-seat sofa', photos: 2 },
  { label: 'Dining chair', caption: '6 x Oak dining chairs', photos: 7 },
  { label: 'Table lamp', caption: '2 x Brass table lamps', photos: 1 },
  { label: 'Television', caption: 'Samsung 55in LED television', photos: 3 },
  { label: 'Bookcase', caption: 'Pine bookcase with five shelves', photos: 1 },
  { label: 'Area rug', caption: 'Wool area rug 8 by 10 ft', photos: 2 },
  { label: 'Coffee table', caption: 'Glass top coffee table', photos: 1 },
  { label: 'Dinner plates', caption: '12 x Stoneware dinner plates', photos: 2 },
];

/** Single-photo items that fill page 1 before the caption whose photo starts page 2. */
const OPENERS: ItemTemplate[] = [
  { label: 'Armchair', caption: 'Leather armchair', photos: 1 },
  { label: 'Side table', caption: 'Walnut side table', photos: 1 },
  { label: 'Mirror', caption: 'Gilt wall mirror', photos: 1 },
  { label: 'Clock', caption: 'Mantel clock', photos: 1 },
  { label: 'Vase', caption: '3 x Ceramic vases', photos: 1 },
];
const CARRIED_OVER: ItemTemplate = { label: 'Floor lamp', caption: 'Arc floor lamp with marble base', photos: 1 };

const CARD = { photoWidth: 200, photoHeight: 150, columns: [40, 330], rows: [70, 305, 540] };

function slotBox(slot: number): PdfBox {
  return {
    x: CARD.columns[slot % 2],
    y: CARD.rows[Math.floor(slot / 2)],
    width: CARD.photoWidth,
    height: CARD.photoHeight,
  };
}

/** "03/14/2024 2:15 PM" and its normalised form for item `n`. */
function photographedAt(n: number): { printed: string; iso: string } {
  const at = new Date(Date.UTC(2024, 2, 14, 14, 15) + n * 7 * 60_000 + n * 86_400_000);
  const pad = (v: number) => String(v).padStart(2, '0');
  const hours = at.getUTCHours();
  const printed = `${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}/${at.getUTCFullYear()} ${hours % 12 || 12}:${pad(at.getUTCMinutes())} ${hours < 12 ? 'AM' : 'PM'}`;
  return { printed, iso: at.toISOString().slice(0, 19) };
}

interface PlannedItem {
  room: string | null;
  label: string;
  lines: string[];
  quantity: number | null;
  capturedAt: string;
}

function planItem(template: ItemTemplate, serial: number, cycle: number, room: string | null): PlannedItem {
  const label = cycle > 0 ? `${template.label} ${cycle + 1}` : template.label;
  const date = photographedAt(serial);
  const quantity = /^(\d+) x /.exec(template.caption);
  return {
    room,
    label,
    lines: [template.caption, `Photographed ${date.printed}`],
    quantity: quantity ? Number(quantity[1]) : null,
    capturedAt: date.iso,
  };
}

/**
 * A portrait photo (`px` turned upright) centred in a landscape card: as tall as
 * the card's photo area, so the label and caption under it start at the
 * card's left edge, left of the photo.
 */
function portraitBox(slot: PdfBox, px: readonly [number, number]): PdfBox {
  const [long, short] = [Math.max(...px), Math.min(...px)];
  const width = (slot.height * short) / long;
  return { x: slot.x + (slot.width - width) / 2, y: slot.y, width, height: slot.height };
}

/** Label and caption lines of a card, starting at `top` (the photo's bottom edge, or a free slot's top). */
function drawCardText(sheet: Sheet, fonts: Fonts, x: number, top: number, item: PlannedItem): void {
  sheet.text(item.label, x, top + 14, 11, fonts.bold);
  for (const [i, line] of item.lines.entries()) sheet.text(line, x, top + 26 + 11 * i, 9, fonts.regular);
}

export interface CardGridOptions {
  /** Default 4. */
  pages?: number;
  /** Cards per page, 1-6 (default 6). */
  photosPerPage?: number;
  /** A "Room: X" heading on every page, the room changing every quarter of the pages (CARD_GRID_ROOMS). */
  rooms?: boolean;
  /** Photo pixel size (default 320×240). */
  photoPx?: readonly [number, number];
  /** Photos with a camera photo's grain and size in bytes (pdf-drawing's cameraJpeg) instead of flat colours. */
  cameraPhotos?: boolean;
  /** The header line on every page (default CARD_GRID_HEADER, which names the insured and the claim). */
  header?: string;
  /** More lines printed at the foot of every page, above the page number (default none). */
  footerLines?: string[];
  /** The logo in every page's corner (default: LOGO_PX, embedded once). */
  logo?: LogoOptions;
  /** Every n-th photo is portrait, centred in its landscape card (default: none). */
  portraitEvery?: number;
}

/**
 * How the logo is stored: one image drawn on every page; a copy of the same bytes embedded for each page
 * (its own object each time); or each page's copy re-encoded from the previous one (the bytes differ).
 */
export type LogoEmbedding = 'once' | 'every-page' | 're-encoded';

interface LogoOptions {
  embedding: LogoEmbedding;
  /** Its pixel size (default 96×48, under the recipe's min_image_px). */
  px?: readonly [number, number];
}

interface CardGridDraw {
  pages: number;
  photosPerPage: number;
  rooms: boolean;
  /** Page numbers in the document of the first card page. */
  firstPage: number;
  totalPages: number;
  header: string;
  footerLines: string[];
  logo?: LogoOptions;
  portraitEvery?: number;
}

const LOGO_PX: readonly [number, number] = [96, 48];
const LOGO_BOX: PdfBox = { x: 516, y: 12, width: 64, height: 32 };

/** A logo with edges (a disc and a word), so a JPEG re-encoded from it differs from it. */
function logoJpeg(width: number, height: number): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="#ffffff"/>` +
    `<circle cx="${height / 2}" cy="${height / 2}" r="${height * 0.4}" fill="#c03020"/>` +
    `<text x="${height}" y="${height * 0.65}" font-family="sans-serif" font-size="${height * 0.35}" font-weight="bold" fill="#203080">ACME</text>` +
    '</svg>';
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

/** The logo image for each page, as `logo` says it is stored. */
function logoSource(doc: PDFDocument, logo: LogoOptions | undefined) {
  const [width, height] = logo?.px ?? LOGO_PX;
  const first = logo ? logoJpeg(width, height) : flatJpeg([250, 250, 250], width, height);
  let shared: Promise<PDFImage> | null = null;
  let previous: Promise<Buffer> = first;
  return {
    px: [width, height] as const,
    async forPage(): Promise<PDFImage> {
      if (!logo || logo.embedding === 'once') {
        shared ??= first.then((jpeg) => doc.embedJpg(jpeg));
        return shared;
      }
      if (logo.embedding === 'every-page') return doc.embedJpg(await first);
      const jpeg = await previous;
      previous = sharp(jpeg).jpeg({ quality: 85 }).toBuffer();
      return doc.embedJpg(jpeg);
    },
  };
}

async function drawCardGrid(doc: PDFDocument, answer: Answer, fonts: Fonts, draw: CardGridDraw): Promise<void> {
  const logo = logoSource(doc, draw.logo);
  // Rooms change every few pages, never between pages 1 and 2 (the carried-over caption).
  const perRoom = Math.max(2, Math.ceil(draw.pages / CARD_GRID_ROOMS.length));
  const opening = draw.pages > 1 && draw.photosPerPage > 1;
  const state = { item: null as PlannedItem | null, left: 0, serial: 0, next: 0 };
  const start = (template: ItemTemplate, room: string | null, cycle: number) => {
    state.item = planItem(template, state.serial++, cycle, room);
    state.left = template.photos;
    return state.item;
  };
  for (let p = 0; p < draw.pages; p++) {
    const number = draw.firstPage + p;
    const sheet = new Sheet(doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]), number);
    const room = draw.rooms ? CARD_GRID_ROOMS[Math.floor(p / perRoom) % CARD_GRID_ROOMS.length] : null;
    sheet.text(draw.header, 40, 28, 9, fonts.regular);
    for (const [i, line] of draw.footerLines.entries()) sheet.text(line, 40, 742 + 9 * i, 7, fonts.regular);
    sheet.image(await logo.forPage(), LOGO_BOX);
    answer.decorations.push({ page: number, box: LOGO_BOX, pixelWidth: logo.px[0], pixelHeight: logo.px[1] });
    if (room) sheet.text(`Room: ${room}`, 40, 52, 12, fonts.bold);
    sheet.text(`Page ${number} of ${draw.totalPages}`, 270, 770, 9, fonts.regular);
    if (state.item && state.item.room !== room) state.left = 0; // a new room starts a new item
    for (let slot = 0; slot < draw.photosPerPage; slot++) {
      const box = slotBox(slot);
      if (opening && p === 0 && slot === draw.photosPerPage - 1) {
        // The caption sits at the page's bottom; its photo opens the next page, with no text under it.
        drawCardText(sheet, fonts, box.x, box.y, start(CARRIED_OVER, room, 0));
        break;
      }
      const carried = opening && p === 1 && slot === 0;
      if (opening && p === 0) {
        start(OPENERS[slot % OPENERS.length], room, 0);
      } else if (state.left === 0 || !state.item) {
        start(ITEMS[state.next % ITEMS.length], room, Math.floor(state.next / ITEMS.length));
        state.next++;
      }
      const item = state.item as PlannedItem;
      const portrait = draw.portraitEvery && (answer.photos.length + 1) % draw.portraitEvery === 0;
      const [wide, high] = answer.photoPx;
      const px = portrait ? ([Math.min(wide, high), Math.max(wide, high)] as const) : answer.photoPx;
      await answer.photo(
        sheet,
        portrait ? portraitBox(box, px) : box,
        {
          room: item.room,
          label: item.label,
          quantity: item.quantity,
          description: item.lines.join(' '),
          capturedAt: item.capturedAt,
        },
        px,
      );
      if (!carried) drawCardText(sheet, fonts, box.x, box.y + box.height, item);
      state.left--;
    }
  }
}

/** Vendor card grid (see the module comment). Inventory on every page. */
export async function cardGridList(options: CardGridOptions = {}): Promise<PdfFixture> {
  const pages = options.pages ?? 4;
  const photosPerPage = Math.min(6, Math.max(1, options.photosPerPage ?? 6));
  const doc = await PDFDocument.create();
  doc.setProducer('Acme Inventory Suite 4.2');
  const answer = new Answer(doc, options.photoPx ?? [320, 240], options.cameraPhotos);
  await drawCardGrid(doc, answer, await fontsOf(doc), {
    pages,
    photosPerPage,
    rooms: options.rooms ?? false,
    firstPage: 1,
    totalPages: pages,
    header: options.header ?? CARD_GRID_HEADER,
    footerLines: options.footerLines ?? [],
    logo: options.logo,
    portraitEvery: options.portraitEvery,
  });
  return {
    bytes: await doc.save(),
    expected: {
      pageCount: pages,
      inventoryPages: [1, pages],
      repeatingLines: [options.header ?? CARD_GRID_HEADER, ...(options.footerLines ?? []), `Page 1 of ${pages}`],
      groups: answer.groups,
      photos: answer.photos,
      decorations: answer.decorations,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Header runs

export const HEADER_RUNS_HEADER = 'BlueSky Pack-out - Inventory report';

/** Photos per heading; null: the photos before the first heading. "Item 3" carries over from page 2 to 3. */
const RUNS: { heading: string | null; photos: number }[] = [
  { heading: null, photos: 2 },
  { heading: 'Item 1 - Refrigerator', photos: 3 },
  { heading: 'Item 2 - Microwave', photos: 1 },
  { heading: 'Item 3 - Washing machine', photos: 6 },
  { heading: 'Item 4 - Dryer', photos: 2 },
  { heading: 'Item 5 - Dishwasher', photos: 3 },
];

const RUN = {
  top: 60,
  bottom: 740,
  photoWidth: 220,
  photoHeight: 165,
  rowGap: 10,
  headingHeight: 22,
  columns: [40, 300],
};

/** Headings each owning the photos below them until the next heading (3 pages). */
export async function headerRunsList(): Promise<PdfFixture> {
  const doc = await PDFDocument.create();
  doc.setProducer('BlueSky Reports 2.0');
  const fonts = await fontsOf(doc);
  const answer = new Answer(doc, [400, 300]);
  const sheets: Sheet[] = [];
  let sheet: Sheet | null = null;
  let cursor = RUN.top;
  const newPage = () => {
    sheet = new Sheet(doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]), sheets.length + 1);
    sheets.push(sheet);
    sheet.text(HEADER_RUNS_HEADER, 40, 28, 9, fonts.regular);
    cursor = RUN.top;
    return sheet;
  };
  const fits = (height: number) => cursor + height <= RUN.bottom;
  for (const run of RUNS) {
    let page = sheet ?? newPage();
    if (run.heading) {
      // A heading always has its first row of photos under it on the same page.
      if (!fits(RUN.headingHeight + RUN.photoHeight)) page = newPage();
      page.text(run.heading, 40, cursor + 14, 13, fonts.bold);
      cursor += RUN.headingHeight;
    }
    for (let i = 0; i < run.photos; i += 2) {
      if (!fits(RUN.photoHeight)) page = newPage();
      for (let column = 0; column < 2 && i + column < run.photos; column++) {
        const box = { x: RUN.columns[column], y: cursor, width: RUN.photoWidth, height: RUN.photoHeight };
        await answer.photo(page, box, {
          room: null,
          label: run.heading,
          quantity: null,
          description: null,
          capturedAt: null,
        });
      }
      cursor += RUN.photoHeight + RUN.rowGap;
    }
  }
  for (const each of sheets) each.text(`Page ${each.number}`, 290, 770, 9, fonts.regular);
  return {
    bytes: await doc.save(),
    expected: {
      pageCount: sheets.length,
      inventoryPages: [1, sheets.length],
      repeatingLines: [HEADER_RUNS_HEADER, 'Page 1'],
      groups: answer.groups,
      photos: answer.photos,
      decorations: [],
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Scanned pages

export interface ScannedExpected {
  pageCount: number;
  /** Pixel size of each page's image (drawn over the whole page). */
  pagePx: [number, number];
  /** The page images as embedded. */
  pageJpegs: Buffer[];
  /** The photos printed on the scanned pages (box in points), by page; indices give their colours. */
  photos: { index: number; page: number; box: PdfBox; rgb: Rgb; label: string }[];
  groups: ExpectedGroup[];
}

const SCAN_SCALE = 2; // pixels per point of the page images
const SCANNED_LABELS = [
  ['Toaster', 'Kettle', 'Blender', 'Coffee maker'],
  ['Desk', 'Office chair', 'Filing cabinet', 'Desk lamp'],
  ['Bicycle', 'Lawn mower', 'Tool chest', 'Ladder'],
];

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Pages that are each one full-page image of a 2×2 card layout; no text layer. */
export async function scannedList(): Promise<PdfFixture<ScannedExpected>> {
  const doc = await PDFDocument.create();
  doc.setProducer('ScanStation 7');
  const pagePx: [number, number] = [PAGE_WIDTH * SCAN_SCALE, PAGE_HEIGHT * SCAN_SCALE];
  const photos: ScannedExpected['photos'] = [];
  const pageJpegs: Buffer[] = [];
  for (const [p, labels] of SCANNED_LABELS.entries()) {
    const parts: string[] = [`<rect width="100%" height="100%" fill="#ffffff"/>`];
    parts.push(
      `<text x="${80}" y="${70}" font-family="sans-serif" font-size="22">Scanned contents list - page ${p + 1}</text>`,
    );
    for (const [slot, label] of labels.entries()) {
      const index = photos.length;
      const box = { x: 50 + (slot % 2) * 280, y: 80 + Math.floor(slot / 2) * 330, width: 240, height: 180 };
      const colour = photoColour(index);
      photos.push({ index, page: p + 1, box, rgb: colour, label });
      const [x, y, w, h] = [box.x, box.y, box.width, box.height].map((v) => v * SCAN_SCALE);
      parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="rgb(${colour.join(',')})"/>`);
      parts.push(
        `<text x="${x}" y="${y + h + 34}" font-family="sans-serif" font-size="26" font-weight="bold">${xmlEscape(label)}</text>`,
      );
    }
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${pagePx[0]}" height="${pagePx[1]}">${parts.join('')}</svg>`;
    const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
    pageJpegs.push(jpeg);
    const sheet = new Sheet(doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]), p + 1);
    sheet.image(await doc.embedJpg(jpeg), { x: 0, y: 0, width: PAGE_WIDTH, height: PAGE_HEIGHT });
  }
  const groups = photos.map(
    (photo): ExpectedGroup => ({
      room: null,
      label: photo.label,
      quantity: null,
      description: null,
      capturedAt: null,
      photos: [photo.index],
      pages: [photo.page],
    }),
  );
  return { bytes: await doc.save(), expected: { pageCount: SCANNED_LABELS.length, pagePx, pageJpegs, photos, groups } };
}

// ---------------------------------------------------------------------------------------------------------------
// Cover, inventory, appendix

const COVER_LOGO_PX: readonly [number, number] = [600, 300];
const SIGNATURE_PX: readonly [number, number] = [400, 120];

/** Page 1 a cover, pages 2-4 a card grid (640×480 photos), pages 5-6 terms with a signature image on page 6. */
export async function coverAndAppendixList(options: { portraitEvery?: number } = {}): Promise<PdfFixture> {
  const doc = await PDFDocument.create();
  doc.setProducer('Acme Inventory Suite 4.2');
  const fonts = await fontsOf(doc);
  const answer = new Answer(doc, [640, 480]);
  const cover = new Sheet(doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]), 1);
  const coverBox = { x: 106, y: 120, width: 400, height: 200 };
  cover.image(await doc.embedJpg(await flatJpeg([30, 60, 120], ...COVER_LOGO_PX)), coverBox);
  answer.decorations.push({ page: 1, box: coverBox, pixelWidth: COVER_LOGO_PX[0], pixelHeight: COVER_LOGO_PX[1] });
  cover.text('Contents Inventory Report', 150, 400, 26, fonts.bold);
  cover.text('Prepared for Jane Doe - Claim 88-12345', 170, 440, 12, fonts.regular);
  const inventoryPages = 3;
  const totalPages = 1 + inventoryPages + 2;
  await drawCardGrid(doc, answer, fonts, {
    pages: inventoryPages,
    photosPerPage: 6,
    rooms: false,
    firstPage: 2,
    totalPages,
    header: CARD_GRID_HEADER,
    footerLines: [],
    portraitEvery: options.portraitEvery,
  });
  const terms = [
    'Terms and conditions',
    'Items listed were packed out and inventoried by Acme Restoration on the dates shown.',
    'Condition notes reflect a visual inspection only; no item was tested for function.',
    'Values are not stated in this report and must be established by the adjuster.',
  ];
  for (let p = 0; p < 2; p++) {
    const sheet = new Sheet(doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]), 5 + p);
    for (const [i, line] of terms.entries()) {
      sheet.text(line, 50, 80 + 18 * i, i === 0 ? 14 : 10, i === 0 ? fonts.bold : fonts.regular);
    }
    if (p === 1) {
      const box = { x: 50, y: 300, width: 200, height: 60 };
      sheet.image(await doc.embedJpg(await flatJpeg([20, 20, 20], ...SIGNATURE_PX)), box);
      answer.decorations.push({ page: 6, box, pixelWidth: SIGNATURE_PX[0], pixelHeight: SIGNATURE_PX[1] });
      sheet.text('Signed for Acme Restoration', 50, 380, 10, fonts.regular);
    }
  }
  return {
    bytes: await doc.save(),
    expected: {
      pageCount: totalPages,
      inventoryPages: [2, 1 + inventoryPages],
      repeatingLines: [CARD_GRID_HEADER, `Page 2 of ${totalPages}`],
      groups: answer.groups,
      photos: answer.photos,
      decorations: answer.decorations,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Bad input

export interface BadFile {
  filename: string;
  bytes: Uint8Array;
  /** What lib/pdf's openPdf says of the bytes; null: they are a readable PDF (named as a photo). */
  kind: PdfUnreadableKind | null;
}

/** A truncated PDF, an encrypted one, one without pages, a PDF named .jpg and a JPEG named .pdf. */
export async function badPdfs(): Promise<
  Record<'truncated' | 'encrypted' | 'zeroPages' | 'pdfNamedJpg' | 'jpegNamedPdf', BadFile>
> {
  const small = await cardGridList({ pages: 2, photosPerPage: 2 });
  const encrypted = await pdfkitBytes({ userPassword: 'secret', ownerPassword: 'owner' }, (doc) => {
    doc.text('Contents inventory - confidential');
  });
  const zeroPages = await (await PDFDocument.create()).save({ addDefaultPage: false });
  return {
    truncated: {
      filename: 'contents-list.pdf',
      bytes: small.bytes.slice(0, Math.floor(small.bytes.length * 0.6)),
      kind: 'corrupt',
    },
    encrypted: { filename: 'protected.pdf', bytes: encrypted, kind: 'encrypted' },
    zeroPages: { filename: 'empty.pdf', bytes: zeroPages, kind: 'empty' },
    pdfNamedJpg: { filename: 'kitchen.jpg', bytes: small.bytes, kind: null },
    jpegNamedPdf: { filename: 'inventory.pdf', bytes: await flatJpeg([200, 40, 40], 320, 240), kind: 'not_pdf' },
  };
}
