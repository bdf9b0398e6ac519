/**
 * Recognising images without decoding them, and client-supplied capture dates.
 * Free of native modules, so the upload handlers can use it within their
 * bundle budget (lib/media/images.ts, which decodes with sharp, is for workers).
 *
 * - sniffImage(head): identifies an image from its first SNIFF_HEAD_BYTES bytes
 *   (magic bytes only). The upload handlers use it to "check the header to
 *   confirm an image"; null means the file goes to skipped_photos.
 * - normalizeCapturedAt(value): dates to the spec's 'YYYY-MM-DDTHH:MM:SS'.
 */
/** How many leading bytes sniffImage looks at; fetch this range (bytes=0-63) to sniff remotely. */
export const SNIFF_HEAD_BYTES = 64;

/**
 * 'heic' is the whole ISO-BMFF HEIF family: HEIC (HEVC), generic HEIF (mif1/msf1) and AVIF
 * (AV1). AVIF counts as an image; sharp decodes it natively.
 */
export type ImageType = 'jpeg' | 'png' | 'heic' | 'webp' | 'gif' | 'tiff' | 'bmp';

/** HEVC-coded HEIF brands. */
const HEVC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
/** AV1-coded HEIF brands (sharp decodes these). */
const AV1_BRANDS = new Set(['avif', 'avis']);
/** Codec-neutral HEIF image / image-sequence brands. */
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'mif2']);
/** Video / audio ISO-BMFF brands: a file declaring one of these is never taken for a photo. */
const VIDEO_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'iso7',
  'iso8',
  'iso9',
  'mp41',
  'mp42',
  'mp71',
  'avc1',
  'hvc1',
  'hev1',
  'av01',
  'dash',
  'msnv',
  'qt  ',
  'M4V ',
  'M4VH',
  'M4VP',
  'M4A ',
  'M4B ',
  'M4P ',
  'f4v ',
  'f4p ',
  'f4a ',
  '3gp4',
  '3gp5',
  '3gp6',
  '3gp7',
  '3gp8',
  '3gp9',
  '3g2a',
  'mjp2',
  'jp2 ',
  'crx ',
  'CAEP',
]);

/**
 * BMP is recognised only to be refused by name: sharp cannot read it and untrusted binary
 * formats are not decoded by hand here.
 */
export const BMP_NOT_SUPPORTED = 'BMP images are not supported; save the photo as JPEG or PNG and upload it again.';

const BMP_DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

