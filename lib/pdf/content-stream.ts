/**
 * A minimal reader of page content streams: it reports the operators that
 * place images and forms (q, Q, cm, Do) and select fonts (Tf, gs) with their
 * operands and skips everything else without building it (strings, arrays,
 * dictionaries, inline image data). Enough to find where each image XObject
 * is drawn, and which fonts the text uses, without pdf.js, whose operator
 * list decodes every image on the page and whose text decodes every font.
 */

/** The operators ./placements.ts acts on. */
export type DrawingOperator = 'q' | 'Q' | 'cm' | 'Do' | 'Tf' | 'gs' | 'scn' | 'SCN' | 'sh';

/** Numbers and names are kept as operands; anything else is a placeholder. */
export type Operand = number | { name: string } | null;

const WANTED = new Set<string>(['q', 'Q', 'cm', 'Do', 'Tf', 'gs', 'scn', 'SCN', 'sh']);

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number) =>
  c === 0x28 ||
  c === 0x29 ||
  c === 0x3c ||
  c === 0x3e ||
  c === 0x5b ||
  c === 0x5d ||
  c === 0x7b ||
  c === 0x7d ||
  c === 0x2f ||
  c === 0x25;
const isRegular = (c: number) => !isWhite(c) && !isDelimiter(c);

function decodeName(raw: string): string {
  return raw.includes('#')
    ? raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : raw;
}

/** Index just past the end of a literal string starting at `i` (its opening parenthesis). */
function skipLiteralString(bytes: Uint8Array, i: number): number {
  let depth = 0;
  for (let j = i; j < bytes.length; j++) {
    const c = bytes[j];
    if (c === 0x5c)
      j++; // backslash escapes the next byte
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return j + 1;
  }
  return bytes.length;
}

/** Index just past the end of an inline image's data (`i` just after the ID operator). */
function skipInlineImageData(bytes: Uint8Array, i: number): number {
  // The data starts after one white-space byte and ends at "EI" standing between white space.
  for (let j = i + 1; j + 1 < bytes.length; j++) {
    if (
      bytes[j] === 0x45 &&
      bytes[j + 1] === 0x49 &&
      isWhite(bytes[j - 1]) &&
      (j + 2 >= bytes.length || !isRegular(bytes[j + 2]))
    ) {
      return j + 2;
    }
  }
  return bytes.length;
}

/** Calls `onOperator` for each q, Q, cm, Do, Tf and gs in the content, in order, with the operands before it. */
export function scanContent(bytes: Uint8Array, onOperator: (op: DrawingOperator, operands: Operand[]) => void): void {
  const operands: Operand[] = [];
  let nesting = 0; // inside an array or dictionary: its items are not operands of their own
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i];
    if (isWhite(c)) {
      i++;
    } else if (c === 0x25) {
      while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
    } else if (c === 0x28) {
      i = skipLiteralString(bytes, i);
      if (nesting === 0) operands.push(null);
    } else if (c === 0x3c && bytes[i + 1] === 0x3c) {
      nesting++;
      i += 2;
    } else if (c === 0x3e && bytes[i + 1] === 0x3e) {
      nesting = Math.max(0, nesting - 1);
      i += 2;
      if (nesting === 0) operands.push(null);
    } else if (c === 0x3c) {
      while (i < n && bytes[i] !== 0x3e) i++;
      i++;
      if (nesting === 0) operands.push(null);
    } else if (c === 0x5b) {
      nesting++;
      i++;
    } else if (c === 0x5d) {
      nesting = Math.max(0, nesting - 1);
      i++;
      if (nesting === 0) operands.push(null);
    } else if (c === 0x2f) {
      const start = ++i;
      while (i < n && isRegular(bytes[i])) i++;
      if (nesting === 0) operands.push({ name: decodeName(latin1(bytes, start, i)) });
    } else {
      const start = i;
      while (i < n && isRegular(bytes[i])) i++;
      if (i === start) {
        i++; // a stray delimiter such as ")" or "}"
        continue;
      }
      if (nesting > 0) continue;
      const first = bytes[start];
      if ((first >= 0x30 && first <= 0x39) || first === 0x2d || first === 0x2b || first === 0x2e) {
        operands.push(Number(latin1(bytes, start, i)) || 0);
        continue;
      }
      const op = latin1(bytes, start, i);
      if (op === 'ID') {
        i = skipInlineImageData(bytes, i);
      } else if (WANTED.has(op)) {
        onOperator(op as DrawingOperator, operands);
      }
      operands.length = 0;
    }
  }
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let k = start; k < end; k++) s += String.fromCharCode(bytes[k]);
  return s;
}
