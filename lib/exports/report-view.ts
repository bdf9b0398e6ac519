/**
 * The insurer-ready contents report (PDF): a claim header with totals, then
 * per room a table of item number, thumbnail, name (with the label a
 * contents list printed for it, in small type under the name), quantity,
 * condition, estimated price and line value, with the room's total; the claim total
 * closes the report. Tables continue across pages with their header
 * repeated, and every page is numbered. Every text is drawn with embedded
 * Noto fonts (report-fonts-view.ts), so names in any script print, and any reader
 * (poppler's pdftotext included) extracts them.
 */
import PDFDocument from 'pdfkit';
import { formatMoney } from './cell-rules';
import { writeText } from './report-fonts-view';
import { contentItems, type ExportContent, exportTotals, lineValue, type RoomGroup } from './selection-rules';
import type { Thumbnail } from './thumbnail-service';

const MARGIN = 40;
const ROW_HEIGHT = 44;
const THUMB_BOX = 38;

/** Table columns: x offset from the left margin and width, in points (the page is 612 wide, 532 usable). */
const COLUMNS = {
  number: { x: 0, width: 34, title: '#' },
  photo: { x: 36, width: THUMB_BOX + 4, title: 'Photo' },
  name: { x: 82, width: 196, title: 'Item' },
  quantity: { x: 282, width: 34, title: 'Qty' },
  condition: { x: 320, width: 70, title: 'Condition' },
  price: { x: 392, width: 68, title: 'Unit price' },
  value: { x: 462, width: 70, title: 'Value' },
} as const;

