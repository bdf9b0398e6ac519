/**
 * What goes into a cell of an export. In the CSV a text that starts with a
 * formula trigger is neutralised with a leading quote (a CSV has no cell
 * types), so a spreadsheet opening it shows text instead of running what a
 * model or a homeowner wrote; the workbook keeps the text exact in text
 * cells instead (workbook-view). Sheet names follow Excel's rules, and PDF
 * text keeps to what the report's standard font can show.
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

/** The characters beyond Latin-1 that the PDF standard fonts' WinAnsi encoding can show. */
const WIN_ANSI_EXTRA = new Set([...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ']);

/** Text the report's standard font can render: control characters become spaces, others it lacks become '?'. */
export function pdfText(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += ' ';
    else if (code <= 0xff || WIN_ANSI_EXTRA.has(ch)) out += ch;
    else out += '?';
  }
  return out;
}

/** Dollars with cents and thousands separators; empty when there is no price. */
export function formatMoney(value: number | null): string {
  if (value === null) return '';
  const sign = value < 0 ? '-' : '';
  const [whole, cents] = Math.abs(value).toFixed(2).split('.');
  return `${sign}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}
