/**
 * The sizes JPEG 2000 and JBIG2 images declare inside their own data. Their
 * decoders allocate what the codestream says, not what the image dictionary
 * says: a 10 × 10 image whose JBIG2 data declares a 100,000-pixel-square page
 * made pdf.js allocate 10 G pixels. Read from the stream's headers (nothing
 * is decoded) and held to the same bound as every image.
 */

const u16 = (bytes: Uint8Array, at: number) => (bytes[at] << 8) | bytes[at + 1];
const u32 = (bytes: Uint8Array, at: number) => ((bytes[at] << 24) >>> 0) + (bytes[at + 1] << 16) + u16(bytes, at + 2);

/** How far into a JPEG 2000 file its codestream's size marker is looked for (a JP2 file's header boxes come first). */
const JPX_SEARCH_BYTES = 64 * 1024;

/**
 * Pixels a JPEG 2000 image declares: its codestream's image area (the SIZ
 * marker, right after the start of the codestream), or null when there is no
 * codestream in its first bytes.
 */
export function jpxDeclaredPixels(bytes: Uint8Array): number | null {
  const end = Math.min(bytes.length - 24, JPX_SEARCH_BYTES);
  for (let at = 0; at < end; at++) {
    // SOC (FF4F) followed by SIZ (FF51): Lsiz, Rsiz, then Xsiz, Ysiz, XOsiz, YOsiz.
    if (bytes[at] !== 0xff || bytes[at + 1] !== 0x4f || bytes[at + 2] !== 0xff || bytes[at + 3] !== 0x51) continue;
    const width = u32(bytes, at + 8) - u32(bytes, at + 16);
    const height = u32(bytes, at + 12) - u32(bytes, at + 20);
    return Math.max(0, width) * Math.max(0, height);
  }
  return null;
}

/** Segment types that begin with a region's width and height (text, halftone and generic regions, refinements). */
const REGION_SEGMENTS = new Set([6, 7, 22, 23, 36, 38, 39, 40, 42, 43]);
const PAGE_INFORMATION = 48;
/** A segment whose data length is not given (an immediate generic region of unknown height): nothing follows it that can be found. */
const UNKNOWN_LENGTH = 0xffffffff;

/**
 * The largest area, in pixels, that a JBIG2 stream's segments declare for its
 * page or a region (as embedded in a PDF: segments without the file header);
 * 0 when it declares none in the segments that can be read.
 */
export function jbig2DeclaredPixels(bytes: Uint8Array): number {
  let largest = 0;
  let at = 0;
  while (at + 11 <= bytes.length) {
    const number = u32(bytes, at);
    const flags = bytes[at + 4];
    const type = flags & 0x3f;
    at += 5;
    let referred = bytes[at] >> 5;
    if (referred === 7) {
      referred = u32(bytes, at) & 0x1fffffff;
      at += 4 + Math.ceil((referred + 1) / 8);
    } else at += 1;
    at += referred * (number <= 256 ? 1 : number <= 65536 ? 2 : 4);
    at += flags & 0x40 ? 4 : 1;
    if (at + 4 > bytes.length) break;
    const length = u32(bytes, at);
    at += 4;
    if ((type === PAGE_INFORMATION || REGION_SEGMENTS.has(type)) && at + 8 <= bytes.length) {
      const width = u32(bytes, at);
      const height = u32(bytes, at + 4);
      // A striped page leaves its height open (all ones): its width alone is then what it declares per row.
      largest = Math.max(largest, width * (height === UNKNOWN_LENGTH ? 1 : height));
    }
    if (length === UNKNOWN_LENGTH) break;
    at += length;
  }
  return largest;
}