export async function reportFile(content: ExportContent, thumbnails: Map<string, Thumbnail>): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: MARGIN,
    bufferPages: true,
    // pdfkit writes a non-ASCII title as UTF-16, so the claim number stays as it is.
    info: { Title: `Contents inventory - claim ${content.claim.claim_number}`, Creator: 'Contents Inventory' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  header(doc, content);
  for (const room of content.rooms) roomTable(doc, room, thumbnails);
  claimTotal(doc, content);
  numberPages(doc);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

const bottom = (doc: PDFKit.PDFDocument) => doc.page.height - MARGIN - 14;

function ensureSpace(doc: PDFKit.PDFDocument, height: number, onNewPage?: () => void): void {
  if (doc.y + height <= bottom(doc)) return;
  doc.addPage();
  onNewPage?.();
}

function header(doc: PDFKit.PDFDocument, content: ExportContent): void {
  const totals = exportTotals(contentItems(content));
  writeText(doc.fontSize(18), 'Contents Inventory Report', 'bold', MARGIN, doc.y);
  doc.moveDown(0.5);
  const lines: [string, string][] = [
    ['Claim number', content.claim.claim_number],
    ['Insured', content.claim.insured_name ?? ''],
    ['Adjuster', content.claim.adjuster_name ?? ''],
    ['Loss type', content.claim.loss_type ?? ''],
    ['Report of', content.scopeLabel],
    ['Items', content.approvedOnly ? 'Approved items only' : 'All items (archived items excluded)'],
    ['Generated', `${content.generatedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`],
    ['Rooms', String(content.rooms.length)],
    ['Item lines', String(totals.items)],
    ['Total quantity', String(totals.quantity)],
    ['Total estimated value', formatMoney(totals.value)],
  ];
  doc.fontSize(10);
  for (const [label, value] of lines) {
    const y = doc.y;
    writeText(doc, label, 'bold', MARGIN, y, { width: 130 });
    writeText(doc, value || '-', 'regular', MARGIN + 140, y, { width: 390 });
  }
  doc.moveDown(1);
}

function tableHeader(doc: PDFKit.PDFDocument): void {
  const y = doc.y;
  doc.fontSize(9);
  for (const c of Object.values(COLUMNS))
    writeText(doc, c.title, 'bold', MARGIN + c.x, y, { width: c.width, lineBreak: false });
  doc
    .moveTo(MARGIN, y + 12)
    .lineTo(doc.page.width - MARGIN, y + 12)
    .lineWidth(0.5)
    .stroke();
  doc.y = y + 16;
}

function roomTable(
  doc: PDFKit.PDFDocument,
  room: RoomGroup<ExportContent['rooms'][number]['items'][number]>,
  thumbnails: Map<string, Thumbnail>,
): void {
  ensureSpace(doc, 40 + ROW_HEIGHT);
  writeText(doc.fontSize(13), room.name, 'bold', MARGIN, doc.y);
  doc.moveDown(0.3);
  tableHeader(doc);
  const continued = () => {
    writeText(doc.fontSize(11), `${room.name} (continued)`, 'bold', MARGIN, doc.y);
    doc.moveDown(0.3);
    tableHeader(doc);
  };
  if (room.items.length === 0) {
    writeText(doc.fontSize(9), 'No items.', 'regular', MARGIN, doc.y);
    doc.moveDown(0.5);
  }
  for (const item of room.items) {
    ensureSpace(doc, ROW_HEIGHT, continued);
    const y = doc.y;
    const text = (value: string, column: keyof typeof COLUMNS, align: 'left' | 'right' = 'left') =>
      writeText(doc, value, 'regular', MARGIN + COLUMNS[column].x, y + 2, {
        width: COLUMNS[column].width,
        height: ROW_HEIGHT - 4,
        ellipsis: true,
        align,
      });
    doc.fontSize(9);
    text(String(item.item_number), 'number');
    const thumb = thumbnails.get(item.id);
    if (thumb) doc.image(thumb.jpeg, MARGIN + COLUMNS.photo.x, y + 2, { fit: [THUMB_BOX, THUMB_BOX] });
    if (item.source_label) {
      writeText(doc, item.name, 'regular', MARGIN + COLUMNS.name.x, y + 2, {
        width: COLUMNS.name.width,
        height: ROW_HEIGHT - 16,
        ellipsis: true,
      });
      writeText(
        doc.fontSize(7).fillColor('#555555'),
        item.source_label,
        'regular',
        MARGIN + COLUMNS.name.x,
        y + ROW_HEIGHT - 13,
        {
          width: COLUMNS.name.width,
          lineBreak: false,
          ellipsis: true,
        },
      );
      doc.fontSize(9).fillColor('black');
    } else text(item.name, 'name');
    text(String(item.quantity), 'quantity', 'right');
    text(item.condition ?? '', 'condition');
    text(formatMoney(item.estimated_price), 'price', 'right');
    text(formatMoney(lineValue(item)), 'value', 'right');
    doc.y = y + ROW_HEIGHT;
  }
  const totals = exportTotals(room.items);
  ensureSpace(doc, 30);
  const y = doc.y;
  doc.fontSize(9);
  const label = `${room.name} total: ${totals.items} item lines, quantity ${totals.quantity}`;
  writeText(doc, label, 'bold', MARGIN, y + 4, { width: 380, lineBreak: false, ellipsis: true });
  writeText(doc, formatMoney(totals.value), 'bold', MARGIN + COLUMNS.value.x - 40, y + 4, {
    width: COLUMNS.value.width + 40,
    align: 'right',
  });
  doc.y = y + 28;
}

function claimTotal(doc: PDFKit.PDFDocument, content: ExportContent): void {
  const totals = exportTotals(contentItems(content));
  ensureSpace(doc, 40);
  const y = doc.y + 6;
  doc
    .moveTo(MARGIN, y)
    .lineTo(doc.page.width - MARGIN, y)
    .lineWidth(1)
    .stroke();
  doc.fontSize(11);
  const label = `Claim total: ${totals.items} item lines in ${content.rooms.length} rooms, quantity ${totals.quantity}`;
  writeText(doc, label, 'bold', MARGIN, y + 6, { width: 380, lineBreak: false });
  writeText(doc, formatMoney(totals.value), 'bold', MARGIN + COLUMNS.value.x - 60, y + 6, {
    width: COLUMNS.value.width + 60,
    align: 'right',
  });
}

function numberPages(doc: PDFKit.PDFDocument): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing in the bottom margin must not open a new page.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    writeText(doc.fontSize(8), `Page ${i + 1} of ${range.count}`, 'regular', MARGIN, doc.page.height - MARGIN + 10, {
      width: doc.page.width - 2 * MARGIN,
      align: 'center',
      lineBreak: false,
    });
    doc.page.margins.bottom = margin;
  }
}
