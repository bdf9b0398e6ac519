/**
 * Photo decoding and normalisation (SPEC "Photo pipeline (live path)" and "Uploads",
 * DESIGN "Images").
 *
 * - sniffImage(head): identifies an image from its first SNIFF_HEAD_BYTES bytes (magic bytes
 *   only, no decoding). The upload handlers use it to "check the header to confirm an image"
 *   before replying; a null answer means the file goes to skipped_photos.
 * - normalizePhoto(bytes): the background re-encode. Any supported input becomes an upright,
 *   8-bit sRGB, 3-channel baseline JPEG without metadata, plus the EXIF capture date.
 *   Throws UnreadableImageError for anything it cannot decode (caller: skipped_photos).
 * - normalizeCapturedAt(value): client-supplied dates (captured_ats) to the spec's form.
 * - resizeForModel / thumbnail: downscale a normalised JPEG, never upscaling.
 *
 * Decoders. sharp (prebuilt libvips) decodes JPEG, PNG, WebP, GIF, TIFF and AVIF but has no
 * HEVC decoder, so HEVC-coded HEIC/HEIF is decoded by heic-decode (libheif compiled to WASM;
 * loaded lazily, it is ~2 MB and synchronous: it blocks the event loop while it decodes) and
 * the RGBA pixels are handed to sharp. sharp cannot read BMP at all, so a small decoder for
 * uncompressed BMP (1/4/8-bit palette, 16/24/32-bit, BI_BITFIELDS) lives here.
 *
 * Orientation. JPEG/PNG/WebP/TIFF: the EXIF Orientation tag is applied (sharp .rotate()).
 * HEIC: libheif applies the container's irot/imir transforms while decoding, and the EXIF
 * Orientation inside a HEIC is informational (iPhones write both) so it is NOT applied again.
 *
 * Capture date. EXIF DateTimeOriginal, then DateTimeDigitized (exiftool's CreateDate), then
 * DateTime, read with exif-reader from sharp's metadata().exif. That works for HEIC too:
 * sharp's libheif parses the container (and its Exif item) even though it cannot decode HEVC.
 * EXIF dates are local wall-clock time without a zone and are returned as such.
 *
 * Memory. The decompression-bomb guard (MAX_INPUT_PIXELS) is checked from the header before
 * any pixels are decoded. Peak memory is roughly 3-4 bytes per pixel for sharp inputs and
 * roughly 8-10 bytes per pixel for HEIC (the WASM heap plus the JS RGBA copy).
 */
import exifReader from 'exif-reader';
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';

/** How many leading bytes sniffImage looks at; fetch this range (bytes=0-63) to sniff remotely. */
export const SNIFF_HEAD_BYTES = 64;

/**
 * Largest decoded image accepted, in pixels (width x height), checked from the header before
 * decoding. 100 MP covers 108 MP phone sensors; anything larger is refused as unreadable.
 */
export const MAX_INPUT_PIXELS = 100_000_000;

export const DEFAULT_JPEG_QUALITY = 90;
export const DEFAULT_THUMBNAIL_LONG_EDGE = 640;

/**
 * 'heic' is the whole ISO-BMFF HEIF family: HEIC (HEVC), generic HEIF (mif1/msf1) and AVIF
 * (AV1). AVIF counts as an image; sharp decodes it natively.
 */
export type ImageType = 'jpeg' | 'png' | 'heic' | 'webp' | 'gif' | 'tiff' | 'bmp';

/** A file that is not an image we can decode, is corrupt, truncated, or too large. */
export class UnreadableImageError extends Error {
  override readonly name = 'UnreadableImageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Sniffing
// ---------------------------------------------------------------------------------------------

/** HEVC-coded HEIF brands (heic-decode's domain). */
const HEVC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
/** AV1-coded HEIF brands (sharp decodes these). */
const AV1_BRANDS = new Set(['avif', 'avis']);
/** Codec-neutral HEIF image / image-sequence brands. */
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'mif2']);
/** Video / audio ISO-BMFF brands: a file declaring one of these is never taken for a photo. */
const VIDEO_BRANDS = new Set([
  'isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71',
  'avc1', 'hvc1', 'hev1', 'av01', 'dash', 'msnv', 'qt  ', 'M4V ', 'M4VH', 'M4VP', 'M4A ', 'M4B ',
  'M4P ', 'f4v ', 'f4p ', 'f4a ', '3gp4', '3gp5', '3gp6', '3gp7', '3gp8', '3gp9', '3g2a', 'mjp2', 'jp2 ',
  'crx ', 'CAEP',
]);

