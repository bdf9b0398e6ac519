import { type Operand, scanContent } from '../../../lib/pdf/content-stream';

function scan(content: string | Uint8Array): [string, Operand[]][] {
  const seen: [string, Operand[]][] = [];
  const bytes = typeof content === 'string' ? Buffer.from(content, 'latin1') : content;
  scanContent(bytes, (op, operands) => seen.push([op, [...operands]]));
  return seen;
}

describe('scanContent', () => {
  it('reports q, Q, cm and Do with their numbers and names', () => {
    expect(scan('q 200 0 0 150 40.5 -12 cm /Im#201 Do Q')).toEqual([
      ['q', []],
      ['cm', [200, 0, 0, 150, 40.5, -12]],
      ['Do', [{ name: 'Im 1' }]],
      ['Q', []],
    ]);
  });

  it('reports the fonts text selects: Tf, and gs (a graphics state may carry a font)', () => {
    expect(scan('BT /F#201 9.5 Tf (x) Tj /GS0 gs ET')).toEqual([
      ['Tf', [{ name: 'F 1' }, 9.5]],
      ['gs', [{ name: 'GS0' }]],
    ]);
  });

  it('skips strings, arrays, dictionaries and comments, even when they spell operators', () => {
    const content = [
      'BT /F1 12 Tf (a \\) q cm \\(Do) Tj [(x) -20 (Q)] TJ <4463> Tj ET % 1 0 0 1 0 0 cm',
      '/P <</MCID 3 /Alt (q)>> BDC EMC',
      'q 1 0 0 1 5 6 cm /X Do Q',
    ].join('\n');
    expect(scan(content)).toEqual([
      ['Tf', [{ name: 'F1' }, 12]],
      ['q', []],
      ['cm', [1, 0, 0, 1, 5, 6]],
      ['Do', [{ name: 'X' }]],
      ['Q', []],
    ]);
  });

  it('skips inline image data whatever bytes it holds', () => {
    const head = Buffer.from('q BI /W 2 /H 2 /BPC 8 /CS /G ID ', 'latin1');
    const data = Buffer.from([0x51, 0x20, 0x44, 0x6f, 0x0a, 0x63, 0x6d]); // "Q Do\ncm"
    const tail = Buffer.from('\nEI Q q 2 0 0 2 0 0 cm /Im2 Do Q', 'latin1');
    expect(scan(Buffer.concat([head, data, tail]))).toEqual([
      ['q', []],
      ['Q', []],
      ['q', []],
      ['cm', [2, 0, 0, 2, 0, 0]],
      ['Do', [{ name: 'Im2' }]],
      ['Q', []],
    ]);
  });

  it('survives stray delimiters and unterminated content', () => {
    expect(scan('} ) > q /A Do (never closed')).toEqual([
      ['q', []],
      ['Do', [{ name: 'A' }]],
    ]);
  });
});
