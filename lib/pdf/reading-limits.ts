/**
 * What one PDF may make the reader hold, whatever its bytes claim. A few MB
 * of deflated zeros expand to gigabytes, and an image's declared size is an
 * allocation the reader would make: both are checked before any work, so a
 * hostile or broken document is refused (PdfUnreadable 'too_large') instead
 * of exhausting the worker.
 */
import { decodePDFRawStream, type PDFObject, PDFRawStream, PDFStream } from '@cantoo/pdf-lib';
import { MAX_INPUT_PIXELS } from '../media/decoding';
import { PdfUnreadable } from './unreadable';

/** Largest embedded image read, in pixels: the same bound as every other image the service decodes. */
export const MAX_IMAGE_PIXELS = MAX_INPUT_PIXELS;

/**
 * Decoded bytes of one page's drawing instructions (its content streams and
 * the forms it draws, together). A dense vector page is a few hundred KB;
 * the message in ./unreadable.ts names this figure.
 */
const MAX_PAGE_CONTENT_BYTES = 32 * 1024 ** 2;

/**
 * Decoded bytes of one font stream (a font program, a character map). Fonts
 * embedded whole are the largest: a CJK font runs to about 20 MB (Arial
 * Unicode 23 MB); subsets and character maps are KB. ./unreadable.ts names
 * this figure.
 */
const MAX_FONT_STREAM_BYTES = 32 * 1024 ** 2;

/**
 * Decoded bytes of all the fonts one page's text uses (counted once each;
 * a Type3 font's glyph procedures and what they draw, each time a procedure
 * is named). Room for two whole CJK fonts, a regular and a bold; pdf.js holds
 * about twice a font's size while it converts it, so a page stays within a
 * few hundred MB of the worker. ./unreadable.ts names this figure.
 */
const MAX_PAGE_FONT_BYTES = 64 * 1024 ** 2;

/**
 * Glyph procedures of one Type3 font. It draws at most 256 codes, and pdf.js
 * runs every procedure it lists whether drawn or not (a million empty ones
 * cost it 37 s and 1.3 GB).
 */
const MAX_TYPE3_GLYPHS = 4096;

/** The bytes pdf.js may give one canvas (a rendered page or region): a 100-megapixel RGBA canvas. */
export const MAX_CANVAS_BYTES = MAX_IMAGE_PIXELS * 4;

/** Refuses an image whose declared size is over MAX_IMAGE_PIXELS. */
export function checkImagePixels(width: number, height: number): void {
  if (width * height > MAX_IMAGE_PIXELS) throw new PdfUnreadable('too_large');
}

/** Refuses a Type3 font that lists more than MAX_TYPE3_GLYPHS glyph procedures. */
export function checkType3Glyphs(count: number): void {
  if (count > MAX_TYPE3_GLYPHS) throw new PdfUnreadable('too_large');
}

/** A running count of decoded bytes against a limit. */
export class DecodeBudget {
  private taken = 0;

  constructor(private readonly limit: number) {}

  /** One page's drawing instructions: MAX_PAGE_CONTENT_BYTES. */
  static pageContent(): DecodeBudget {
    return new DecodeBudget(MAX_PAGE_CONTENT_BYTES);
  }

  /** All the fonts one page's text uses: MAX_PAGE_FONT_BYTES. */
  static pageFonts(): DecodeBudget {
    return new DecodeBudget(MAX_PAGE_FONT_BYTES);
  }

  /** One font stream: MAX_FONT_STREAM_BYTES. */
  static fontStream(): DecodeBudget {
    return new DecodeBudget(MAX_FONT_STREAM_BYTES);
  }

  /** Counts `bytes` more; refuses the document once the total passes the limit. */
  take(bytes: number): void {
    this.taken += bytes;
    if (this.taken > this.limit) throw new PdfUnreadable('too_large');
  }

  /** What has been counted so far. */
  get used(): number {
    return this.taken;
  }
}

/** Decoded bytes taken from a stream at a time, each counted against the budget before the next. */
const DECODE_CHUNK = 64 * 1024;

/**
 * A stream's decoded bytes, counted against `budget` as they are decoded: decoding stops once the budget is
 * spent, so a bomb is never inflated further than the limit. Null when `object` is not a stream.
 */
export function decodeWithin(object: PDFObject | undefined, budget: DecodeBudget): Uint8Array | null {
  if (!(object instanceof PDFStream)) return null;
  if (!(object instanceof PDFRawStream)) {
    const contents = object.getContents(); // made by pdf-lib, already in memory
    budget.take(contents.length);
    return contents;
  }
  const decoder = decodePDFRawStream(object);
  const parts: Uint8Array[] = [];
  for (;;) {
    const part = decoder.getBytes(DECODE_CHUNK) as Uint8Array; // plain bytes unless clamping is asked for
    budget.take(part.length);
    if (part.length > 0) parts.push(part);
    if (part.length < DECODE_CHUNK) break;
  }
  if (parts.length === 1) return parts[0];
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