const BMP_DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

function startsWith(head: Buffer, bytes: number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

function ascii(head: Buffer, start: number, end: number): string {
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

function heifFamily(ftyp: FtypInfo): 'hevc' | 'av1' | 'heif' | null {
  const { major, brands } = ftyp;
  const isImageBrand = (b: string) => HEVC_BRANDS.has(b) || AV1_BRANDS.has(b) || HEIF_BRANDS.has(b);
  if (!isImageBrand(major)) {
    // A non-image major brand is accepted only with an image compatible brand and no video brand.
    if (VIDEO_BRANDS.has(major) || brands.some((b) => VIDEO_BRANDS.has(b))) return null;
    if (!brands.some(isImageBrand)) return null;
  }
  if (HEVC_BRANDS.has(major) || (!AV1_BRANDS.has(major) && brands.some((b) => HEVC_BRANDS.has(b)))) return 'hevc';
  if (brands.some((b) => AV1_BRANDS.has(b))) return 'av1';
  return 'heif';
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
  if (buf.length >= 16 && ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP' && /^VP8[ LX]$/.test(ascii(buf, 12, 16))) {
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
  if (ftyp && heifFamily(ftyp)) return 'heic';
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

/** EXIF DateTimeOriginal, then DateTimeDigitized (CreateDate), then DateTime. */
function capturedAtFromExif(exif: Buffer | undefined): string | null {
  if (!exif || exif.length < 8) return null;
  let tags: ReturnType<typeof exifReader>;
  try {
    tags = exifReader(exif);
  } catch {
    return null;
  }
  const candidates: unknown[] = [tags.Photo?.DateTimeOriginal, tags.Photo?.DateTimeDigitized, tags.Image?.DateTime];
  for (const candidate of candidates) {
    const normalized =
      candidate instanceof Date || typeof candidate === 'string' ? normalizeCapturedAt(candidate) : null;
    if (normalized) return normalized;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Decoding helpers
// ---------------------------------------------------------------------------------------------

function shortReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split('\n').find((l) => l.trim()) ?? 'decode failed';
  return line.trim().slice(0, 160);
}

function unreadable(what: string, err: unknown): UnreadableImageError {
  if (err instanceof UnreadableImageError) return err;
  return new UnreadableImageError(`${what}: ${shortReason(err)}`, { cause: err });
}

function checkPixels(width: number | undefined, height: number | undefined, limit: number): void {
  if (!width || !height || width < 1 || height < 1) throw new UnreadableImageError('image has no dimensions');
  if (width * height > limit) {
    throw new UnreadableImageError(`image too large: ${width}x${height} exceeds ${limit} pixels`);
  }
}

interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** sharp input options for untrusted bytes. */
function inputOptions(limit: number): SharpOptions {
  // failOn 'error': refuse truncated or broken pixel data, tolerate mere warnings.
  return { limitInputPixels: limit, failOn: 'error', sequentialRead: true };
}

interface HeicImage {
  width: number;
  height: number;
  decode(): Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
}
interface HeicDecode {
  (opts: { buffer: Buffer | Uint8Array }): Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
  all(opts: { buffer: Buffer | Uint8Array }): Promise<HeicImage[] & { dispose(): void }>;
}

let heicDecoder: HeicDecode | undefined;
function heicDecode(): HeicDecode {
  // Loaded on first use: a 2 MB WASM bundle that photo-free cold starts should not pay for.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  heicDecoder ??= require('heic-decode') as HeicDecode;
  return heicDecoder;
}

/** heic-decode only accepts a few major brands; relabel other HEVC HEIF files (libheif does not care). */
const HEIC_DECODE_MAJOR_BRANDS = new Set(['mif1', 'msf1', 'heic', 'heix', 'hevc', 'hevx']);

async function decodeHeic(input: Buffer, limit: number): Promise<RawImage> {
  let buffer = input;
  if (!HEIC_DECODE_MAJOR_BRANDS.has(ascii(input, 8, 12))) {
    buffer = Buffer.from(input);
    buffer.write('mif1', 8, 'latin1');
  }
  let images: Awaited<ReturnType<HeicDecode['all']>>;
  try {
    images = await heicDecode().all({ buffer });
  } catch (err) {
    throw unreadable('cannot decode heic', err);
  }
  try {
    const first = images[0];
    if (!first) throw new UnreadableImageError('cannot decode heic: no image in the file');
    checkPixels(first.width, first.height, limit);
    const { data, width, height } = await first.decode();
    return { data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), width, height, channels: 4 };
  } catch (err) {
    throw unreadable('cannot decode heic', err);
  } finally {
    images.dispose();
  }
}

/**
 * Uncompressed BMP (BI_RGB 1/4/8/16/24/32-bit, BI_BITFIELDS 16/32-bit, OS/2 core header) to
 * RGBA. RLE and embedded JPEG/PNG BMPs are refused.
 */
function decodeBmp(buf: Buffer, limit: number): RawImage {
  const fail = (why: string) => new UnreadableImageError(`cannot decode bmp: ${why}`);
  if (buf.length < 26) throw fail('truncated header');
  const dataOffset = buf.readUInt32LE(10);
  const dib = buf.readUInt32LE(14);
  const core = dib === 12;
  if (buf.length < 14 + dib) throw fail('truncated header');
  const width = core ? buf.readUInt16LE(18) : buf.readInt32LE(18);
  const rawHeight = core ? buf.readInt16LE(20) : buf.readInt32LE(22);
  const bpp = core ? buf.readUInt16LE(24) : buf.readUInt16LE(28);
  const compression = core ? 0 : buf.readUInt32LE(30);
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height <= 0) throw fail('bad dimensions');
  checkPixels(width, height, limit);

  let masks: [number, number, number, number] | null = null;
  if (compression === 3 || compression === 6) {
    if (bpp !== 16 && bpp !== 32) throw fail(`bitfields with ${bpp} bits`);
    if (buf.length < 14 + 40 + 16) throw fail('truncated header');
    const alphaMask = dib >= 56 || compression === 6 ? buf.readUInt32LE(14 + 40 + 12) : 0;
    masks = [buf.readUInt32LE(54), buf.readUInt32LE(58), buf.readUInt32LE(62), alphaMask];
  } else if (compression === 0) {
    if (bpp === 16) masks = [0x7c00, 0x03e0, 0x001f, 0];
  } else {
    throw fail(`compression ${compression} is not supported`);
  }
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw fail(`${bpp} bits per pixel`);

  let palette: number[][] = [];
  if (bpp <= 8) {
    const colours = (!core && buf.readUInt32LE(46)) || 1 << bpp;
    const entry = core ? 3 : 4;
    const start = 14 + dib;
    if (start + colours * entry > buf.length) throw fail('truncated palette');
    palette = Array.from({ length: colours }, (_, i) => {
      const p = start + i * entry;
      return [buf[p + 2], buf[p + 1], buf[p]];
    });
  }

  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  if (dataOffset + stride * height > buf.length) throw fail('truncated pixel data');

  const channel = (value: number, mask: number) => {
    if (!mask) return 255;
    let shift = 0;
    while (!((mask >>> shift) & 1)) shift++;
    const max = mask >>> shift;
    return Math.round((((value & mask) >>> shift) * 255) / max);
  };

  const out = Buffer.alloc(width * height * 4);
  let anyAlpha = false;
  for (let row = 0; row < height; row++) {
    const src = dataOffset + (topDown ? row : height - 1 - row) * stride;
    for (let x = 0; x < width; x++) {
      const o = (row * width + x) * 4;
      let r: number;
      let g: number;
      let b: number;
      let a = 255;
      if (bpp <= 8) {
        const bitPos = x * bpp;
        const byte = buf[src + (bitPos >> 3)];
        const index = (byte >> (8 - bpp - (bitPos & 7))) & ((1 << bpp) - 1);
        [r, g, b] = palette[index] ?? [0, 0, 0];
      } else if (bpp === 24) {
        b = buf[src + x * 3];
        g = buf[src + x * 3 + 1];
        r = buf[src + x * 3 + 2];
      } else if (bpp === 32 && !masks) {
        b = buf[src + x * 4];
        g = buf[src + x * 4 + 1];
        r = buf[src + x * 4 + 2];
      } else {
        const value = bpp === 16 ? buf.readUInt16LE(src + x * 2) : buf.readUInt32LE(src + x * 4);
        const m = masks!;
        r = channel(value, m[0]);
        g = channel(value, m[1]);
        b = channel(value, m[2]);
        if (m[3]) {
          a = channel(value, m[3]);
          if (a) anyAlpha = true;
        }
      }
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = a;
    }
  }
  // A declared alpha mask whose values are all zero means "no alpha" in practice.
  if (masks?.[3] && !anyAlpha) for (let i = 3; i < out.length; i += 4) out[i] = 255;
  return { data: out, width, height, channels: 4 };
}

// ---------------------------------------------------------------------------------------------
// normalizePhoto
// ---------------------------------------------------------------------------------------------

export interface NormalizePhotoOptions {
  /** JPEG quality 1-100 (default 90). */
  quality?: number;
  /** Downscale (never upscale) so the long edge is at most this many pixels. Default: keep size. */
  maxLongEdge?: number;
  /** Decompression-bomb guard; default MAX_INPUT_PIXELS. */
  maxInputPixels?: number;
}

export interface NormalizedPhoto {
  /** Baseline JPEG, 8-bit sRGB, 3 channels, upright, no metadata. */
  jpeg: Buffer;
  width: number;
  height: number;
  /** 'YYYY-MM-DDTHH:MM:SS' from EXIF, or null. */
  capturedAt: string | null;
  sourceType: ImageType;
}

function positiveInt(name: string, value: number | undefined, fallback: number | null, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined && fallback !== null) return fallback;
  if (value === undefined || !Number.isInteger(value) || value < 1 || value > max) throw new RangeError(`${name} must be an integer from 1 to ${max}`);
  return value;
}

/**
 * Decodes any supported image and re-encodes it as an upright 8-bit sRGB RGB JPEG: EXIF
 * orientation applied, CMYK / grayscale / 16-bit converted, alpha flattened onto white,
 * metadata stripped. Throws UnreadableImageError when the bytes are not a decodable image,
 * are corrupt or truncated, or exceed the pixel limit. Invalid options throw RangeError.
 */
export async function normalizePhoto(input: Buffer, options: NormalizePhotoOptions = {}): Promise<NormalizedPhoto> {
  const quality = positiveInt('quality', options.quality, DEFAULT_JPEG_QUALITY, 100);
  const maxLongEdge = options.maxLongEdge === undefined ? undefined : positiveInt('maxLongEdge', options.maxLongEdge, null);
  const limit = positiveInt('maxInputPixels', options.maxInputPixels, MAX_INPUT_PIXELS);

  const sourceType = sniffImage(input);
  if (!sourceType) throw new UnreadableImageError('not a supported image (unrecognised file header)');

  let pipeline: Sharp;
  let capturedAt: string | null = null;
  if (sourceType === 'bmp') {
    const raw = decodeBmp(input, limit);
    pipeline = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels }, limitInputPixels: limit });
  } else {
    const source = sharp(input, inputOptions(limit));
    let meta: Metadata;
    try {
      // Header only, so no pixel limit here: checkPixels below gives the clearer message.
      meta = await sharp(input, { ...inputOptions(limit), limitInputPixels: false }).metadata();
    } catch (err) {
      throw unreadable(`cannot read ${sourceType}`, err);
    }
    checkPixels(meta.width, meta.height, limit);
    capturedAt = capturedAtFromExif(meta.exif);
    if (sourceType === 'heic' && meta.compression !== 'av1') {
      // HEVC: sharp can read the container but not the pixels. libheif applies irot/imir;
      // the raw pixels carry no EXIF, so the rotate() below is a no-op for them.
      const raw = await decodeHeic(input, limit);
      pipeline = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels }, limitInputPixels: limit });
    } else {
      pipeline = source;
    }
  }

  pipeline = pipeline.rotate();
  if (maxLongEdge) pipeline = pipeline.resize({ width: maxLongEdge, height: maxLongEdge, fit: 'inside', withoutEnlargement: true });
  pipeline = pipeline
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .jpeg({ quality, mozjpeg: false, progressive: false, chromaSubsampling: '4:2:0' });

  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { jpeg: data, width: info.width, height: info.height, capturedAt, sourceType };
  } catch (err) {
    throw unreadable(`cannot decode ${sourceType}`, err);
  }
}

