/**
 * The fonts of the PDF report: Noto faces from npm packages, embedded (pdfkit
 * keeps only the glyphs a report uses), so every name prints, whatever its
 * script. The standard PDF fonts know Latin-1 only. Each text is cut into
 * runs (cell-rules' fontRuns), and each run is drawn with the first face that
 * has its characters: Noto Sans for Latin, Greek and Cyrillic, then Arabic,
 * Hebrew, Chinese (with Japanese kana) and Korean. Nothing here has emoji:
 * they print as the replacement character. A text with right-to-left letters
 * is laid out here, line by line, in the visual order of the Unicode
 * bidirectional algorithm (UAX #9, bidi-js): "IKEA כיסא 2" reads right to
 * left with its Latin words and numbers left to right in their place.
 *
 * The font files are read at run time from their packages: in Lambda from
 * the pdfkit layer (/opt/nodejs/node_modules, deploy/layers.js keeps these
 * files), locally from node_modules. A face is read the first time a text
 * needs it, so a report in Latin script never reads the Chinese or Korean
 * files, and is kept for the next report.
 */
import fs from 'node:fs';
import path from 'node:path';
import bidiFactory, { type EmbeddingLevels } from 'bidi-js';
import * as fontkit from 'fontkit';
import { fontRuns, type TextRun } from './cell-rules';

export type Weight = 'regular' | 'bold';

