/**
 * Page rendering with pdf.js onto an @napi-rs/canvas canvas, encoded as JPEG
 * by the canvas. A region is rendered on its own (the page is shifted under a
 * canvas of the region's size), so a small box at a high scale never needs
 * a canvas of the whole page.
 */
import { createCanvas } from '@napi-rs/canvas';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PdfBox } from './layout';

const JPEG_QUALITY = 90;

/**
 * pdf.js's AnnotationMode.DISABLE: annotations (stamps, comments, form
 * fields) are not drawn. A list's photos and text are the page's content, and
 * an annotation's appearance is a stream no page guard measures.
 */
const NO_ANNOTATIONS = 0;

/** Renders `box` (points, top-left origin, clipped to the page) with its long edge `longEdge` px. */
export async function renderBox(page: PDFPageProxy, box: PdfBox, longEdge: number): Promise<Buffer> {
  const full = page.getViewport({ scale: 1 });
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  const width = Math.min(full.width, box.x + box.width) - x;
  const height = Math.min(full.height, box.y + box.height) - y;
  if (!(width > 0 && height > 0)) throw new RangeError('The region lies outside the page');
  if (!(longEdge >= 1)) throw new RangeError('The long edge must be at least 1 px');
  const scale = longEdge / Math.max(width, height);
  const canvas = createCanvas(
    Math.max(1, Math.min(longEdge, Math.round(width * scale))),
    Math.max(1, Math.min(longEdge, Math.round(height * scale))),
  );
  try {
    await page.render({
      // pdf.js types its canvas as the DOM's; @napi-rs/canvas implements what it uses.
      canvas: canvas as never,
      canvasContext: canvas.getContext('2d') as never,
      viewport: page.getViewport({ scale }),
      transform: [1, 0, 0, 1, -x * scale, -y * scale],
      background: '#ffffff',
      annotationMode: NO_ANNOTATIONS,
    }).promise;
    return await canvas.encode('jpeg', JPEG_QUALITY);
  } finally {
    page.cleanup();
  }
}