// ---------------------------------------------------------------------------------------------
// Resizing
// ---------------------------------------------------------------------------------------------

export interface ResizedJpeg {
  jpeg: Buffer;
  width: number;
  height: number;
}

async function orientedSize(jpeg: Buffer): Promise<{ width: number; height: number; upright: boolean; isJpeg: boolean }> {
  let meta: Metadata;
  try {
    meta = await sharp(jpeg, inputOptions(MAX_INPUT_PIXELS)).metadata();
  } catch (err) {
    throw unreadable('cannot read image', err);
  }
  checkPixels(meta.width, meta.height, MAX_INPUT_PIXELS);
  const { width, height } = meta.autoOrient ?? meta;
  return { width, height, upright: (meta.orientation ?? 1) === 1, isJpeg: meta.format === 'jpeg' };
}

async function encodeWithin(
  jpeg: Buffer,
  width: number,
  height: number,
  quality: number,
  fit: 'inside' | 'fill' = 'inside',
): Promise<ResizedJpeg> {
  try {
    const { data, info } = await sharp(jpeg, inputOptions(MAX_INPUT_PIXELS))
      .rotate()
      .resize({ width, height, fit, withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .jpeg({ quality, mozjpeg: false })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: data, width: info.width, height: info.height };
  } catch (err) {
    throw unreadable('cannot resize image', err);
  }
}

/**
 * Downscales a (normalised) JPEG for the vision model so that width x height <= maxPixels and
 * the long edge <= maxLongEdge (spec defaults: PHOTO_IMAGE_MAX_PIXELS 1150000,
 * PHOTO_IMAGE_MAX_LONG_EDGE 1568). Never upscales: an upright JPEG already within both limits
 * is returned as is (same Buffer, no re-encode).
 */
export async function resizeForModel(
  jpeg: Buffer,
  limits: { maxPixels: number; maxLongEdge: number; quality?: number },
): Promise<ResizedJpeg> {
  const maxPixels = positiveInt('maxPixels', limits.maxPixels, null);
  const maxLongEdge = positiveInt('maxLongEdge', limits.maxLongEdge, null);
  const quality = positiveInt('quality', limits.quality, 85, 100);
  const { width, height, upright, isJpeg } = await orientedSize(jpeg);
  const scale = Math.min(1, maxLongEdge / Math.max(width, height), Math.sqrt(maxPixels / (width * height)));
  if (scale === 1 && upright && isJpeg) return { jpeg, width, height };
  // Exact target edges ('fill'): the rounding distorts the aspect ratio by under a pixel.
  // The epsilon keeps 6000 x (1568 / 6000) at 1568 instead of 1567.
  let targetWidth = Math.max(1, Math.min(maxLongEdge, Math.floor(width * scale + 1e-6)));
  let targetHeight = Math.max(1, Math.min(maxLongEdge, Math.floor(height * scale + 1e-6)));
  while (targetWidth * targetHeight > maxPixels && (targetWidth > 1 || targetHeight > 1)) {
    if (targetWidth >= targetHeight) targetWidth--;
    else targetHeight--;
  }
  return encodeWithin(jpeg, targetWidth, targetHeight, quality, 'fill');
}

/** A JPEG thumbnail whose long edge is at most longEdge (default 640); never upscales. */
export async function thumbnail(jpeg: Buffer, longEdge = DEFAULT_THUMBNAIL_LONG_EDGE, quality = 80): Promise<ResizedJpeg> {
  const edge = positiveInt('longEdge', longEdge, DEFAULT_THUMBNAIL_LONG_EDGE);
  return encodeWithin(jpeg, edge, edge, positiveInt('quality', quality, 80, 100));
}
