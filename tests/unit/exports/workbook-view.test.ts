/**
 * The workbook keeps formula-like names exact: read back with exceljs, and in
 * the raw sheet XML each such name is a plain string (no formula element) in
 * a cell whose style has Excel's Text format ('@', numFmtId 49).
 */
import ExcelJS from 'exceljs';
import sharp from 'sharp';
import type { ExportContent } from '../../../lib/exports/selection-rules';
import type { Thumbnail } from '../../../lib/exports/thumbnail-service';
import { workbookFile } from '../../../lib/exports/workbook-view';
import { itemRecord } from '../../support/items';
import { readZipEntry, zipEntries } from '../../support/zip-entries';

const FORMULA_NAME = '=HYPERLINK("http://evil.example","click")';
const ROOM = '+Kitchen';
const NAMES = [FORMULA_NAME, '@SUM(A1)', '-2+3', 'Toaster & <kettle>'];
/** Excel's built-in Text number format. */
const TEXT_FORMAT_ID = '49';

async function workbook(): Promise<Buffer> {
  const items = NAMES.map((name, i) =>
    itemRecord({ id: `item-${i}`, room_id: 'kitchen', room: ROOM, item_number: i + 1, name, notes: '=1+1' }),
  );
  const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c84' } })
    .jpeg()
    .toBuffer();
  const thumbnails = new Map<string, Thumbnail>([[items[0].id, { jpeg, width: 40, height: 30 }]]);
  const content: ExportContent = {
    claim: { claim_number: '=CLAIM', insured_name: '-Pat', adjuster_name: null, loss_type: 'water' },
    scopeLabel: 'Whole claim',
    approvedOnly: false,
    generatedAt: new Date('2024-05-01T12:00:00Z'),
    rooms: [{ roomId: 'kitchen', name: ROOM, items }],
  };
  return workbookFile(content, thumbnails);
}

