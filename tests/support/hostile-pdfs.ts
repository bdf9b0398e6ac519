/**
 * PDFs made to exhaust a reader, for the import's reading limits
 * (lib/pdf/reading-limits.ts): a page whose few KB of content inflate to
 * more than a page may hold, an image declared far larger than any photo, an
 * image whose samples inflate past its declared size, fonts whose program,
 * character maps or glyph procedures inflate far past any real font (pdf.js
 * decodes them all for the page's text), and object graphs nested past any
 * reader's stack or looping back on themselves. Written object by object
 * with a correct cross-reference table, so each reader meets exactly the
 * structure described.
 */
import { deflateSync } from 'node:zlib';

/** One indirect object: its dictionary or value text, and a stream's bytes when it has one. */
export interface RawObject {
  body: string;
  stream?: Buffer;
}

/** A PDF of `objects` (numbered from 1; object 1 is the catalog) with a valid xref table. */
function rawPdf(objects: RawObject[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    const head = object.stream
      ? `${i + 1} 0 obj\n${object.body.replace(/>>\s*$/, ` /Length ${object.stream.length} >>`)}\nstream\n`
      : `${i + 1} 0 obj\n${object.body}\nendobj\n`;
    const chunk = object.stream
      ? Buffer.concat([Buffer.from(head, 'latin1'), object.stream, Buffer.from('\nendstream\nendobj\n', 'latin1')])
      : Buffer.from(head, 'latin1');
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
    '',
  ].join('\n');
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

/** A one-page document around `page` (object 3's dictionary entries) and any further objects from 4 on. */
export function onePage(pageEntries: string, more: RawObject[]): Buffer {
  return rawPdf([
    { body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${pageEntries} >>` },
    ...more,
  ]);
}

const text = (s: string) => Buffer.from(s, 'latin1');

/** Deflated zeros: `bytes` of them in a stream of about a thousandth the size. */
function deflatedZeros(bytes: number): Buffer {
  return deflateSync(Buffer.alloc(bytes), { level: 9 });
}

/** A page showing text in font /F1 (object 5, then `fontObjects` from 6 on), so pdf.js loads that font for the text. */
function textInFont(shown: string, fontObjects: RawObject[]): Buffer {
  return onePage('/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R', [
    { body: '<< >>', stream: text(`BT /F1 12 Tf 72 700 Td ${shown} Tj ET\n`) },
    ...fontObjects,
  ]);
}

/** A font descriptor (its font file, if any, in `entries`). */
const descriptor = (entries: string) =>
  `<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 ${entries} >>`;

/** A CIDFont of Adobe-Identity glyphs; `entries` may add its CIDToGIDMap. */
const cidFont = (entries: string) =>
  `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Bomb /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> ${entries} >>`;

/** A Type3 font drawing "a" with the glyph procedure `a`; `more` lists further procedures. */
const type3Font = (glyphA: string, more = '') =>
  `<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a ${glyphA} ${more} >> /Encoding << /Type /Encoding /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] >>`;

/** Glyph procedures in the glyph flood: far more than the 256 codes a Type3 font can draw. */
export const FLOOD_GLYPHS = 5000;

export interface HostilePdfs {
  /** A page whose content stream inflates to 48 MiB of white space (the limit is 32 MiB per page). */
  contentBomb: Buffer;
  /** An image declared 100,000 × 100,000 pixels (its JPEG bytes are a few hundred). */
  hugeImage: Buffer;
  /** A 1000 × 1000 RGB image (3 MB of samples) whose stream inflates to 256 MiB of zeros. */
  imageBomb: Buffer;
  /** A Type1 font whose program (FontFile3, CFF) inflates to 256 MiB of zeros. */
  fontProgramBomb: Buffer;
  /** The same font drawn from inside a form on the page (the font in the form's own resources). */
  fontBombInForm: Buffer;
  /** The same font selected by a graphics state (gs) rather than Tf. */
  fontBombInGraphicsState: Buffer;
  /** Helvetica with a ToUnicode CMap that inflates to 256 MiB of zeros (white space to a CMap parser). */
  toUnicodeBomb: Buffer;
  /** A Type0 font whose embedded encoding CMap inflates to 256 MiB. */
  encodingCMapBomb: Buffer;
  /** A Type0 font whose CIDFont's CIDToGIDMap inflates to 256 MiB. */
  cidToGidBomb: Buffer;
  /** A Type3 font whose one glyph procedure inflates to 256 MiB (white space to a content parser). */
  type3GlyphBomb: Buffer;
  /** A Type3 font with FLOOD_GLYPHS glyph procedures, each the same stream inflating to 1 MiB. */
  type3GlyphFlood: Buffer;
  /** A page dictionary holding an array nested 200,000 deep. */
  deeplyNested: Buffer;
  /** A page tree whose root lists itself among its kids. */
  cyclicPageTree: Buffer;
}

export function hostilePdfs(tinyJpeg: Buffer): HostilePdfs {
  const drawImage = text('q 300 0 0 300 100 100 cm /Im0 Do Q\n');
  // One bomb for every stream that inflates to 256 MiB: deflating it takes over a second.
  const bomb = deflatedZeros(256 * 1024 ** 2);
  const flate = '<< /Filter /FlateDecode >>';
  const type1WithProgram = (program: string) =>
    `<< /Type /Font /Subtype /Type1 /BaseFont /Bomb /FirstChar 32 /LastChar 126 /Widths [${Array(95).fill(500).join(' ')}] /FontDescriptor ${program} >>`;
  return {
    contentBomb: onePage('/Contents 4 0 R', [
      { body: '<< /Filter /FlateDecode >>', stream: deflateSync(Buffer.alloc(48 * 1024 ** 2, 0x20), { level: 9 }) },
    ]),
    hugeImage: onePage('/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: drawImage },
      {
        body: '<< /Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode >>',
        stream: tinyJpeg,
      },
    ]),
    imageBomb: onePage('/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: drawImage },
      {
        body: '<< /Type /XObject /Subtype /Image /Width 1000 /Height 1000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode >>',
        stream: bomb,
      },
    ]),
    fontProgramBomb: textInFont('(Hello)', [
      { body: type1WithProgram('6 0 R') },
      { body: descriptor('/FontFile3 7 0 R') },
      { body: '<< /Subtype /Type1C /Filter /FlateDecode >>', stream: bomb },
    ]),
    fontBombInForm: onePage('/Resources << /XObject << /Fm0 5 0 R >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: text('q /Fm0 Do Q\n') },
      {
        body: '<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 6 0 R >> >> >>',
        stream: text('BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n'),
      },
      { body: type1WithProgram('7 0 R') },
      { body: descriptor('/FontFile3 8 0 R') },
      { body: '<< /Subtype /Type1C /Filter /FlateDecode >>', stream: bomb },
    ]),
    fontBombInGraphicsState: onePage('/Resources << /ExtGState << /GS0 << /Font [5 0 R 12] >> >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: text('BT /GS0 gs 72 700 Td (Hello) Tj ET\n') },
      { body: type1WithProgram('6 0 R') },
      { body: descriptor('/FontFile3 7 0 R') },
      { body: '<< /Subtype /Type1C /Filter /FlateDecode >>', stream: bomb },
    ]),
    toUnicodeBomb: textInFont('(Hello)', [
      { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>' },
      { body: flate, stream: bomb },
    ]),
    encodingCMapBomb: textInFont('<0041>', [
      { body: '<< /Type /Font /Subtype /Type0 /BaseFont /Bomb /Encoding 6 0 R /DescendantFonts [7 0 R] >>' },
      {
        body: '<< /Type /CMap /CMapName /Bomb /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /Filter /FlateDecode >>',
        stream: bomb,
      },
      { body: cidFont('/FontDescriptor 8 0 R') },
      { body: descriptor('') },
    ]),
    cidToGidBomb: textInFont('<0041>', [
      { body: '<< /Type /Font /Subtype /Type0 /BaseFont /Bomb /Encoding /Identity-H /DescendantFonts [6 0 R] >>' },
      { body: cidFont('/FontDescriptor 7 0 R /CIDToGIDMap 8 0 R') },
      { body: descriptor('') },
      { body: flate, stream: bomb },
    ]),
    type3GlyphBomb: textInFont('(a)', [{ body: type3Font('6 0 R') }, { body: flate, stream: bomb }]),
    type3GlyphFlood: textInFont('(a)', [
      {
        body: type3Font('6 0 R', Array.from({ length: FLOOD_GLYPHS - 1 }, (_, i) => `/g${i} 6 0 R`).join(' ')),
      },
      { body: flate, stream: deflatedZeros(1024 ** 2) },
    ]),
    deeplyNested: onePage(`/Nest ${'['.repeat(200_000)}${']'.repeat(200_000)}`, []),
    cyclicPageTree: rawPdf([
      { body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { body: '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>' },
      { body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>' },
    ]),
  };
}
