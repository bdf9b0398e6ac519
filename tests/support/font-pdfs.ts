/**
 * PDFs whose text is set in real embedded fonts, the other side of the font
 * limits (lib/pdf/reading-limits.ts): what vendors' lists hold still reads.
 * Subsets of five scripts as pdfkit embeds them (Type0 fonts over TrueType
 * and CFF programs, with their ToUnicode maps), a Chinese font embedded
 * whole, and a Type3 font of a few glyph procedures. The Noto faces are the
 * export report's (lib/exports/report-fonts-view.ts).
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { fontFile, REPORT_FONTS } from '../../lib/exports/report-fonts-view';
import { onePage } from './hostile-pdfs';
import { pdfkitBytes } from './pdf-drawing';

/** A line in each of the report's faces, in their order: Latin, Arabic, Hebrew, Chinese, Korean. */
export const MULTI_SCRIPT_LINES = ['Sofa, three-seat: $1,200', 'أريكة', 'ספה', '沙发 三人', '소파 3인용'];

/** One page of MULTI_SCRIPT_LINES, each in a subset of its Noto face (as pdfkit embeds fonts). */
export function multiScriptPdf(): Promise<Buffer> {
  return pdfkitBytes({ size: 'LETTER', margin: 0 }, (doc) => {
    for (const [i, line] of MULTI_SCRIPT_LINES.entries()) {
      doc
        .font(fontFile(REPORT_FONTS[i], 'regular'))
        .fontSize(12)
        .text(line, 40, 40 + 40 * i, { lineBreak: false });
    }
  });
}

/** The text set in the whole font. */
export const WHOLE_FONT_TEXT = '沙发椅子';

/** A ToUnicode map of two-byte codes 1, 2, ... to the characters of `text`. */
function toUnicode(text: string): Buffer {
  const hex = (n: number) => n.toString(16).padStart(4, '0').toUpperCase();
  const chars = [...text];
  return Buffer.from(
    [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '/CMapName /Lines def /CMapType 2 def',
      '1 begincodespacerange <0000> <FFFF> endcodespacerange',
      `${chars.length} beginbfchar`,
      ...chars.map((c, i) => `<${hex(i + 1)}> <${hex(c.charCodeAt(0))}>`),
      'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
    ].join('\n'),
    'latin1',
  );
}

/**
 * WHOLE_FONT_TEXT in a Chinese font embedded whole (Noto Sans SC, 8.4 MB of OpenType, as a producer that does
 * not subset embeds it), its codes mapped to the text by a ToUnicode map.
 */
export function wholeFontPdf(): Buffer {
  const codes = [...WHOLE_FONT_TEXT].map((_, i) => (i + 1).toString(16).padStart(4, '0')).join('');
  const name = 'NotoSansHans-Regular';
  return onePage('/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R', [
    { body: '<< >>', stream: Buffer.from(`BT /F1 14 Tf 40 700 Td <${codes}> Tj ET\n`, 'latin1') },
    {
      body: `<< /Type /Font /Subtype /Type0 /BaseFont /${name} /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>`,
    },
    {
      body: `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /${name} /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 8 0 R /DW 1000 >>`,
    },
    { body: '<< >>', stream: toUnicode(WHOLE_FONT_TEXT) },
    {
      body: `<< /Type /FontDescriptor /FontName /${name} /Flags 4 /FontBBox [-1000 -1000 3000 2000] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 733 /StemV 80 /FontFile3 9 0 R >>`,
    },
    {
      body: '<< /Subtype /OpenType /Filter /FlateDecode >>',
      stream: deflateSync(readFileSync(fontFile(REPORT_FONTS[3], 'regular'))),
    },
  ]);
}

/** The word set in the Type3 font. */
export const TYPE3_WORD = 'Sofa';

/** TYPE3_WORD in a Type3 font whose four glyph procedures each fill a box. */
export function type3Pdf(): Buffer {
  const glyph = Buffer.from('600 0 0 0 500 700 d1\n50 0 400 700 re f\n', 'latin1');
  return onePage('/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R', [
    { body: '<< >>', stream: Buffer.from(`BT /F1 24 Tf 72 700 Td (${TYPE3_WORD}) Tj ET\n`, 'latin1') },
    {
      body:
        '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 700] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /S 6 0 R /o 6 0 R /f 6 0 R /a 6 0 R >> /Encoding << /Type /Encoding /Differences [83 /S 97 /a 102 /f 111 /o] >> /FirstChar 83 /LastChar 111 /Widths [' +
        Array.from({ length: 111 - 83 + 1 }, () => 600).join(' ') +
        '] >>',
    },
    { body: '<< /Filter /FlateDecode >>', stream: deflateSync(glyph) },
  ]);
}
