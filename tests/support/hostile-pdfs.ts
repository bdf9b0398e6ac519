/**
 * PDFs made to exhaust a reader, for the import's reading limits
 * (lib/pdf/reading-limits.ts): a page whose few KB of content inflate to
 * more than a page may hold, an image declared far larger than any photo, an
 * image whose samples inflate past its declared size, and object graphs
 * nested past any reader's stack or looping back on themselves. Written
 * object by object with a correct cross-reference table, so each reader
 * meets exactly the structure described.
 */
import { deflateSync } from 'node:zlib';

/** One indirect object: its dictionary or value text, and a stream's bytes when it has one. */
interface RawObject {
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
function onePage(pageEntries: string, more: RawObject[]): Buffer {
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

export interface HostilePdfs {
  /** A page whose content stream inflates to 48 MiB of white space (the limit is 32 MiB per page). */
  contentBomb: Buffer;
  /** An image declared 100,000 × 100,000 pixels (its JPEG bytes are a few hundred). */
  hugeImage: Buffer;
  /** A 1000 × 1000 RGB image (3 MB of samples) whose stream inflates to 256 MiB of zeros. */
  imageBomb: Buffer;
  /** A page dictionary holding an array nested 200,000 deep. */
  deeplyNested: Buffer;
  /** A page tree whose root lists itself among its kids. */
  cyclicPageTree: Buffer;
}

export function hostilePdfs(tinyJpeg: Buffer): HostilePdfs {
  const drawImage = text('q 300 0 0 300 100 100 cm /Im0 Do Q\n');
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
        stream: deflatedZeros(256 * 1024 ** 2),
      },
    ]),
    deeplyNested: onePage(`/Nest ${'['.repeat(200_000)}${']'.repeat(200_000)}`, []),
    cyclicPageTree: rawPdf([
      { body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { body: '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>' },
      { body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>' },
    ]),
  };
}
