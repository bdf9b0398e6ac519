/**
 * Contents lists encrypted by the standard security handler, written by
 * pdfkit: with owner restrictions only (no user password: any reader opens
 * them, printing and copying are restricted), or with a user password.
 *
 *  - rc4-40 (revision 2), rc4-128 (3), aes-128 (4), aes-256 (5): as pdfkit
 *    writes them;
 *  - aes-256-r6: pdfkit's revision 5 turned into revision 6 (the user
 *    entries recomputed with ISO 32000-2's hash, algorithm 2.B, for the same
 *    file key), which is what current Acrobat writes (no user password);
 *  - keyLengthInCryptFilter (aes-128): the encryption dictionary's own
 *    /Length left out, as some writers do, so the key length is the crypt
 *    filter's (/Length 16, in bytes);
 *  - objectStreamUpdate: an incremental update whose new document
 *    information (Producer) lies in an encrypted object stream, found
 *    through a cross-reference stream.
 *
 * Two pages of two photo cards each (label and caption under the photo);
 * photos are flat colours (photoColour) embedded as the JPEG bytes given.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { PdfBox } from '../../lib/pdf/layout';
import { flatJpeg, pdfkitBytes, photoColour } from './pdf-drawing';

export type Encryption = 'rc4-40' | 'rc4-128' | 'aes-128' | 'aes-256' | 'aes-256-r6';

const PDF_VERSION: Record<Encryption, PDFKit.PDFDocumentOptions['pdfVersion']> = {
  'rc4-40': '1.3',
  'rc4-128': '1.4',
  'aes-128': '1.7',
  'aes-256': '1.7ext3',
  'aes-256-r6': '1.7ext3',
};

interface RestrictedPhoto {
  page: number;
  box: PdfBox;
  label: string;
  jpeg: Buffer;
}

export interface RestrictedList {
  bytes: Buffer;
  photos: RestrictedPhoto[];
  producer: string;
}

const RESTRICTED_PRODUCER = 'Locked Reports 3.1';
const RESTRICTED_HEADER = 'Locked Restoration - Contents inventory';
/** The Producer of the document information the object-stream update brings. */
const UPDATED_PRODUCER = 'Locked Reports 3.2 (updated)';

const SLOTS: PdfBox[] = [
  { x: 40, y: 80, width: 240, height: 180 },
  { x: 320, y: 80, width: 240, height: 180 },
];

const hexEntry = (text: string, key: string): Buffer => {
  const match = new RegExp(`/${key} <([0-9a-fA-F]+)>`).exec(text);
  if (!match) throw new Error(`no /${key} in the encryption dictionary`);
  return Buffer.from(match[1], 'hex');
};

/** Revision 5's file key, opened with the empty user password (UE decrypted with SHA-256 of the key salt). */
function fileKeyR5(text: string): Buffer {
  const user = hexEntry(text, 'U');
  const decipher = createDecipheriv(
    'aes-256-cbc',
    createHash('sha256').update(user.subarray(40, 48)).digest(),
    Buffer.alloc(16),
  );
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(hexEntry(text, 'UE')), decipher.final()]);
}

/** ISO 32000-2 algorithm 2.B for the empty password and no user data. */
function hash2B(salt: Buffer): Buffer {
  let k = createHash('sha256').update(salt).digest();
  let e = Buffer.alloc(1);
  for (let i = 0; i < 64 || e[e.length - 1] > i - 32; i++) {
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    cipher.setAutoPadding(false);
    e = Buffer.concat([cipher.update(Buffer.concat(Array.from({ length: 64 }, () => k))), cipher.final()]);
    const mod = e.subarray(0, 16).reduce((sum, b) => sum + b, 0) % 3;
    k = createHash(['sha256', 'sha384', 'sha512'][mod]).update(e).digest();
  }
  return k.subarray(0, 32);
}

/** The revision 5 document as revision 6: U and UE for the same file key, in place (same lengths). */
function asRevision6(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const key = fileKeyR5(text);
  const validation = randomBytes(8);
  const keySalt = randomBytes(8);
  const user = Buffer.concat([hash2B(validation), validation, keySalt]);
  const cipher = createCipheriv('aes-256-cbc', hash2B(keySalt), Buffer.alloc(16));
  cipher.setAutoPadding(false);
  const userKey = Buffer.concat([cipher.update(key), cipher.final()]);
  const out = text
    .replace('/R 5\n', '/R 6\n')
    .replace(/\/U <[0-9a-fA-F]+>/, `/U <${user.toString('hex')}>`)
    .replace(/\/UE <[0-9a-fA-F]+>/, `/UE <${userKey.toString('hex')}>`);
  return Buffer.from(out, 'latin1');
}

/**
 * An incremental update: new document information in an object stream
 * (encrypted with the revision 5/6 file key) and a cross-reference stream
 * (never encrypted) pointing at both and back at the original table.
 */