/** The parts of an xlsx a test reads: each sheet's XML by name, the shared strings and the cell styles. */
function xlsxParts(bytes: Buffer) {
  const entries = zipEntries(bytes);
  const part = (name: string) => {
    const entry = entries.find((e) => e.name === name);
    if (!entry) throw new Error(`no ${name} in the workbook`);
    return readZipEntry(bytes, entry).toString('utf8');
  };
  const xmlText = (xml: string) =>
    xml
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  const strings = [...part('xl/sharedStrings.xml').matchAll(/<si>([\s\S]*?)<\/si>/g)].map((si) =>
    xmlText([...si[1].matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((t) => t[1]).join('')),
  );
  const cellXfs = /<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(part('xl/styles.xml'))?.[1] ?? '';
  const styles = [...cellXfs.matchAll(/<xf\b[^>]*>/g)].map((xf) => xf[0]);
  const sheetNames = [...part('xl/workbook.xml').matchAll(/<sheet [^>]*name="([^"]*)"[^>]*r:id="([^"]*)"/g)];
  const rels = part('xl/_rels/workbook.xml.rels');
  const sheet = (name: string) => {
    const rid = sheetNames.find((s) => xmlText(s[1]) === name)?.[2];
    const target = new RegExp(`Id="${rid}"[^>]*Target="([^"]*)"|Target="([^"]*)"[^>]*Id="${rid}"`).exec(rels);
    const path = (target?.[1] ?? target?.[2] ?? '').replace(/^\/?(xl\/)?/, 'xl/');
    return part(path);
  };
  /** The text a cell shows and its style, from the raw XML. */
  const cell = (xml: string, ref: string) => {
    const c = new RegExp(`<c r="${ref}"([^>]*)>([\\s\\S]*?)</c>`).exec(xml);
    if (!c) throw new Error(`no cell ${ref}`);
    const type = /t="(\w+)"/.exec(c[1])?.[1];
    const style = Number(/s="(\d+)"/.exec(c[1])?.[1] ?? 0);
    const v = /<v>([\s\S]*?)<\/v>/.exec(c[2])?.[1] ?? '';
    const inline = /<is>([\s\S]*?)<\/is>/.exec(c[2])?.[1];
    const text =
      type === 's' ? strings[Number(v)] : inline !== undefined ? xmlText(inline.replace(/<[^>]+>/g, '')) : xmlText(v);
    return { type, text, xf: styles[style], inner: c[2] };
  };
  return { sheet, cell };
}

let bytes: Buffer;
beforeAll(async () => {
  bytes = await workbook();
});

it('exceljs reads every name back exactly, with no apostrophe added', async () => {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  expect(book.worksheets.map((w) => w.name)).toEqual(['Summary', '+Kitchen', 'Photos']);
  const room = book.getWorksheet('+Kitchen')!;
  const linked = room.getRow(2).getCell(3);
  expect(linked.value).toEqual({ text: FORMULA_NAME, hyperlink: "'Photos'!A2" });
  expect(linked.numFmt).toBe('@');
  expect(room.getRow(2).getCell(2).value).toBe(ROOM);
  expect(room.getRow(2).getCell(13).value).toBe('=1+1');
  expect(NAMES.map((_, i) => room.getRow(i + 2).getCell(3).text)).toEqual(NAMES);
  for (let i = 2; i <= NAMES.length + 1; i++) {
    expect(room.getRow(i).getCell(3).numFmt).toBe('@');
    expect(room.getRow(i).getCell(3).formula).toBeUndefined();
  }
  // Numbers stay numbers with their own formats.
  expect(room.getRow(2).getCell(1).value).toBe(1);
  expect(room.getRow(2).getCell(1).numFmt).toBeUndefined();

  const summary = book.getWorksheet('Summary')!;
  expect(summary.getCell('B1').value).toBe('=CLAIM');
  expect(summary.getCell('B2').value).toBe('-Pat');
  const roomLink = summary.getRow(14).getCell(1);
  expect(roomLink.value).toEqual({ text: ROOM, hyperlink: "'+Kitchen'!A1" });
  expect(roomLink.numFmt).toBe('@');

  const photos = book.getWorksheet('Photos')!;
  expect(photos.getRow(2).values).toEqual([undefined, 1, ROOM, FORMULA_NAME]);
});

it('writes no formula: each name is a string in a Text-formatted cell of the sheet XML', () => {
  const { sheet, cell } = xlsxParts(bytes);
  const sheets = ['Summary', '+Kitchen', 'Photos'].map((name) => sheet(name));
  for (const xml of sheets) expect(xml).not.toMatch(/<f[\s>]/);

  const room = sheets[1];
  NAMES.forEach((name, i) => {
    const c = cell(room, `C${i + 2}`);
    expect(c).toMatchObject({ type: expect.stringMatching(/^(s|inlineStr|str)$/), text: name });
    expect(c.inner).not.toContain('<f');
    expect(c.xf).toMatch(new RegExp(`numFmtId="${TEXT_FORMAT_ID}"`));
    expect(c.xf).toContain('applyNumberFormat="1"');
  });
  expect(cell(room, 'B2')).toMatchObject({ text: ROOM, xf: expect.stringContaining(`numFmtId="${TEXT_FORMAT_ID}"`) });
  expect(cell(room, 'M2')).toMatchObject({ text: '=1+1', xf: expect.stringContaining(`numFmtId="${TEXT_FORMAT_ID}"`) });

  const summaryLink = cell(sheets[0], 'A14');
  expect(summaryLink).toMatchObject({ text: ROOM, xf: expect.stringContaining(`numFmtId="${TEXT_FORMAT_ID}"`) });
  expect(cell(sheets[0], 'B1')).toMatchObject({
    text: '=CLAIM',
    xf: expect.stringContaining(`numFmtId="${TEXT_FORMAT_ID}"`),
  });
  expect(cell(sheets[2], 'C2')).toMatchObject({
    text: FORMULA_NAME,
    xf: expect.stringContaining(`numFmtId="${TEXT_FORMAT_ID}"`),
  });
});
