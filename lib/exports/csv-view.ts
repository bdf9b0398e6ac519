/** The CSV export: a header row and one row per item, the export columns, every text cell neutralised. */
import { stringify } from 'csv-stringify/sync';
import { neutralizeCell } from './cell-rules';
import { EXPORT_COLUMNS, type ExportContent, itemCells } from './selection-rules';

export function csvFile(content: ExportContent): Buffer {
  const rows = content.rooms.flatMap((room) =>
    room.items.map((item) => itemCells(item, room.name).map(neutralizeCell)),
  );
  // A byte-order mark, so spreadsheet programs read the file as UTF-8.
  const text = stringify(rows, { header: true, columns: EXPORT_COLUMNS.map((c) => c.header), bom: true });
  return Buffer.from(text, 'utf8');
}
