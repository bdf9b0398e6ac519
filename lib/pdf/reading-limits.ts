/**
 * What one PDF may make the reader hold, whatever its bytes claim. A few MB
 * of deflated zeros expand to gigabytes, and an image's declared size is an
 * allocation the reader would make: both are checked before any work, so a
 * hostile or broken document is refused (PdfUnreadable 'too_large') instead
 * of exhausting the worker.
 */
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

/** The bytes pdf.js may give one canvas (a rendered page or region): a 100-megapixel RGBA canvas. */
export const MAX_CANVAS_BYTES = MAX_IMAGE_PIXELS * 4;

/** Refuses an image whose declared size is over MAX_IMAGE_PIXELS. */
export function checkImagePixels(width: number, height: number): void {
  if (width * height > MAX_IMAGE_PIXELS) throw new PdfUnreadable('too_large');
}

/** A running count of one page's decoded content bytes. */
export class ContentBudget {
  private used = 0;

  /** Counts `bytes` more; refuses the page once the total passes MAX_PAGE_CONTENT_BYTES. */
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > MAX_PAGE_CONTENT_BYTES) throw new PdfUnreadable('too_large');
  }

  /** What is left: a stream is decoded up to this and one byte more, never further. */
  get remaining(): number {
    return Math.max(0, MAX_PAGE_CONTENT_BYTES - this.used);
  }
}
