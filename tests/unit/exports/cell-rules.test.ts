import {
  formatMoney,
  neutralizeCell,
  pdfText,
  SHEET_NAME_MAX,
  sheetCellRef,
  sheetNames,
} from '../../../lib/exports/cell-rules';

describe('neutralizeCell', () => {
  it.each(['=SUM(A1:A9)', '+1', '-2+3', '@cmd', '\tTAB', '\rCR', '=HYPERLINK("http://x","y")'])(
    'quotes a text starting with a formula trigger: %j',
    (text) => {
      expect(neutralizeCell(text)).toBe(`'${text}`);
    },
  );

  it('leaves other texts, empty texts, numbers, booleans and null alone', () => {
    expect(neutralizeCell('Sofa = comfy')).toBe('Sofa = comfy');
    expect(neutralizeCell(' =1')).toBe(' =1');
    expect(neutralizeCell('')).toBe('');
    expect(neutralizeCell(-5)).toBe(-5);
    expect(neutralizeCell(12.5)).toBe(12.5);
    expect(neutralizeCell(true)).toBe(true);
    expect(neutralizeCell(null)).toBeNull();
  });
});

describe('sheetNames', () => {
  it('replaces forbidden characters and trims', () => {
    expect(sheetNames(['Kitchen', 'Living: room?', 'a[b]c*d/e\\f', "  'Den'  "])).toEqual([
      'Kitchen',
      'Living room',
      'a b c d e f',
      'Den',
    ]);
  });

  it('cuts to 31 characters and names a blank room "Room"', () => {
    const long = 'A very long room name that Excel would refuse';
    expect(sheetNames([long])[0]).toBe(long.slice(0, SHEET_NAME_MAX).trim());
    expect(sheetNames(['', '???'])).toEqual(['Room', 'Room (2)']);
  });

  it('never repeats a name or a reserved one, case-insensitively', () => {
    expect(sheetNames(['Kitchen', 'kitchen', 'KITCHEN', 'Photos', 'summary'], ['Summary', 'Photos'])).toEqual([
      'Kitchen',
      'kitchen (2)',
      'KITCHEN (3)',
      'Photos (2)',
      'summary (2)',
    ]);
    const long = 'B'.repeat(40);
    const [first, second] = sheetNames([long, long]);
    expect(first).toBe('B'.repeat(31));
    expect(second).toBe(`${'B'.repeat(27)} (2)`);
    expect(second.length).toBeLessThanOrEqual(SHEET_NAME_MAX);
  });
});

it('quotes sheet references, doubling quotes in the name', () => {
  expect(sheetCellRef('Photos', 'A', 5)).toBe("'Photos'!A5");
  expect(sheetCellRef("Bob's room", 'B', 2)).toBe("'Bob''s room'!B2");
});

describe('pdfText', () => {
  it('keeps Latin-1 and the WinAnsi extras, replaces the rest', () => {
    expect(pdfText('Café — “quoted” €5 ™')).toBe('Café — “quoted” €5 ™');
    expect(pdfText('Sofa 🛋 中文')).toBe('Sofa ? ??');
    expect(pdfText('a\tb\nc\u0085d')).toBe('a b c d');
  });
});

describe('formatMoney', () => {
  it('formats dollars with separators and cents', () => {
    expect(formatMoney(1299)).toBe('$1,299.00');
    expect(formatMoney(1234567.891)).toBe('$1,234,567.89');
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(-20.5)).toBe('-$20.50');
    expect(formatMoney(null)).toBe('');
  });
});
