/**
 * HEVC-coded HEIC/HEIF. sharp's prebuilt libvips reads the HEIF container
 * (and its Exif item) but has no HEVC decoder, so the pixels come from
 * heic-decode (libheif compiled to WASM; loaded lazily, it is ~2 MB and
 * synchronous: it blocks the event loop while it decodes). libheif applies
 * the container's irot/imir transforms while decoding.
 *
 * Memory: a 12 MP HEIC peaks at ~420-490 MB RSS (the WASM heap grows to ~190
 * MB and never shrinks, plus the JS RGBA copy), so a worker decodes one at a
 * time (lib/background/functions.ts photoWorker; `npm run bench -- photo-memory`
 * measures it).
 */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { ascii } from './sniff';
import { checkPixels, unreadable, UnreadableImageError, type RawImage } from './decoding';

/** Peak RSS of one worker process normalising one 12 MP HEIC, as measured; the photo worker's memory is sized from it. */
export const HEIC_DECODE_PEAK_RSS_MB = 500;

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

/** The primary image of an HEVC HEIF file as RGBA, or UnreadableImageError. */
export async function decodeHeic(input: Buffer, limit: number): Promise<RawImage> {
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
 * Raw pixels have no way to carry a colour profile into sharp, and iPhone HEICs are Display P3:
 * wrap the pixels in a fast (stored, unfiltered) PNG with an iCCP chunk so sharp converts them
 * to sRGB like any profiled input. Costs roughly 0.1 s per 12 MP.
 */
export async function pngWithIcc(raw: RawImage, icc: Buffer, hasAlpha: boolean): Promise<Buffer> {
  let image = sharp(raw.data, {
    raw: { width: raw.width, height: raw.height, channels: raw.channels },
    limitInputPixels: false,
  });
  if (!hasAlpha && raw.channels === 4) image = image.removeAlpha();
  const png = await image.png({ compressionLevel: 0, adaptiveFiltering: false }).toBuffer();
  const type = Buffer.from('iCCP', 'latin1');
  const data = Buffer.concat([Buffer.from('icc\0\0', 'latin1'), deflateSync(icc)]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  // A PNG chunk's CRC covers its type and data.
  crc.writeUInt32BE(crc32(data, crc32(type)));
  const afterIhdr = 8 + 25; // signature, then IHDR (4 length + 4 type + 13 data + 4 crc)
  return Buffer.concat([png.subarray(0, afterIhdr), head, type, data, crc, png.subarray(afterIhdr)]);
}
