/**
 * The fonts of the PDF report: Noto faces from npm packages, embedded (pdfkit
 * keeps only the glyphs a report uses), so every name prints, whatever its
 * script. The standard PDF fonts know Latin-1 only. Each text is cut into
 * runs (cell-rules' fontRuns), and each run is drawn with the first face that
 * has its characters: Noto Sans for Latin, Greek and Cyrillic, then Arabic,
 * Hebrew, Chinese (with Japanese kana) and Korean. Nothing here has emoji:
 * they print as the replacement character.
 *
 * The font files are read at run time from their packages: in Lambda from
 * the pdfkit layer (/opt/nodejs/node_modules, functions/layers.js keeps these
 * files), locally from node_modules. A face is read the first time a text
 * needs it, so a report in Latin script never reads the Chinese or Korean
 * files, and is kept for the next report.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as fontkit from 'fontkit';
import { fontRuns, numbersLeftToRight } from './cell-rules';

export type Weight = 'regular' | 'bold';

interface Face {
  /** The package's JavaScript index; the font files are in fonts/ beside its dist/. */
  index: () => string;
  regular: string;
  bold: string;
  /** Arabic and Hebrew: each run is laid out whole, right to left. */
  rightToLeft?: true;
}

/** In order of preference; the first has the replacement character (MISSING_GLYPH). */
export const REPORT_FONTS: Face[] = [
  { index: () => require.resolve('@embedpdf/fonts-latin'), regular: 'NotoSans-Regular.ttf', bold: 'NotoSans-Bold.ttf' },
  {
    index: () => require.resolve('@embedpdf/fonts-arabic'),
    regular: 'NotoNaskhArabic-Regular.ttf',
    bold: 'NotoNaskhArabic-Bold.ttf',
    rightToLeft: true,
  },
  {
    index: () => require.resolve('@embedpdf/fonts-hebrew'),
    regular: 'NotoSansHebrew-Regular.ttf',
    bold: 'NotoSansHebrew-Bold.ttf',
    rightToLeft: true,
  },
  {
    index: () => require.resolve('@embedpdf/fonts-sc'),
    regular: 'NotoSansHans-Regular.otf',
    bold: 'NotoSansHans-Bold.otf',
  },
  {
    index: () => require.resolve('@embedpdf/fonts-kr'),
    regular: 'NotoSansKR-Regular.otf',
    bold: 'NotoSansKR-Bold.otf',
  },
];

/**
 * Where a face's file is. The packages export only their JavaScript index (dist/), so the file is
 * found beside it; require.resolve looks where the code runs from (NODE_PATH in Lambda).
 */
export function fontFile(face: Face, weight: Weight): string {
  return path.join(path.dirname(face.index()), '..', 'fonts', face[weight]);
}

interface LoadedFont {
  /** The name the report registers it under. */
  name: string;
  bytes: Buffer;
  font: fontkit.Font;
  /** Code point → whether the font has it: a report asks about the same few characters many times. */
  has: Map<number, boolean>;
}

/** By file name. */
const loaded = new Map<string, LoadedFont>();

function load(face: Face, weight: Weight): LoadedFont {
  const file = face[weight];
  let font = loaded.get(file);
  if (!font) {
    const bytes = fs.readFileSync(fontFile(face, weight));
    font = { name: file.replace(/\.[^.]+$/, ''), bytes, font: fontkit.create(bytes), has: new Map() };
    loaded.set(file, font);
  }
  return font;
}

/** Whether a face has a character, asked face by face, so a later face's file is read only when an earlier one lacks it. */
const faceHas = (weight: Weight) => (face: Face, codePoint: number) => {
  const { font, has } = load(face, weight);
  let found = has.get(codePoint);
  if (found === undefined) {
    found = font.hasGlyphForCodePoint(codePoint);
    has.set(codePoint, found);
  }
  return found;
};
const HAS_GLYPH: Record<Weight, (face: Face, codePoint: number) => boolean> = {
  regular: faceHas('regular'),
  bold: faceHas('bold'),
};

/**
 * Writes `text` at (x, y) as doc.text does, each run in its face: runs after the first continue
 * the same text (pdfkit's `continued`), so wrapping, height and ellipsis apply to the whole.
 * pdfkit lays text out word by word, which would put the words of a right-to-left run in left-to-right
 * order; `features` makes it lay each line out whole, and fontkit then draws it right to left. There
 * is no bidirectional algorithm beyond that: a run of another script inside Arabic or Hebrew text
 * follows it on the right.
 */
export function writeText(
  doc: PDFKit.PDFDocument,
  text: string,
  weight: Weight,
  x: number,
  y: number,
  options: PDFKit.Mixins.TextOptions = {},
): void {
  const pieces: { face: Face; text: string; rightToLeft: boolean }[] = [];
  for (const run of fontRuns(text, REPORT_FONTS, HAS_GLYPH[weight])) {
    if (!run.font.rightToLeft) {
      pieces.push({ face: run.font, text: run.text, rightToLeft: false });
      continue;
    }
    // The spaces after a right-to-left run separate it from what follows on its right, so they are drawn there.
    const words = run.text.trimEnd();
    pieces.push({ face: run.font, text: numbersLeftToRight(words), rightToLeft: true });
    if (words.length < run.text.length)
      pieces.push({ face: run.font, text: run.text.slice(words.length), rightToLeft: false });
  }
  if (pieces.length === 0) pieces.push({ face: REPORT_FONTS[0], text: '', rightToLeft: false });
  pieces.forEach((piece, i) => {
    const { name, bytes } = load(piece.face, weight);
    doc.registerFont(name, bytes).font(name);
    const pieceOptions = { continued: i < pieces.length - 1, features: piece.rightToLeft ? [] : undefined };
    if (i === 0) doc.text(piece.text, x, y, { ...options, ...pieceOptions });
    else doc.text(piece.text, pieceOptions);
  });
}
