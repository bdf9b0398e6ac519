/**
 * Photo decoding and normalisation (SPEC "Photo pipeline (live path)" and "Uploads",
 * DESIGN "Images").
 *
 * Workers only: this module loads sharp, which HTTP handlers do not ship. Recognising an image
 * from its header (sniffImage) and client dates (normalizeCapturedAt) live in ./sniff and are
 * re-exported here.
 *
 * - normalizePhoto(bytes): the background re-encode. Any supported input becomes an upright,
 *   8-bit sRGB, 3-channel baseline JPEG without metadata, plus the EXIF capture date.
 *   Throws UnreadableImageError for anything it cannot decode (caller: skipped_photos).
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
 * Cost (measured on a 2-core dev box, Node 20, MALLOC_ARENA_MAX=2, sharp cache off):
 * a 12 MP JPEG takes ~0.15 s upright / ~0.35 s with EXIF Orientation 6, peak RSS ~200 MB;
 * a 12 MP HEIC takes ~1.2-1.8 s (single-threaded WASM) and peaks at ~420-490 MB RSS (the WASM
 * heap grows to ~190 MB and never shrinks, plus the JS RGBA copy). Give a worker that
 * normalises HEIC at least 1024 MB. The decompression-bomb guard (MAX_INPUT_PIXELS) is
 * checked from the header before any pixels are decoded.
 */
import { deflateSync } from 'node:zlib';
import exifReader from 'exif-reader';
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { ascii, normalizeCapturedAt, sniffImage, type ImageType } from './sniff';

export { normalizeCapturedAt, sniffImage, SNIFF_HEAD_BYTES, type ImageType } from './sniff';


/**
 * Largest decoded image accepted, in pixels (width x height), checked from the header before
 * decoding. 100 MP covers 108 MP phone sensors; anything larger is refused as unreadable.
 */
export const MAX_INPUT_PIXELS = 100_000_000;

export const DEFAULT_JPEG_QUALITY = 90;
export const DEFAULT_THUMBNAIL_LONG_EDGE = 640;


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

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(...parts: Buffer[]): number {
  let c = 0xffffffff;
  for (const part of parts) for (const byte of part) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Raw pixels have no way to carry a colour profile into sharp, and iPhone HEICs are Display P3:
 * wrap the pixels in a fast (stored, unfiltered) PNG with an iCCP chunk so sharp converts them
 * to sRGB like any profiled input. Costs roughly 0.1 s per 12 MP.
 */
async function pngWithIcc(raw: RawImage, icc: Buffer, hasAlpha: boolean): Promise<Buffer> {
  let image = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels }, limitInputPixels: false });
  if (!hasAlpha && raw.channels === 4) image = image.removeAlpha();
  const png = await image.png({ compressionLevel: 0, adaptiveFiltering: false }).toBuffer();
  const type = Buffer.from('iCCP', 'latin1');
  const data = Buffer.concat([Buffer.from('icc\0\0', 'latin1'), deflateSync(icc)]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(type, data));
  const afterIhdr = 8 + 25; // signature, then IHDR (4 length + 4 type + 13 data + 4 crc)
  return Buffer.concat([png.subarray(0, afterIhdr), head, type, data, crc, png.subarray(afterIhdr)]);
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
      // HEVC: sharp's libheif (newer than heic-decode's) reads the container and Exif but has
      // no HEVC decoder. libheif applies irot/imir; the raw pixels carry no EXIF, so the
      // rotate() below is a no-op for them.
      const raw = await decodeHeic(input, limit);
      pipeline = meta.icc
        ? sharp(await pngWithIcc(raw, meta.icc, meta.hasAlpha), inputOptions(limit))
        : sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels }, limitInputPixels: limit });
    } else {
      pipeline = sharp(input, inputOptions(limit)); // first page/frame of GIF, TIFF, WebP
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

async function orientedSize(jpeg: Buffer): Promise<{ width: number; height: number; alreadyNormal: boolean }> {
  let meta: Metadata;
  try {
    meta = await sharp(jpeg, inputOptions(MAX_INPUT_PIXELS)).metadata();
  } catch (err) {
    throw unreadable('cannot read image', err);
  }
  checkPixels(meta.width, meta.height, MAX_INPUT_PIXELS);
  const { width, height } = meta.autoOrient ?? meta;
  const alreadyNormal =
    meta.format === 'jpeg' && (meta.orientation ?? 1) === 1 && meta.space === 'srgb' && meta.channels === 3 && !meta.hasProfile;
  return { width, height, alreadyNormal };
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
 * PHOTO_IMAGE_MAX_LONG_EDGE 1568). Never upscales: an upright, profile-free sRGB JPEG (what
 * normalizePhoto makes) already within both limits is returned as is (same Buffer, no re-encode).
 */
export async function resizeForModel(
  jpeg: Buffer,
  limits: { maxPixels: number; maxLongEdge: number; quality?: number },
): Promise<ResizedJpeg> {
  const maxPixels = positiveInt('maxPixels', limits.maxPixels, null);
  const maxLongEdge = positiveInt('maxLongEdge', limits.maxLongEdge, null);
  const quality = positiveInt('quality', limits.quality, 85, 100);
  const { width, height, alreadyNormal } = await orientedSize(jpeg);
  const scale = Math.min(1, maxLongEdge / Math.max(width, height), Math.sqrt(maxPixels / (width * height)));
  if (scale === 1 && alreadyNormal) return { jpeg, width, height };
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

// ---------------------------------------------------------------------------------------------
// Cropping
// ---------------------------------------------------------------------------------------------

/** A box as fractions (0..1) of the upright image's width and height. */
export interface CropBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The pixel rectangle of a fractional box on a width x height image: edges
 * rounded to the nearest pixel, clamped inside the image, at least 1 x 1.
 */
export function cropRect(box: CropBox, width: number, height: number): { left: number; top: number; width: number; height: number } {
  if (![box.x, box.y, box.width, box.height].every(Number.isFinite) || box.width <= 0 || box.height <= 0) {
    throw new RangeError('crop box must have finite x, y and a positive width and height');
  }
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const left = clamp(Math.round(box.x * width), 0, width - 1);
  const top = clamp(Math.round(box.y * height), 0, height - 1);
  const right = clamp(Math.round((box.x + box.width) * width), left + 1, width);
  const bottom = clamp(Math.round((box.y + box.height) * height), top + 1, height);
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * Crops an upright JPEG (what normalizePhoto makes) to a fractional box and
 * encodes the crop the same way: upright 8-bit sRGB baseline JPEG without
 * metadata. Used for the user-drawn segments of a staged photo.
 */
export async function cropJpeg(jpeg: Buffer, box: CropBox, quality = DEFAULT_JPEG_QUALITY): Promise<ResizedJpeg> {
  const q = positiveInt('quality', quality, DEFAULT_JPEG_QUALITY, 100);
  const { width, height } = await orientedSize(jpeg);
  const rect = cropRect(box, width, height);
  try {
    const { data, info } = await sharp(jpeg, inputOptions(MAX_INPUT_PIXELS))
      .rotate()
      .extract(rect)
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .jpeg({ quality: q, mozjpeg: false, progressive: false, chromaSubsampling: '4:2:0' })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: data, width: info.width, height: info.height };
  } catch (err) {
    throw unreadable('cannot crop image', err);
  }
}