function startsWith(head: Buffer, bytes: number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

export function ascii(head: Buffer, start: number, end: number): string {
  return head.toString('latin1', start, end);
}

interface FtypInfo {
  major: string;
  brands: string[];
}

/** Reads the ftyp box at offset 0 (as far as the head goes), or null when there is none. */
function readFtyp(head: Buffer): FtypInfo | null {
  if (head.length < 12 || ascii(head, 4, 8) !== 'ftyp') return null;
  const size = head.readUInt32BE(0);
  if (size < 16 || size % 4 !== 0) return null;
  const major = ascii(head, 8, 12);
  const brands = [major];
  const end = Math.min(size, head.length);
  for (let p = 16; p + 4 <= end; p += 4) brands.push(ascii(head, p, p + 4));
  return { major, brands };
}

function isHeifImage(ftyp: FtypInfo): boolean {
  const isImageBrand = (b: string) => HEVC_BRANDS.has(b) || AV1_BRANDS.has(b) || HEIF_BRANDS.has(b);
  if (isImageBrand(ftyp.major)) return true;
  // A non-image major brand counts only with an image compatible brand and no video brand.
  return !ftyp.brands.some((b) => VIDEO_BRANDS.has(b)) && ftyp.brands.some(isImageBrand);
}

/**
 * Identifies an image from the magic bytes of its first bytes (pass at least SNIFF_HEAD_BYTES
 * when the file is that long). Returns null for anything else: text, SVG, PDF, video (ISO-BMFF
 * video brands such as isom/mp42/qt), empty input and headers too short to tell.
 */
export function sniffImage(head: Buffer | Uint8Array): ImageType | null {
  const buf = Buffer.isBuffer(head) ? head : Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  // SOI then the first marker's 0xFF and code (APPn, DQT, SOFn, DHT, COM...): 4 bytes.
  if (startsWith(buf, [0xff, 0xd8, 0xff]) && buf.length >= 4 && buf[3] >= 0xc0 && buf[3] <= 0xfe) return 'jpeg';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (buf.length >= 6 && (ascii(buf, 0, 6) === 'GIF87a' || ascii(buf, 0, 6) === 'GIF89a')) return 'gif';
  if (
    buf.length >= 16 &&
    ascii(buf, 0, 4) === 'RIFF' &&
    ascii(buf, 8, 12) === 'WEBP' &&
    /^VP8[ LX]$/.test(ascii(buf, 12, 16))
  ) {
    return 'webp';
  }
  // Classic TIFF (II*\0 / MM\0*) and BigTIFF (II+\0 / MM\0+), with a plausible first-IFD offset.
  if (startsWith(buf, [0x49, 0x49, 0x2a, 0x00]) || startsWith(buf, [0x4d, 0x4d, 0x00, 0x2a])) {
    if (buf.length < 8) return null;
    const ifd = buf[0] === 0x49 ? buf.readUInt32LE(4) : buf.readUInt32BE(4);
    return ifd >= 8 ? 'tiff' : null;
  }
  if (startsWith(buf, [0x49, 0x49, 0x2b, 0x00, 0x08, 0x00]) || startsWith(buf, [0x4d, 0x4d, 0x00, 0x2b, 0x00, 0x08])) {
    return 'tiff';
  }
  if (buf.length >= 26 && buf[0] === 0x42 && buf[1] === 0x4d && BMP_DIB_HEADER_SIZES.has(buf.readUInt32LE(14))) {
    const planes = buf.readUInt32LE(14) === 12 ? buf.readUInt16LE(22) : buf.readUInt16LE(26);
    return planes === 1 ? 'bmp' : null;
  }
  const ftyp = readFtyp(buf);
  if (ftyp && isHeifImage(ftyp)) return 'heic';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Capture dates
// ---------------------------------------------------------------------------------------------

const MIN_YEAR = 1900;
const MAX_YEAR = 2100;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function formatWallClock(y: number, mo: number, d: number, h: number, mi: number, s: number): string | null {
  if (y < MIN_YEAR || y > MAX_YEAR || mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return null;
  const check = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}`;
}

function fromDate(date: Date): string | null {
  if (Number.isNaN(date.getTime())) return null;
  return formatWallClock(
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  );
}

function fromEpoch(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  // 1e11 ms is March 1973; 1e11 s is past MAX_YEAR, so the magnitude tells the unit.
  return fromDate(new Date(Math.abs(n) >= 1e11 ? n : n * 1000));
}

const WALL_CLOCK_PATTERN =
  /^(\d{4})[-:](\d{2})[-:](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Normalises a capture date to 'YYYY-MM-DDTHH:MM:SS' (no zone), or null when absent/invalid.
 *
 * Accepted:
 * - ISO 8601 'YYYY-MM-DDTHH:MM[:SS[.fff]]' with 'T' or a space, optional 'Z' or '+HH:MM' /
 *   '+HHMM' / '+HH' offset. The offset is dropped and the written wall-clock time kept
 *   ('2024-05-01T10:20:30+02:00' -> '2024-05-01T10:20:30'), matching EXIF, which records the
 *   local time the photo was taken.
 * - EXIF 'YYYY:MM:DD HH:MM:SS' (also with fraction/offset as above).
 * - a date alone, 'YYYY-MM-DD' or 'YYYY:MM:DD' -> midnight.
 * - epoch time as a number or an all-digit string of at least 9 digits: milliseconds when
 *   >= 1e11, otherwise seconds; rendered in UTC (a browser's File.lastModified).
 * - a Date, rendered in UTC (exif-reader builds its Dates with Date.UTC from the wall clock).
 * Rejected (null): empty strings, '0000:00:00 00:00:00' and other impossible dates (Feb 30,
 * month 13, hour 24...), years outside 1900-2100, anything else.
 */
export function normalizeCapturedAt(value: string | number | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return fromDate(value);
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!text) return null;
  if (/^\d{9,}$/.test(text)) return fromEpoch(Number(text));
  const m = WALL_CLOCK_PATTERN.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m;
  return formatWallClock(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s));
}