function withObjectStreamUpdate(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const key = fileKeyR5(text);
  const trailer = text.slice(text.lastIndexOf('trailer'));
  const size = Number(/\/Size (\d+)/.exec(trailer)?.[1]);
  const root = /\/Root (\d+ \d+ R)/.exec(trailer)?.[1];
  const ids = /\/ID (\[[^\]]*\])/.exec(trailer)?.[1];
  const encrypt = /\/Encrypt (\d+ \d+ R)/.exec(trailer)?.[1];
  const previous = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))?.[1]);
  const [info, objectStream, xref] = [size, size + 1, size + 2];

  const header = `${info} 0 `;
  const plain = Buffer.from(`${header}<< /Producer (${UPDATED_PRODUCER}) >>`, 'latin1');
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final()]);

  const parts: Buffer[] = [bytes];
  let offset = bytes.length;
  const add = (chunk: Buffer) => {
    parts.push(chunk);
    offset += chunk.length;
  };
  const streamOffset = offset;
  add(
    Buffer.concat([
      Buffer.from(
        `${objectStream} 0 obj\n<< /Type /ObjStm /N 1 /First ${header.length} /Length ${sealed.length} >>\nstream\n`,
        'latin1',
      ),
      sealed,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ]),
  );
  const xrefOffset = offset;
  const row = (type: number, field2: number, field3: number) => {
    const r = Buffer.alloc(7);
    r.writeUInt8(type, 0);
    r.writeUInt32BE(field2, 1);
    r.writeUInt16BE(field3, 5);
    return r;
  };
  const rows = Buffer.concat([row(2, objectStream, 0), row(1, streamOffset, 0), row(1, xrefOffset, 0)]);
  add(
    Buffer.concat([
      Buffer.from(
        `${xref} 0 obj\n<< /Type /XRef /Size ${xref + 1} /W [1 4 2] /Index [${info} 3] /Root ${root} /Info ${info} 0 R ` +
          `/ID ${ids} /Encrypt ${encrypt} /Prev ${previous} /Length ${rows.length} >>\nstream\n`,
        'latin1',
      ),
      rows,
      Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`, 'latin1'),
    ]),
  );
  return Buffer.concat(parts);
}

/** The encryption dictionary's top-level /Length blanked out (with spaces: every offset stays true). */
function withoutTopLevelKeyLength(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const dictionary = text.indexOf('/Filter /Standard');
  const entry = text.indexOf('/Length 128', dictionary);
  if (dictionary < 0 || entry < 0 || entry > text.indexOf('/CF', dictionary))
    throw new Error('no top-level /Length to drop');
  const out = Buffer.from(bytes);
  out.fill(' ', entry, entry + '/Length 128'.length, 'latin1');
  return out;
}

/** A two-page card list encrypted as `encryption` says; no user password unless one is given. */
export async function restrictedList(options: {
  encryption: Encryption;
  userPassword?: string;
  objectStreamUpdate?: boolean;
  keyLengthInCryptFilter?: boolean;
  /** The header line on both pages (default RESTRICTED_HEADER). */
  header?: string;
}): Promise<RestrictedList> {
  const photos: RestrictedPhoto[] = [];
  for (let page = 1; page <= 2; page++) {
    for (const box of SLOTS) {
      const index = photos.length;
      photos.push({ page, box, label: `Item ${index + 1}`, jpeg: await flatJpeg(photoColour(index), 320, 240) });
    }
  }
  let bytes = await pdfkitBytes(
    {
      size: 'LETTER',
      pdfVersion: PDF_VERSION[options.encryption],
      ownerPassword: 'owner-only',
      ...(options.userPassword ? { userPassword: options.userPassword } : {}),
      permissions: { printing: 'lowResolution', copying: false, modifying: false },
      info: { Producer: RESTRICTED_PRODUCER },
    },
    (doc) => {
      for (let page = 1; page <= 2; page++) {
        if (page > 1) doc.addPage({ size: 'LETTER' });
        doc
          .font('Helvetica')
          .fontSize(9)
          .text(options.header ?? RESTRICTED_HEADER, 40, 30, { lineBreak: false });
        for (const photo of photos.filter((p) => p.page === page)) {
          const { x, y, width, height } = photo.box;
          doc.image(photo.jpeg, x, y, { width, height });
          doc
            .font('Helvetica-Bold')
            .fontSize(11)
            .text(photo.label, x, y + height + 4, { lineBreak: false });
          doc
            .font('Helvetica')
            .fontSize(9)
            .text(`Caption of ${photo.label}`, x, y + height + 18, { lineBreak: false });
        }
      }
    },
  );
  if (options.objectStreamUpdate) {
    if (!options.encryption.startsWith('aes-256')) throw new Error('the update is sealed with a revision 5 key');
    bytes = withObjectStreamUpdate(bytes);
  }
  if (options.keyLengthInCryptFilter) {
    if (options.encryption !== 'aes-128') throw new Error('only revision 4 has a crypt filter with its own length');
    bytes = withoutTopLevelKeyLength(bytes);
  }
  if (options.encryption === 'aes-256-r6') {
    if (options.userPassword) throw new Error('revision 6 is made here for the empty user password only');
    bytes = asRevision6(bytes);
  }
  return { bytes, photos, producer: options.objectStreamUpdate ? UPDATED_PRODUCER : RESTRICTED_PRODUCER };
}
