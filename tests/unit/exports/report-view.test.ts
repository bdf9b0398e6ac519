/**
 * The PDF report prints every name, whatever its script: a report is made
 * with the real fonts from node_modules and read back with poppler
 * (pdftotext, pdffonts) and pdf.js, as a reader of the file would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { MISSING_GLYPH } from '../../../lib/exports/cell-rules';
import { fontFile, REPORT_FONTS } from '../../../lib/exports/report-fonts-view';
import { reportFile } from '../../../lib/exports/report-view';
import type { ExportContent } from '../../../lib/exports/selection-rules';
import type { Thumbnail } from '../../../lib/exports/thumbnail-service';
import { loadPdfjs, pdfjsDataDirs } from '../../../lib/pdf/pdfjs';
import { itemRecord } from '../../support/items';

const EMOJI_NAME = 'Café Crème – 東京 Ñandú 😀';
const NAMES = [
  'Toaster',
  'Диван угловой',
  'Καναπές γωνιακός',
  'طاولة خشبية',
  'שולחן עץ',
  '台灯 デスクランプ',
  '냉장고',
  'Ångström Œuvre – “Deluxe”',
];
const ROOM = 'Salon – Гостиная 客厅';

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'report-view-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function report(names: string[], room: string): Promise<string> {
  const items = names.map((name, i) =>
    itemRecord({ id: `item-${i}`, room_id: 'room', room, item_number: i + 1, name, estimated_price: 10 + i }),
  );
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#8a6' } })
    .jpeg()
    .toBuffer();
  const thumbnails = new Map<string, Thumbnail>(items.map((item) => [item.id, { jpeg, width: 64, height: 48 }]));
  const content: ExportContent = {
    claim: { claim_number: 'T-1001', insured_name: 'Zoë Σοφία', adjuster_name: null, loss_type: 'fire' },
    scopeLabel: 'Whole claim',
    approvedOnly: false,
    generatedAt: new Date('2024-05-01T12:00:00Z'),
    rooms: [{ roomId: 'room', name: room, items }],
  };
  const file = path.join(work, `report-${names.length}-${room.length}.pdf`);
  writeFileSync(file, await reportFile(content, thumbnails));
  return file;
}

/** pdftotext's text without the direction marks it puts around right-to-left words. */
const pdfText = (file: string) =>
  execFileSync('pdftotext', [file, '-'])
    .toString()
    .replace(/[\u202a-\u202e]/g, '');

/** The embedded fonts pdffonts lists: name (without the subset tag), embedded, subset, with a Unicode map. */
function embeddedFonts(file: string): string[] {
  return execFileSync('pdffonts', [file])
    .toString()
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const [name] = line.split(/\s+/);
      const [emb, sub, uni] = line.trim().split(/\s+/).slice(-5, -2);
      return `${name.replace(/^[A-Z]{6}\+/, '')} ${emb}${sub}${uni}`;
    })
    .sort();
}

it('prints names in Latin, Cyrillic, Greek, Arabic, Hebrew, Chinese, Japanese and Korean intact, an emoji as a placeholder', async () => {
  const file = await report([EMOJI_NAME, ...NAMES], ROOM);
  const text = pdfText(file);
  for (const name of [...NAMES, ROOM, 'Zoë Σοφία']) expect([name, text.includes(name)]).toEqual([name, true]);
  expect(text).toContain(`Café Crème – 東京 Ñandú ${MISSING_GLYPH}`);
  expect(text).not.toContain('?');
  expect(embeddedFonts(file)).toEqual([
    'NotoNaskhArabic yesyesyes',
    'NotoSans-Bold yesyesyes',
    'NotoSans-Regular yesyesyes',
    'NotoSansHans-Bold yesyesyes',
    'NotoSansHans-Regular yesyesyes',
    'NotoSansHebrew yesyesyes',
    'NotoSansKR-Regular yesyesyes',
  ]);
});

it('draws a right-to-left name in visual order, its Latin words and numbers reading left to right in place', async () => {
  // pdf.js gives a line's pieces in the order they are drawn, left to right, each piece's characters in reading order.
  const drawn: [string, string][] = [
    ['تلفزيون 65 بوصة', 'تلفزيون 65 بوصة'],
    ['Кресло Πολυθρόνα كرسي 椅子 의자', 'Кресло Πολυθρόνα كرسي 椅子 의자'],
    // A right-to-left name starts on the right: its first word is drawn right of the Latin one after it.
    ['كرسي Chair', 'Chair كرسي'],
    ['כיסא IKEA 2', 'IKEA 2 כיסא'],
    ['טלוויזיה 55 אינץ׳ (סלון)', '(סלון) אינץ׳ 55 טלוויזיה'],
  ];
  const file = await report([...drawn.map(([name]) => name), 'Toaster'], 'Kitchen');
  const pdfjs = await loadPdfjs();
  const data = new Uint8Array(readFileSync(file));
  const doc = await pdfjs.getDocument({ data, ...pdfjsDataDirs(), verbosity: pdfjs.VerbosityLevel.ERRORS }).promise;
  const items = (await (await doc.getPage(1)).getTextContent()).items as { str: string; hasEOL: boolean }[];
  await doc.destroy();
  const lines = items
    .map((item) => `${item.str}${item.hasEOL ? '\n' : ''}`)
    .join('')
    .split('\n');
  for (const [name, order] of drawn) expect([name, lines.some((line) => line.includes(order))]).toEqual([name, true]);
  // Not in stored order, as when each right-to-left run was drawn after the one before it.
  for (const [name, order] of drawn)
    if (order !== name) expect([name, lines.some((line) => line.includes(name))]).toEqual([name, false]);
});

it('embeds only the glyphs a report uses, and reads no other script’s font for a Latin report', async () => {
  const file = await report(NAMES.slice(0, 1).concat(['Armchair', 'Reading lamp']), 'Kitchen');
  expect(embeddedFonts(file)).toEqual(['NotoSans-Bold yesyesyes', 'NotoSans-Regular yesyesyes']);
  // Whole, the two Noto Sans files are 1.2 MB; their subsets here take a few KB.
  expect(statSync(file).size).toBeLessThan(40_000);
});

it('reads every face from its package in node_modules', () => {
  const modules = realpathSync(path.resolve(__dirname, '..', '..', '..', 'node_modules'));
  for (const face of REPORT_FONTS)
    for (const weight of ['regular', 'bold'] as const)
      expect(path.relative(modules, fontFile(face, weight))).toMatch(
        /^@embedpdf\/fonts-\w+\/fonts\/Noto[\w-]+\.(ttf|otf)$/,
      );
});
