/**
 * Resizing and cropping normalised JPEGs (what normalizePhoto makes): the
 * downscale for the vision model, thumbnails, and the user-drawn segment
 * crops. Never upscales. Workers only (loads sharp).
 */
import sharp, { type Metadata } from 'sharp';
import { checkPixels, DEFAULT_JPEG_QUALITY, inputOptions, MAX_INPUT_PIXELS, positiveInt, unreadable } from './decoding';

const DEFAULT_THUMBNAIL_LONG_EDGE = 640;

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
    meta.format === 'jpeg' &&
    (meta.orientation ?? 1) === 1 &&
    meta.space === 'srgb' &&
    meta.channels === 3 &&
    !meta.hasProfile;
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
export async function thumbnail(
  jpeg: Buffer,
  longEdge = DEFAULT_THUMBNAIL_LONG_EDGE,
  quality = 80,
): Promise<ResizedJpeg> {
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
export function cropRect(
  box: CropBox,
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
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
