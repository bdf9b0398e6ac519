import {
  fontRuns,
  formatMoney,
  MISSING_GLYPH,
  neutralizeCell,
  numbersLeftToRight,
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

describe('fontRuns', () => {
  // Three fonts by the characters they have: a Latin one (with the replacement character), an Arabic
  // one with its own space and digits, and a CJK one with Latin letters and a space too.
  const chars = (text: string) => new Set([...text].map((c) => c.codePointAt(0) as number));
  const fonts = {
    latin: chars(`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéÑú\u0301 .,–-0123456789${MISSING_GLYPH}`),
    arabic: chars('طاولةخشبية 0123456789'),
    cjk: chars('東京台灯デスクランプ abcdefghijklmnopqrstuvwxyz'),
  };
  const order = ['latin', 'arabic', 'cjk'] as const;
  const runs = (text: string) =>
    fontRuns(text, [...order], (font, codePoint) => fonts[font].has(codePoint)).map((r) => [r.font, r.text]);

  it('keeps a text one font has in one run of the first font that has it', () => {
    expect(runs('Toaster, 2 slots')).toEqual([['latin', 'Toaster, 2 slots']]);
    expect(runs('Café Ñandú')).toEqual([['latin', 'Café Ñandú']]);
    expect(runs('طاولة خشبية')).toEqual([['arabic', 'طاولة خشبية']]);
    expect(runs('')).toEqual([]);
  });

  it('switches fonts where the script changes, spaces and digits staying with the run before them', () => {
    expect(runs('Café – 東京 Ñandú')).toEqual([
      ['latin', 'Café – '],
      ['cjk', '東京 '],
      ['latin', 'Ñandú'],
    ]);
    expect(runs('طاولة 2 lamp')).toEqual([
      ['arabic', 'طاولة 2 '],
      ['latin', 'lamp'],
    ]);
    // A space the current font lacks goes to the first font that has it.
    expect(runs('台灯, desk')).toEqual([
      ['cjk', '台灯'],
      ['latin', ', desk'],
    ]);
  });

  it('keeps a letter with its combining mark together, in a font that has both', () => {
    expect(runs('Cafe\u0301 東京')).toEqual([
      ['latin', 'Cafe\u0301 '],
      ['cjk', '東京'],
    ]);
  });

  it('shows a character no font has (an emoji, a whole emoji sequence) as one replacement character in the first font', () => {
    expect(runs('Sofa 😀')).toEqual([['latin', `Sofa ${MISSING_GLYPH}`]]);
    expect(runs('東京👨‍👩‍👧')).toEqual([
      ['cjk', '東京'],
      ['latin', MISSING_GLYPH],
    ]);
    expect(runs('ZZ\u{1F44D}\u{1F3FD}')).toEqual([['latin', `ZZ${MISSING_GLYPH}`]]);
  });

  it('draws tabs, line breaks and other control characters as spaces', () => {
    expect(runs('a\tb\nc\u0085d\u2028e')).toEqual([['latin', 'a b c d e']]);
  });
});

describe('numbersLeftToRight', () => {
  it('reverses each number, separators included, and nothing else', () => {
    expect(numbersLeftToRight('تلفزيون 65 بوصة')).toBe('تلفزيون 56 بوصة');
    expect(numbersLeftToRight('سعر 1,299.50 و 12')).toBe('سعر 05.992,1 و 21');
    expect(numbersLeftToRight('غرفة ١٢')).toBe('غرفة ٢١');
    expect(numbersLeftToRight('no digits')).toBe('no digits');
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
