/**
 * Photo decoding and normalisation for workers (SPEC "Photo pipeline (live
 * path)" and "Uploads"). Loads sharp, which HTTP handlers do
 * not ship; the one entry point the photo modules import.
 *
 * - ./normalize: normalizePhoto, the background re-encode to an upright sRGB JPEG.
 * - ./heic: HEVC HEIC decoding (WASM libheif) and its colour profile.
 * - ./resize: resizeForModel, thumbnail, cropJpeg.
 * - ./decoding: the shared error and decoder guards.
 * - ./sniff: recognising an image from its header and client dates (no sharp).
 */
export { DEFAULT_JPEG_QUALITY, MAX_INPUT_PIXELS, UnreadableImageError } from './decoding';
export { normalizePhoto, type NormalizedPhoto, type NormalizePhotoOptions } from './normalize';
export {
  cropJpeg,
  cropRect,
  DEFAULT_THUMBNAIL_LONG_EDGE,
  resizeForModel,
  thumbnail,
  type CropBox,
  type ResizedJpeg,
} from './resize';
export { BMP_NOT_SUPPORTED, normalizeCapturedAt, sniffImage, SNIFF_HEAD_BYTES, type ImageType } from './sniff';