interface Face {
  /** The package's JavaScript index; the font files are in fonts/ beside its dist/. */
  index: () => string;
  regular: string;
  bold: string;
  /** Arabic and Hebrew: each run is shaped whole (fontkit lays Arabic and Hebrew script out right to left). */
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
 * Writes `text` at (x, y) as doc.text does, each run in its face. A text without right-to-left letters
 * (or Arabic-Indic digits) goes to pdfkit as it is: runs after the first continue the same text (pdfkit's
 * `continued`), so wrapping, height and ellipsis apply to the whole. pdfkit knows no bidirectional
 * order, so a text with them is laid out here, line by line (writeBidi).
 */
export function writeText(
  doc: PDFKit.PDFDocument,
  text: string,
  weight: Weight,
  x: number,
  y: number,
  options: PDFKit.Mixins.TextOptions = {},
): void {
  const runs = fontRuns(text, REPORT_FONTS, HAS_GLYPH[weight]);
  const shown = runs.map((run) => run.text).join('');
  if (runs.some((run) => run.font.rightToLeft) || hasRightToLeft(shown)) {
    writeBidi(doc, runs, weight, x, y, options);
    return;
  }
  if (runs.length === 0) runs.push({ font: REPORT_FONTS[0], text: '' });
  runs.forEach((run, i) => {
    const { name, bytes } = load(run.font, weight);
    doc.registerFont(name, bytes).font(name);
    const continued = i < runs.length - 1;
    if (i === 0) doc.text(run.text, x, y, { ...options, continued });
    else doc.text(run.text, { continued });
  });
}

// --- Right-to-left text -------------------------------------------------------------------------

const bidi = bidiFactory();
const RIGHT_TO_LEFT_TYPES = new Set(['R', 'AL', 'RLE', 'RLO', 'RLI']);

const hasRightToLeft = (text: string) => [...text].some((ch) => RIGHT_TO_LEFT_TYPES.has(bidi.getBidiCharTypeName(ch)));

/** A stretch of one line as it is drawn: its characters in stored order, read right to left when `rightToLeft`. */
export interface VisualRun<F> {
  font: F;
  text: string;
  rightToLeft: boolean;
}

/** The bidi levels of a whole text (a paragraph: the report's texts are drawn on their own). */
export const bidiLevels = (text: string): EmbeddingLevels => bidi.getEmbeddingLevels(text);

/**
 * The line text[start, end) in visual order, left to right, cut where the direction or the font
 * (`fontAt`, by index) changes: UAX #9's reordering of the line (rules L1-L2, bidi-js) with the
 * paragraph's levels, and right-to-left brackets mirrored (L4). Each run keeps its characters in
 * stored order, so a right-to-left run of Arabic is shaped as written.
 */
export function visualRuns<F>(
  text: string,
  levels: EmbeddingLevels,
  start: number,
  end: number,
  fontAt: (index: number) => F,
): VisualRun<F>[] {
  if (end <= start) return [];
  const order = Array.from({ length: end - start }, (_, i) => start + i);
  for (const [from, to] of bidi.getReorderSegments(text, levels, start, end - 1))
    order.splice(from - start, to - from + 1, ...order.slice(from - start, to - start + 1).reverse());
  const odd = (i: number) => (levels.levels[i] & 1) === 1;
  const runs: { font: F; first: number; last: number; rightToLeft: boolean }[] = [];
  for (const i of order) {
    const run = runs.at(-1);
    const rightToLeft = odd(i);
    const next = rightToLeft ? (run?.first ?? 0) - 1 : (run?.last ?? 0) + 1;
    if (run && run.rightToLeft === rightToLeft && run.font === fontAt(i) && i === next) {
      if (rightToLeft) run.first = i;
      else run.last = i;
    } else runs.push({ font: fontAt(i), first: i, last: i, rightToLeft });
  }
  return runs.map(({ font, first, last, rightToLeft }) => {
    let stored = text.slice(first, last + 1);
    if (rightToLeft) stored = [...stored].map((ch) => bidi.getMirroredCharacter(ch) ?? ch).join('');
    return { font, text: stored, rightToLeft };
  });
}

/** The parts of a fontkit font that measure text (fontkit ships no types; lib/exports/fontkit.d.ts has the rest). */
interface FontMeasures {
  unitsPerEm: number;
  ascent: number;
  descent: number;
  lineGap: number;
  layout(text: string, features?: string[]): { advanceWidth: number };
}

/** A face's measures at the document's current size, in points. */
function metrics(doc: PDFKit.PDFDocument, face: Face, weight: Weight) {
  const font = load(face, weight).font as unknown as FontMeasures;
  const size = (doc as unknown as { _fontSize: number })._fontSize;
  const scale = size / font.unitsPerEm;
  return {
    ascender: font.ascent * scale,
    lineHeight: (font.ascent - font.descent + font.lineGap) * scale,
    width: (text: string, rightToLeft: boolean) => font.layout(text, rightToLeft ? [] : undefined).advanceWidth * scale,
  };
}

/** fontkit lays out a text right to left when its first letter of a script is of these (Arabic-Indic digits are). */
const FONTKIT_RIGHT_TO_LEFT = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;

/**
 * What pdfkit is given for a run: fontkit reverses a text of Arabic or Hebrew script itself (shaping
 * it as stored), so a run is reversed here only when fontkit's direction is not the run's, as for
 * Arabic-Indic digits, which read left to right.
 */
function drawnText(run: VisualRun<Face>): { text: string; fontkitReverses: boolean } {
  const fontkitReverses = FONTKIT_RIGHT_TO_LEFT.test(run.text);
  const text = fontkitReverses === run.rightToLeft ? run.text : [...run.text].reverse().join('');
  return { text, fontkitReverses };
}

/**
 * doc.text's layout for a text with right-to-left letters: lines broken at spaces (a word longer
 * than the width at a character), at most those that fit in `height` (one when `lineBreak` is false),
 * the last one cut with an ellipsis when text is left over and `ellipsis` is set; then each line
 * drawn in visual order (visualRuns), aligned as `align` says, baselines on the first face's. Leaves
 * doc.x at x and doc.y under the last line, as doc.text does.
 */
function writeBidi(
  doc: PDFKit.PDFDocument,
  runs: TextRun<Face>[],
  weight: Weight,
  x: number,
  y: number,
  options: PDFKit.Mixins.TextOptions,
): void {
  let shown = runs.map((run) => run.text).join('');
  const fonts: Face[] = runs.flatMap((run) => Array.from({ length: run.text.length }, () => run.font));
  const base = metrics(doc, REPORT_FONTS[0], weight);
  const lineHeight = base.lineHeight + (options.lineGap ?? 0);
  const width = options.width ?? doc.page.width - doc.page.margins.right - x;
  const maxLines =
    options.lineBreak === false
      ? 1
      : options.height !== undefined
        ? Math.max(1, Math.floor(options.height / lineHeight))
        : Number.POSITIVE_INFINITY;
  const measures = new Map<Face, ReturnType<typeof metrics>>();
  const measure = (face: Face) => {
    let m = measures.get(face);
    if (!m) {
      m = metrics(doc, face, weight);
      measures.set(face, m);
    }
    return m;
  };
  /** The width of shown[start, end), each stretch of one face measured whole. */
  const widthOf = (start: number, end: number) => {
    let total = 0;
    for (let i = start; i < end; ) {
      let j = i + 1;
      while (j < end && fonts[j] === fonts[i]) j++;
      total += measure(fonts[i]).width(shown.slice(i, j), fonts[i].rightToLeft === true);
      i = j;
    }
    return total;
  };
  const trimmedEnd = (start: number, end: number) => {
    while (end > start && /\s/.test(shown[end - 1])) end--;
    return end;
  };

  const lines = breakLines(shown, width, widthOf, trimmedEnd);
  const cut = lines.length > maxLines || (options.lineBreak === false && widthOf(0, shown.length) > width);
  const kept = lines.slice(0, maxLines);
  if (cut && options.ellipsis) {
    const ellipsis = typeof options.ellipsis === 'string' ? options.ellipsis : '…';
    const last = kept[kept.length - 1];
    const ellipsisWidth = measure(REPORT_FONTS[0]).width(ellipsis, false);
    let end = trimmedEnd(last.start, last.end);
    while (end > last.start && widthOf(last.start, end) + ellipsisWidth > width) {
      const step = /[\uDC00-\uDFFF]/.test(shown[end - 1]) ? 2 : 1;
      end = trimmedEnd(last.start, end - step);
    }
    shown = shown.slice(0, end) + ellipsis;
    fonts.length = end;
    fonts.push(...Array.from({ length: ellipsis.length }, () => REPORT_FONTS[0]));
    last.end = shown.length;
  }

  const levels = bidiLevels(shown);
  kept.forEach((line, n) => {
    const lineY = y + n * lineHeight;
    const visual = visualRuns(shown, levels, line.start, trimmedEnd(line.start, line.end), (i) => fonts[i]);
    const widths = visual.map((run) => measure(run.font).width(run.text, run.font.rightToLeft === true));
    const lineWidth = widths.reduce((a, b) => a + b, 0);
    let left = x;
    if (options.align === 'right') left += width - lineWidth;
    else if (options.align === 'center') left += (width - lineWidth) / 2;
    visual.forEach((run, i) => {
      const { name, bytes } = load(run.font, weight);
      doc.registerFont(name, bytes).font(name);
      const { text, fontkitReverses } = drawnText(run);
      const top = lineY + base.ascender - measure(run.font).ascender;
      doc.text(text, left, top, { lineBreak: false, features: fontkitReverses ? [] : undefined });
      left += widths[i];
    });
  });
  doc.x = x;
  doc.y = y + kept.length * lineHeight;
}

/**
 * Greedy line breaks of `text` within `width`: after a run of spaces, or inside a word that is
 * wider than a line on its own (between characters, never inside a surrogate pair).
 */
function breakLines(
  text: string,
  width: number,
  widthOf: (start: number, end: number) => number,
  trimmedEnd: (start: number, end: number) => number,
): { start: number; end: number }[] {
  const words: { start: number; end: number }[] = [];
  for (const match of text.matchAll(/\s*\S+\s*|\s+/g))
    words.push({ start: match.index, end: match.index + match[0].length });
  const lines: { start: number; end: number }[] = [];
  let line: { start: number; end: number } | null = null;
  for (const word of words) {
    if (line && widthOf(line.start, trimmedEnd(line.start, word.end)) <= width) {
      line.end = word.end;
      continue;
    }
    if (line) lines.push(line);
    line = { ...word };
    // A word wider than a line is cut where the line is full.
    while (widthOf(line.start, trimmedEnd(line.start, line.end)) > width) {
      let end: number = line.start + 1;
      while (end < line.end && widthOf(line.start, end + 1) <= width) end++;
      if (/[\uDC00-\uDFFF]/.test(text[end] ?? '') && end - 1 > line.start) end--;
      lines.push({ start: line.start, end });
      line = { start: end, end: line.end };
    }
  }
  if (line) lines.push(line);
  return lines;
}
