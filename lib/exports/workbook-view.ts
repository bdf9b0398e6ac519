/**
 * The Excel export: a Summary sheet (claim header, counts and totals per
 * room), one sheet per room with the export columns, and a Photos sheet with
 * a thumbnail of each item's primary photo embedded in its row. Each item's
 * name links to its row of the Photos sheet: an internal link keeps the
 * workbook self-contained (it opens offline, and no link expires the way a
 * presigned photo URL would).
 *
 * Every text is written exactly as it is, in a cell formatted as text ('@'):
 * Excel shows a name such as "=HYPERLINK(...)" as typed and never evaluates
 * it, not even when someone edits the cell, and the sheet holds no formula.
 * (exceljs does not write the quotePrefix style, the other way Excel marks a
 * text cell.)
 */
import ExcelJS from 'exceljs';
import { sheetCellRef, sheetNames } from './cell-rules';
import {
  contentItems,
  EXPORT_COLUMNS,
  type ExportContent,
  exportTotals,
  itemCells,
  NAME_COLUMN,
} from './selection-rules';
import type { Thumbnail } from './thumbnail-service';

const SUMMARY_SHEET = 'Summary';
const PHOTOS_SHEET = 'Photos';

/** Row height of the Photos sheet in points; a thumbnail is drawn at most this tall (96 px). */
const PHOTO_ROW_POINTS = 75;
const PHOTO_BOX_PX = 96;
const PRICE_FORMAT = '"$"#,##0.00';
/** Excel's built-in Text number format. */
const TEXT_FORMAT = '@';

const bold = { bold: true };

export async function workbookFile(content: ExportContent, thumbnails: Map<string, Thumbnail>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Contents Inventory Service';
  workbook.created = content.generatedAt;
  const names = sheetNames(
    content.rooms.map((r) => r.name),
    [SUMMARY_SHEET, PHOTOS_SHEET],
  );
  const summary = workbook.addWorksheet(SUMMARY_SHEET);
  const roomSheets = content.rooms.map((_, i) => workbook.addWorksheet(names[i]));
  const photos = workbook.addWorksheet(PHOTOS_SHEET);

  // Photos sheet first, so each item's row there is known when its name is written.
  const photoRow = fillPhotos(workbook, photos, content, thumbnails);
  fillSummary(summary, content, names);
  content.rooms.forEach((room, i) => {
    const sheet = roomSheets[i];
    sheet.columns = EXPORT_COLUMNS.map((c) => ({ header: c.header, width: c.width }));
    sheet.getRow(1).font = bold;
    sheet.views = [{ state: 'frozen', ySplit: 1 }];
    for (const item of room.items) {
      const row = sheet.addRow(itemCells(item, room.name));
      const at = photoRow.get(item.id);
      if (at !== undefined) {
        const cell = row.getCell(NAME_COLUMN + 1);
        cell.value = { text: String(cell.value ?? ''), hyperlink: sheetCellRef(PHOTOS_SHEET, 'A', at) };
        cell.font = { color: { argb: 'FF0563C1' }, underline: true };
      }
    }
    sheet.getColumn(EXPORT_COLUMNS.findIndex((c) => c.header === 'Estimated price') + 1).numFmt = PRICE_FORMAT;
  });
  formatTextsAsText(workbook);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Formats every text cell (hyperlinked names included) as text, once all are written. */
function formatTextsAsText(workbook: ExcelJS.Workbook): void {
  workbook.eachSheet((sheet) =>
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.type === ExcelJS.ValueType.String || cell.type === ExcelJS.ValueType.Hyperlink)
          cell.numFmt = TEXT_FORMAT;
      }),
    ),
  );
}

function fillSummary(sheet: ExcelJS.Worksheet, content: ExportContent, names: string[]): void {
  const totals = exportTotals(contentItems(content));
  sheet.columns = [{ width: 28 }, { width: 14 }, { width: 14 }, { width: 18 }];
  const header: [string, string | number][] = [
    ['Claim number', content.claim.claim_number],
    ['Insured', content.claim.insured_name ?? ''],
    ['Adjuster', content.claim.adjuster_name ?? ''],
    ['Loss type', content.claim.loss_type ?? ''],
    ['Export of', content.scopeLabel],
    ['Items', content.approvedOnly ? 'Approved items only' : 'All items (archived items excluded)'],
    ['Generated', content.generatedAt.toISOString()],
    ['Rooms', content.rooms.length],
    ['Item lines', totals.items],
    ['Total quantity', totals.quantity],
    ['Total estimated value', totals.value],
  ];
  for (const [label, value] of header) {
    const row = sheet.addRow([label, value]);
    row.getCell(1).font = bold;
  }
  sheet.getCell(`B${header.length}`).numFmt = PRICE_FORMAT;
  sheet.addRow([]);
  const tableHeader = sheet.addRow(['Room', 'Item lines', 'Quantity', 'Estimated value']);
  tableHeader.font = bold;
  content.rooms.forEach((room, i) => {
    const t = exportTotals(room.items);
    const row = sheet.addRow([null, t.items, t.quantity, t.value]);
    row.getCell(1).value = { text: room.name, hyperlink: sheetCellRef(names[i], 'A', 1) };
    row.getCell(4).numFmt = PRICE_FORMAT;
  });
  const total = sheet.addRow(['Total', totals.items, totals.quantity, totals.value]);
  total.font = bold;
  total.getCell(4).numFmt = PRICE_FORMAT;
}

/** Writes one row per item with a thumbnail embedded; answers each item's row number. */
function fillPhotos(
  workbook: ExcelJS.Workbook,
  sheet: ExcelJS.Worksheet,
  content: ExportContent,
  thumbnails: Map<string, Thumbnail>,
): Map<string, number> {
  sheet.columns = [
    { header: 'Item #', width: 8 },
    { header: 'Room', width: 18 },
    { header: 'Name', width: 36 },
    { header: 'Photo', width: 16 },
  ];
  sheet.getRow(1).font = bold;
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  const rows = new Map<string, number>();
  for (const room of content.rooms) {
    for (const item of room.items) {
      const thumb = thumbnails.get(item.id);
      if (!thumb) continue;
      const row = sheet.addRow([item.item_number, room.name, item.name]);
      row.height = PHOTO_ROW_POINTS;
      row.alignment = { vertical: 'top' };
      const scale = Math.min(1, PHOTO_BOX_PX / Math.max(thumb.width, thumb.height));
      const image = workbook.addImage({ buffer: thumb.jpeg as unknown as ExcelJS.Buffer, extension: 'jpeg' });
      // Anchored at the photo column's cell (zero-based column 3, row index = row number - 1).
      sheet.addImage(image, {
        tl: { col: 3.05, row: row.number - 1 + 0.05 },
        ext: { width: Math.round(thumb.width * scale), height: Math.round(thumb.height * scale) },
        editAs: 'oneCell',
      });
      rows.set(item.id, row.number);
    }
  }
  return rows;
}
