/**
 * What goes into a cell of an export. In the CSV a text that starts with a
 * formula trigger is neutralised with a leading quote (a CSV has no cell
 * types), so a spreadsheet opening it shows text instead of running what a
 * model or a homeowner wrote; the workbook keeps the text exact in text
 * cells instead (workbook-view). Sheet names follow Excel's rules, and the
 * report's text is cut into runs, each drawn by one font that has its glyphs.
 */

/** Characters a spreadsheet may read as the start of a formula (or that hide one behind whitespace). */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** A CSV text starting with a formula trigger gets a leading quote; numbers, booleans and null stay as they are. */
export function neutralizeCell<T>(value: T): T | string {
  if (typeof value !== 'string' || value.length === 0) return value;
  return FORMULA_TRIGGERS.has(value[0]) ? `'${value}` : value;
}

/** Excel's limit on a sheet name's length. */
export const SHEET_NAME_MAX = 31;

/** Excel refuses these in sheet names. */
const FORBIDDEN_IN_SHEET_NAME = /[[\]:*?/\\]/g;

/**
 * One valid, unique sheet name per room, in order: forbidden characters become spaces, a name is
 * cut to 31 characters, may not start or end with a quote, and never repeats (case-insensitively)
 * another room's or one of `reserved` (the workbook's own sheets); repeats get " (2)", " (3)"...
 */
export function sheetNames(roomNames: string[], reserved: string[] = []): string[] {
  const taken = new Set(reserved.map((n) => n.toLowerCase()));
  return roomNames.map((raw) => {
    const base =
      raw
        .replace(FORBIDDEN_IN_SHEET_NAME, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/^'+|'+$/g, '')
        .trim() || 'Room';
    let name = base.slice(0, SHEET_NAME_MAX).trim();
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = `${base.slice(0, SHEET_NAME_MAX - suffix.length).trim()}${suffix}`;
    }
    taken.add(name.toLowerCase());
    return name;
  });
}

/** A reference to cell A<row> of a sheet, quoted as Excel wants (quotes inside the name doubled). */
export function sheetCellRef(sheet: string, column: string, row: number): string {
  return `'${sheet.replace(/'/g, "''")}'!${column}${row}`;
}

/** A piece of a text drawn with one font. */
export interface TextRun<F> {
  font: F;
  text: string;
}

/** What a report shows for a character no font has (an emoji): the replacement character. */
export const MISSING_GLYPH = '\uFFFD';

/** Control characters and line or paragraph separators: a name is drawn on its own lines, so they become spaces. */
const BREAKS_LAYOUT = /[\p{Cc}\u2028\u2029]/gu;
/** Spaces, punctuation, digits and marks: characters of no script of their own. */
const NO_SCRIPT_OF_ITS_OWN = /^[\p{Script=Common}\p{Script=Inherited}]+$/u;
/** Joiners and variation selectors shape their neighbours; a font need not have a glyph of their own. */
const shapingOnly = (codePoint: number) =>
  codePoint === 0x200c || codePoint === 0x200d || (codePoint >= 0xfe00 && codePoint <= 0xfe0f);
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Cuts a text into runs, each to be drawn with one of `fonts` (in order of preference): a character
 * (a grapheme: a letter with its marks, an emoji sequence) goes to the first font that has all of it,
 * except that a space, punctuation or digit stays in the run before it when that run's font has it
 * ("東京 2" is one run). A character no font has becomes MISSING_GLYPH in the first font.
 */
export function fontRuns<F>(text: string, fonts: F[], has: (font: F, codePoint: number) => boolean): TextRun<F>[] {
  const covers = (font: F, grapheme: string) =>
    [...grapheme].every((ch) => {
      const codePoint = ch.codePointAt(0) as number;
      return shapingOnly(codePoint) || has(font, codePoint);
    });
  // Most texts of a report (numbers, prices, English names) are printable ASCII: one run, no segmenting.
  if (PRINTABLE_ASCII.test(text) && covers(fonts[0], text)) return text ? [{ font: fonts[0], text }] : [];
  const runs: TextRun<F>[] = [];
  for (const { segment } of graphemes.segment(text.replace(BREAKS_LAYOUT, ' '))) {
    const last = runs.at(-1);
    let font: F | undefined;
    let shown = segment;
    if (last && NO_SCRIPT_OF_ITS_OWN.test(segment) && covers(last.font, segment)) font = last.font;
    else font = fonts.find((f) => covers(f, segment));
    if (font === undefined) {
      font = fonts[0];
      shown = MISSING_GLYPH;
    }
    if (last && last.font === font) last.text += shown;
    else runs.push({ font, text: shown });
  }
  return runs;
}

/** A number: digits (European or Arabic-Indic) with the separators inside it. */
const NUMBER = /[0-9\u0660-\u0669\u06F0-\u06F9]+(?:[.,\u066B\u066C][0-9\u0660-\u0669\u06F0-\u06F9]+)*/g;

/**
 * fontkit draws a right-to-left run glyph by glyph from the right, numbers included, but a number
 * reads left to right in Arabic and Hebrew too: its characters are put in reverse order first, so
 * that drawing them from the right shows them as written.
 */
export function numbersLeftToRight(text: string): string {
  return text.replace(NUMBER, (number) => [...number].reverse().join(''));
}

/** Dollars with cents and thousands separators; empty when there is no price. */
export function formatMoney(value: number | null): string {
  if (value === null) return '';
  const sign = value < 0 ? '-' : '';
  const [whole, cents] = Math.abs(value).toFixed(2).split('.');
  return `${sign}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}
