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
export { MAX_INPUT_PIXELS, UnreadableImageError } from './decoding';
export { normalizePhoto, type NormalizedPhoto } from './normalize';
export { cropJpeg, cropRect, resizeForModel, thumbnail } from './resize';
export { normalizeCapturedAt, sniffImage, SNIFF_HEAD_BYTES } from './sniff';
