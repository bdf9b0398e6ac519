/**
 * An embedded image as JPEG bytes without rendering: a DCT image's stored
 * bytes as they are, or the samples of a Flate (or unfiltered) 8-bit RGB or
 * grey image encoded with sharp. Anything else (palettes, CMYK, JPEG 2000,
 * soft masks, other bit depths...) returns null and the reader renders the
 * image's region of its page instead.
 */
import { decodePDFRawStream, PDFArray, type PDFContext, PDFDict, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { numberIn, type StoredImage } from './placements';

const JPEG_QUALITY = 90;

/** Colour components of a colour space sharp can take as raw samples, or null. */
function componentsOf(context: PDFContext, colorSpace: unknown): 1 | 3 | null {
  const space = context.lookup(colorSpace as never);
  if (space instanceof PDFName) {
    const value = space.decodeText();
    if (value === 'DeviceRGB' || value === 'CalRGB') return 3;
    if (value === 'DeviceGray' || value === 'CalGray') return 1;
    return null;
  }
  if (space instanceof PDFArray && space.size() >= 1) {
    const family = context.lookup(space.get(0));
    if (!(family instanceof PDFName)) return null;
    const value = family.decodeText();
    if (value === 'CalRGB') return 3;
    if (value === 'CalGray') return 1;
    if (value === 'ICCBased') {
      const profile = context.lookup(space.get(1));
      const n = profile instanceof PDFRawStream ? numberIn(context, profile.dict, 'N') : undefined;
      return n === 3 ? 3 : n === 1 ? 1 : null;
    }
  }
  return null;
}

/** Undoes PNG row predictors (DecodeParms Predictor ≥ 10) for 8-bit samples. */
function unpredictPng(data: Uint8Array, rowBytes: number, bytesPerPixel: number, rows: number): Uint8Array | null {
  const out = new Uint8Array(rowBytes * rows);
  const stride = rowBytes + 1;
  if (data.length < stride * rows) return null;
  for (let y = 0; y < rows; y++) {
    const type = data[y * stride];
    const src = y * stride + 1;
    const dst = y * rowBytes;
    for (let x = 0; x < rowBytes; x++) {
      const raw = data[src + x];
      const left = x >= bytesPerPixel ? out[dst + x - bytesPerPixel] : 0;
      const up = y > 0 ? out[dst - rowBytes + x] : 0;
      const upLeft = y > 0 && x >= bytesPerPixel ? out[dst - rowBytes + x - bytesPerPixel] : 0;
      let value: number;
      if (type === 0) value = raw;
      else if (type === 1) value = raw + left;
      else if (type === 2) value = raw + up;
      else if (type === 3) value = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else return null;
      out[dst + x] = value & 0xff;
    }
  }
  return out;
}

/**
 * Whether the image's stored bytes are the photo as they are: a JPEG in RGB
 * or grey. A 4-component (CMYK) JPEG is re-encoded, since what reads the
 * photo later expects RGB or grey.
 */
export function keepsStoredJpeg(context: PDFContext, image: StoredImage): boolean {
  if (!image.jpeg) return false;
  const colorSpace = image.stream.dict.get(PDFName.of('ColorSpace'));
  return !colorSpace || componentsOf(context, colorSpace) !== null;
}

/** The image as JPEG bytes, or null when its samples cannot be taken as they are. */
export async function storedImageJpeg(context: PDFContext, image: StoredImage): Promise<Buffer | null> {
  const { stream, filters, pixelWidth: width, pixelHeight: height } = image;
  const dict = stream.dict;
  const colorSpace = dict.get(PDFName.of('ColorSpace'));
  if (image.jpeg) {
    if (keepsStoredJpeg(context, image)) return Buffer.from(stream.contents);
    return sharp(stream.contents).jpeg({ quality: JPEG_QUALITY }).toBuffer();
  }
  if (dict.has(PDFName.of('SMask')) || dict.has(PDFName.of('Mask')) || dict.has(PDFName.of('Decode'))) return null;
  if (filters.some((filter) => filter !== 'FlateDecode') || numberIn(context, dict, 'BitsPerComponent') !== 8) {
    return null;
  }
  const channels = componentsOf(context, colorSpace);
  if (channels === null) return null;
  const parms = context.lookup(dict.get(PDFName.of('DecodeParms')));
  const predictor = parms instanceof PDFDict ? (numberIn(context, parms, 'Predictor') ?? 1) : 1;
  // Decoded no further than the declared size needs (PNG predictors add a byte per row): a stream that
  // inflates to more (deflated zeros expand a thousandfold) is never held whole.
  const needed = (width * channels + (predictor >= 10 ? 1 : 0)) * height;
  let samples = decodePDFRawStream(stream).getBytes(needed) as Uint8Array;
  if (predictor >= 10) {
    const unpredicted = unpredictPng(samples, width * channels, channels, height);
    if (!unpredicted) return null;
    samples = unpredicted;
  } else if (predictor !== 1) {
    return null;
  }
  if (samples.length < width * height * channels) return null;
  return sharp(samples.subarray(0, width * height * channels), { raw: { width, height, channels } })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
}
