/**
 * Reads a PDF for the contents-list import: per page, the text runs with
 * their boxes (pdf.js) and where each embedded image is drawn (the content
 * streams, read with pdf-lib from the objects ./object-graph.ts builds, the
 * ones pdf.js reads too; so no image is decoded); an image's JPEG bytes
 * (kept as stored when it is a JPEG); and pages or regions rendered to JPEG.
 *
 * Both libraries hold the document once for the reader's lifetime (pdf.js a
 * copy of the bytes, loaded when first needed; pdf-lib its parsed objects); pages are read on demand
 * and nothing per page is kept. Coordinates follow ./layout.ts: points, origin
 * at the top-left corner of the page as displayed (crop box and /Rotate
 * applied through pdf.js's viewport).
 *
 * A document encrypted with owner restrictions only (it opens without a
 * password) is loaded decrypted by pdf-lib: its streams are then copies, so no stored JPEG gets a byte range in the document.
 */
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFPageLeaf,
  PDFRef,
  PDFString,
} from '@cantoo/pdf-lib';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { boundsOf, type Matrix, multiply, roundBox, UNIT_SQUARE } from './geometry';
import { keepsStoredJpeg, storedImageJpeg } from './image-samples';
import type { PdfBox, PdfImagePlacement, PdfPageLayout, PdfText } from './layout';
import { loadPdfjs, pdfjsDataDirs } from './pdfjs';
import { FontLimits } from './font-limits';
import { loadObjectGraph } from './object-graph';
import { ImageCatalog, readPageDrawing } from './placements';
import { MAX_CANVAS_BYTES, MAX_IMAGE_PIXELS } from './reading-limits';
import { renderBox } from './render';
import { PdfUnreadable } from './unreadable';

export { PdfUnreadable } from './unreadable';

/** An image that has to be rendered from its page is rendered at its own pixel size, up to this long edge. */
const MAX_RENDERED_IMAGE_EDGE = 3000;

export interface PdfReader {
  readonly pageCount: number;
  /** The document's Producer (the software that wrote it), or null. */
  readonly producer: string | null;
  /** Text runs and image placements of a page (1-based). Decodes no image. */
  pageLayout(page: number): Promise<PdfPageLayout>;
  /**
   * An image drawn on `page` as JPEG bytes: the stored bytes unchanged when it is a JPEG; 8-bit RGB or grey
   * samples encoded with sharp; anything else (palettes, CMYK, JPEG 2000, masks...) rendered from its box
   * on the page at up to its own pixel size.
   */
  imageJpeg(page: number, image: PdfImagePlacement): Promise<Buffer>;
  /** The page rendered to JPEG with its long edge `longEdge` px. */
  renderPage(page: number, longEdge: number): Promise<Buffer>;
  /** A region of the page (points, top-left origin; clipped to the page) rendered to JPEG, long edge `longEdge` px. */
  renderRegion(page: number, box: PdfBox, longEdge: number): Promise<Buffer>;
  /** Frees the document; the reader cannot be used afterwards. */
  close(): Promise<void>;
}

function looksLikePdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

async function loadRendering(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    // pdf.js takes the buffer over (it is moved to its worker), so it gets its own copy, as a plain
    // Uint8Array: it refuses a Node Buffer (what a bucket read gives).
    data: new Uint8Array(bytes),
    ...pdfjsDataDirs(),
    isEvalSupported: false,
    // Images over the limit are not decoded, nor canvases made larger than one such image (./reading-limits.ts).
    maxImageSize: MAX_IMAGE_PIXELS,
    canvasMaxAreaInBytes: MAX_CANVAS_BYTES,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return await task.promise;
  } catch (error) {
    await task.destroy();
    throw new PdfUnreadable((error as Error)?.name === 'PasswordException' ? 'encrypted' : 'corrupt', { cause: error });
  }
}

export interface OpenOptions {
  /**
   * Load pdf.js at once and check that it reads the same pages (a damaged file
   * shows here). Off, pdf.js is loaded on the first call that needs it (text,
   * rendering): taking out stored JPEGs then costs one parse, not two.
   */
  checkRendering?: boolean;
}

/**
 * Opens a PDF, or throws PdfUnreadable (not a PDF, damaged, needs a password, no pages). A document encrypted
 * with owner restrictions only (it opens without a password) is read decrypted.
 */
export async function openPdf(data: Uint8Array, options: OpenOptions = {}): Promise<PdfReader> {
  // As a Buffer (a view, not a copy), pdf-lib's streams share the document's bytes (see rangeOf).
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (!looksLikePdf(bytes)) throw new PdfUnreadable('not_pdf');
  const context = await loadObjectGraph(bytes);
  let pages: PDFPageLeaf[];
  try {
    pages = listPages(context);
  } catch (error) {
    if (error instanceof PdfUnreadable) throw error;
    throw new PdfUnreadable('corrupt', { cause: error });
  }
  if (pages.length === 0) throw new PdfUnreadable('empty');
  const reader = new DocumentReader(context, pages, bytes);
  if (options.checkRendering ?? true) await reader.rendering();
  return reader;
}

/**
 * Page-tree nodes a document may have: far more pages than any contents list
 * (the import reads the first 2,000), far fewer than a hostile tree claims.
 */
const MAX_PAGE_TREE_NODES = 20_000;

/**
 * The page tree's leaves in reading order, each node visited once: a node a
 * tree lists twice (three levels of 300 references to one child list 27
 * million pages) is damage, and a tree past MAX_PAGE_TREE_NODES is refused
 * before anything is listed for it.
 */
function listPages(context: PDFContext): PDFPageLeaf[] {
  const leaves: PDFPageLeaf[] = [];
  const seen = new Set<string | PDFDict>();
  const catalog = context.lookup(context.trailerInfo.Root);
  const pending: unknown[] = [catalog instanceof PDFDict ? catalog.get(PDFName.of('Pages')) : undefined];
  while (pending.length > 0) {
    const entry = pending.pop();
    const node = context.lookup(entry as PDFRef);
    if (!(node instanceof PDFDict)) continue;
    const key = entry instanceof PDFRef ? entry.toString() : node;
    if (seen.has(key)) throw new PdfUnreadable('corrupt', { cause: new Error(`page tree lists ${key} twice`) });
    seen.add(key);
    if (seen.size > MAX_PAGE_TREE_NODES) throw new PdfUnreadable('too_large');
    const kids = context.lookup(node.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) {
      // Last first onto the stack, so the first kid is taken next: pages come out in order.
      for (let i = kids.size() - 1; i >= 0; i--) pending.push(kids.get(i));
    } else if (node instanceof PDFPageLeaf) leaves.push(node);
  }
  return leaves;
}

/** The document's Producer as text; an entry that is not a string (a damaged Info dictionary) counts as absent. */
function producerOf(context: PDFContext): string | null {
  const info = context.lookup(context.trailerInfo.Info);
  const entry = info instanceof PDFDict ? info.lookup(PDFName.of('Producer')) : undefined;
  const text = entry instanceof PDFString || entry instanceof PDFHexString ? entry.decodeText() : '';
  return text.trim() || null;
}

function textOf(item: { str: string; transform: number[]; width: number; height: number }, view: Matrix): PdfText {
  const [a, b, c, d, e, f] = item.transform;
  // The run's box in user space: along its baseline by its width, up by its height, from its origin.
  const along = Math.hypot(a, b) || 1;
  const up = Math.hypot(c, d) || 1;
  const ux = (a / along) * item.width;
  const uy = (b / along) * item.width;
  const vx = (c / up) * item.height;
  const vy = (d / up) * item.height;
  const box = boundsOf(view, [
    [e, f],
    [e + ux, f + uy],
    [e + vx, f + vy],
    [e + ux + vx, f + uy + vy],
  ]);
  return roundBox({ str: item.str, ...box });
}

class DocumentReader implements PdfReader {
  readonly pageCount: number;
  readonly producer: string | null;
  private readonly catalog: ImageCatalog;
  private readonly fonts: FontLimits;

  private loaded: Promise<PDFDocumentProxy> | null = null;
  /** Pages whose drawing and fonts were measured: a render measures a page first, as a layout does. */
  private readonly measured = new Set<number>();

  constructor(
    private readonly context: PDFContext,
    private readonly pages: PDFPageLeaf[],
    private readonly bytes: Uint8Array,
  ) {
    this.pageCount = pages.length;
    this.producer = producerOf(context);
    this.catalog = new ImageCatalog(context);
    this.fonts = new FontLimits(context, this.catalog);
  }

  /** pdf.js's copy of the document, loaded once, checked to read the same pages as pdf-lib. */
  rendering(): Promise<PDFDocumentProxy> {
    this.loaded ??= loadRendering(this.bytes).then(async (rendering) => {
      if (rendering.numPages === this.pageCount) return rendering;
      await rendering.destroy();
      throw new PdfUnreadable('corrupt');
    });
    return this.loaded;
  }

  private async page(page: number): Promise<PDFPageProxy> {
    if (!Number.isInteger(page) || page < 1 || page > this.pageCount) {
      throw new RangeError(`Page ${page} is not in the document (1-${this.pageCount})`);
    }
    const rendering = await this.rendering();
    try {
      return await rendering.getPage(page);
    } catch (error) {
      throw new PdfUnreadable('corrupt', { cause: error });
    }
  }

  async pageLayout(page: number): Promise<PdfPageLayout> {
    const proxy = await this.page(page);
    try {
      const viewport = proxy.getViewport({ scale: 1 });
      const view = viewport.transform as unknown as Matrix;
      // The drawing and its fonts first: they decode the page's content and the fonts its text uses within
      // their limits, so pdf.js never reads a page refused for either.
      const drawing = this.measure(page);
      const images = drawing.placements.map(
        ({ image, ctm }): PdfImagePlacement =>
          roundBox({
            id: image.id,
            ...boundsOf(multiply(ctm, view), UNIT_SQUARE),
            pixelWidth: image.pixelWidth,
            pixelHeight: image.pixelHeight,
            jpeg: image.jpeg,
            jpegRange: keepsStoredJpeg(this.context, image) ? this.rangeOf(image.stream.contents) : null,
            contentHash: this.catalog.contentHash(image),
            storedBytes: image.stream.contents.length,
          }),
      );
      const content = await proxy.getTextContent();
      const texts: PdfText[] = [];
      for (const item of content.items) {
        if ('str' in item && item.str.trim() !== '') texts.push(textOf(item, view));
      }
      return { page, width: viewport.width, height: viewport.height, texts, images };
    } catch (error) {
      if (error instanceof PdfUnreadable) throw error;
      throw new PdfUnreadable('corrupt', { cause: error });
    } finally {
      proxy.cleanup();
    }
  }

  /**
   * The page's drawing, its content and fonts measured within their limits
   * (PdfUnreadable 'too_large' past them); pdf.js decodes the same for its
   * text and its renders.
   */
  private measure(page: number) {
    const drawing = readPageDrawing(this.context, this.catalog, this.pages[page - 1]);
    this.fonts.checkPage(drawing.fonts);
    this.measured.add(page);
    return drawing;
  }

  /**
   * Before a render of a page (its number checked by `page`): a page not
   * measured yet is measured, so pdf.js never renders a page refused for its size.
   */
  private measuredForRender(page: number): void {
    if (this.measured.has(page)) return;
    try {
      this.measure(page);
    } catch (error) {
      if (error instanceof PdfUnreadable) throw error;
      throw new PdfUnreadable('corrupt', { cause: error });
    }
  }

  /**
   * Where `part` lies in the document's bytes, or null when it is not a view of them. pdf-lib cuts a stream's
   * contents out of the document with its `slice`, which for a Buffer shares the bytes.
   */
  private rangeOf(part: Uint8Array): { offset: number; length: number } | null {
    if (part.buffer !== this.bytes.buffer || part.length === 0) return null;
    return { offset: part.byteOffset - this.bytes.byteOffset, length: part.length };
  }

  async imageJpeg(page: number, image: PdfImagePlacement): Promise<Buffer> {
    const stored = this.catalog.imageById(image.id);
    if (!stored) throw new RangeError(`No image ${image.id} in the document`);
    const jpeg = await storedImageJpeg(this.context, stored).catch(() => null);
    if (jpeg) return jpeg;
    const edge = Math.min(MAX_RENDERED_IMAGE_EDGE, Math.max(stored.pixelWidth, stored.pixelHeight));
    try {
      return await this.renderRegion(page, image, edge);
    } catch (error) {
      // Drawn where nothing of it shows (found by fuzzing a damaged list): there is no region to render.
      if (error instanceof RangeError) throw new PdfUnreadable('corrupt', { cause: error });
      throw error;
    }
  }

  async renderPage(page: number, longEdge: number): Promise<Buffer> {
    const proxy = await this.page(page);
    this.measuredForRender(page);
    const { width, height } = proxy.getViewport({ scale: 1 });
    return renderBox(proxy, { x: 0, y: 0, width, height }, longEdge);
  }

  async renderRegion(page: number, box: PdfBox, longEdge: number): Promise<Buffer> {
    const proxy = await this.page(page);
    this.measuredForRender(page);
    return renderBox(proxy, box, longEdge);
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    await loaded?.then((rendering) => rendering.destroy()).catch(() => undefined);
  }
}
