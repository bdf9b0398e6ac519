/**
 * Where each image XObject is drawn on a page, read from the content stream
 * and its Form XObjects with pdf-lib (no image is decoded; tiling patterns'
 * cells are decoded within the same budget, as a render would): the current
 * transformation matrix at each `Do` of an image maps the unit square to the
 * image's box in the page's user space. The same walk finds the fonts the
 * page's text selects, for their limits (./font-limits.ts).
 */
import { createHash } from 'node:crypto';
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFPageLeaf,
  PDFRawStream,
  PDFRef,
} from '@cantoo/pdf-lib';
import { jbig2DeclaredPixels, jpxDeclaredPixels } from './codestream-limits';
import { type Operand, scanContent } from './content-stream';
import { checkGraphicsState, checkShading } from './function-limits';
import { IDENTITY, type Matrix, multiply } from './geometry';
import { checkImagePixels, DecodeBudget, decodeWithin } from './reading-limits';

/** Forms inside forms deeper than this are not followed (documents do not nest them this deep). */
const MAX_FORM_DEPTH = 12;

/** An image XObject as stored. */
export interface StoredImage {
  /** "12 0 R". */
  id: string;
  stream: PDFRawStream;
  pixelWidth: number;
  pixelHeight: number;
  /** Filter names in order (empty when the samples are stored as they are). */
  filters: string[];
  jpeg: boolean;
}

/** One drawing of an image, in the page's user space. */
interface RawPlacement {
  image: StoredImage;
  /** Maps the unit square to the image's box. */
  ctm: Matrix;
}

const name = (object: PDFObject | undefined): string | undefined =>
  object instanceof PDFName ? object.decodeText() : undefined;

function filtersOf(context: PDFContext, dict: PDFDict): string[] {
  const filter = context.lookup(dict.get(PDFName.of('Filter')));
  if (filter instanceof PDFName) return [filter.decodeText()];
  if (filter instanceof PDFArray) {
    return filter.asArray().map((item) => name(context.lookup(item)) ?? '');
  }
  return [];
}

export function numberIn(context: PDFContext, dict: PDFDict, key: string): number | undefined {
  const value = context.lookup(dict.get(PDFName.of(key)));
  return value instanceof PDFNumber ? value.asNumber() : undefined;
}

/** The document's image XObjects, read once each. */
export class ImageCatalog {
  private readonly images = new Map<string, StoredImage | null>();
  private readonly hashes = new Map<string, string>();

  constructor(private readonly context: PDFContext) {}

  /** The image behind a reference, or null when it is not an image (or only a stencil mask). */
  imageAt(ref: PDFRef): StoredImage | null {
    const id = ref.toString();
    const known = this.images.get(id);
    if (known !== undefined) return known;
    const image = this.read(id, this.context.lookup(ref));
    this.images.set(id, image);
    return image;
  }

  /** An image by its id ("12 0 R"), or null. */
  imageById(id: string): StoredImage | null {
    const match = /^(\d+) (\d+) R$/.exec(id);
    return match ? this.imageAt(PDFRef.of(Number(match[1]), Number(match[2]))) : null;
  }

  /**
   * SHA-256 (base64url) of the image's stream as stored, taken once per image: its bytes are already in
   * memory, and nothing is decoded.
   */
  contentHash(image: StoredImage): string {
    let hash = this.hashes.get(image.id);
    if (hash === undefined) {
      hash = createHash('sha256').update(image.stream.contents).digest('base64url');
      this.hashes.set(image.id, hash);
    }
    return hash;
  }

  private read(id: string, object: PDFObject | undefined): StoredImage | null {
    if (!(object instanceof PDFRawStream)) return null;
    const { dict } = object;
    if (name(dict.get(PDFName.of('Subtype'))) !== 'Image') return null;
    if (this.context.lookup(dict.get(PDFName.of('ImageMask')))?.toString() === 'true') return null;
    const pixelWidth = numberIn(this.context, dict, 'Width') ?? 0;
    const pixelHeight = numberIn(this.context, dict, 'Height') ?? 0;
    if (pixelWidth <= 0 || pixelHeight <= 0) return null;
    checkImagePixels(pixelWidth, pixelHeight);
    // A soft mask or a stencil mask is an image of its own size, decoded with the image: the same bound.
    for (const key of ['SMask', 'Mask']) {
      const mask = this.context.lookup(dict.get(PDFName.of(key)));
      if (mask instanceof PDFRawStream)
        checkImagePixels(
          numberIn(this.context, mask.dict, 'Width') ?? 0,
          numberIn(this.context, mask.dict, 'Height') ?? 0,
        );
    }
    const filters = filtersOf(this.context, dict);
    checkCodestreamPixels(object, filters);
    return {
      id,
      stream: object,
      pixelWidth,
      pixelHeight,
      filters,
      jpeg: filters.length === 1 && filters[0] === 'DCTDecode',
    };
  }
}

/**
 * A JPEG 2000 or JBIG2 image is decoded to the size its own data declares:
 * that size is held to the image bound too. Read where the codec's data is
 * stored as is (its only filter); behind another filter it is left to the
 * sandbox's ceiling.
 */
function checkCodestreamPixels(image: PDFRawStream, filters: string[]): void {
  if (filters.length !== 1) return;
  if (filters[0] === 'JPXDecode') checkImagePixels(jpxDeclaredPixels(image.contents) ?? 0, 1);
  if (filters[0] === 'JBIG2Decode') checkImagePixels(jbig2DeclaredPixels(image.contents), 1);
}

/** A page's content: one stream or several, read as one (they split at token boundaries). */
function pageContent(context: PDFContext, page: PDFPageLeaf, budget: DecodeBudget): Uint8Array {
  const contents = context.lookup(page.get(PDFName.of('Contents')));
  if (!(contents instanceof PDFArray)) return decodeWithin(contents, budget) ?? new Uint8Array();
  const parts = contents.asArray().map((ref) => decodeWithin(context.lookup(ref), budget) ?? new Uint8Array());
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length + 1, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    joined[offset + part.length] = 0x0a;
    offset += part.length + 1;
  }
  return joined;
}

function matrixOf(context: PDFContext, dict: PDFDict): Matrix {
  const array = context.lookup(dict.get(PDFName.of('Matrix')));
  if (!(array instanceof PDFArray) || array.size() !== 6) return IDENTITY;
  const values = array.asArray().map((item) => {
    const value = context.lookup(item);
    return value instanceof PDFNumber ? value.asNumber() : 0;
  });
  return values as unknown as Matrix;
}

/**
 * A font the text selects (Tf, or an ExtGState's Font), with the resources in force where it is selected: a
 * Type3 font without resources of its own draws its glyphs with them.
 */
export interface FontUse {
  font: PDFDict;
  resources: PDFDict | undefined;
}

/** What a walk of drawing instructions reports as it meets it. */
export interface DrawingVisitor {
  image?(image: StoredImage, ctm: Matrix): void;
  font(use: FontUse): void;
}

function walk(
  context: PDFContext,
  catalog: ImageCatalog,
  content: Uint8Array,
  resources: PDFDict | undefined,
  start: Matrix,
  forms: Set<string>,
  budget: DecodeBudget,
  visitor: DrawingVisitor,
): void {
  const dictIn = (key: string) => {
    const dict = resources ? context.lookup(resources.get(PDFName.of(key))) : undefined;
    return dict instanceof PDFDict ? dict : undefined;
  };
  const xobjects = dictIn('XObject');
  const fonts = dictIn('Font');
  const states = dictIn('ExtGState');
  const patterns = dictIn('Pattern');
  const shadings = dictIn('Shading');
  // Nothing to place, load or paint with (inline images are not looked at).
  if (!xobjects && !fonts && !states && !patterns && !shadings) return;
  const useFont = (object: PDFObject | undefined) => {
    const font = context.lookup(object);
    if (font instanceof PDFDict) visitor.font({ font, resources });
  };
  /** A form's or a tiling pattern's instructions, decoded within the budget; each once on a nesting path. */
  const walkNested = (
    key: string,
    stream: PDFRawStream,
    own: PDFDict | undefined,
    at: Matrix,
    inner: DrawingVisitor,
  ) => {
    if (forms.has(key) || forms.size >= MAX_FORM_DEPTH) return;
    forms.add(key);
    walk(context, catalog, decodeWithin(stream, budget) ?? new Uint8Array(), own, at, forms, budget, inner);
    forms.delete(key);
  };
  const stack: Matrix[] = [];
  let ctm = start;
  scanContent(content, (op, operands: Operand[]) => {
    if (op === 'q') {
      stack.push(ctm);
    } else if (op === 'Q') {
      ctm = stack.pop() ?? ctm;
    } else if (op === 'cm') {
      const m = operands.slice(-6);
      if (m.length === 6 && m.every((v) => typeof v === 'number')) ctm = multiply(m as unknown as Matrix, ctm);
    } else if (op === 'Tf') {
      // Its two operands are the font's name and size.
      const operand = operands[operands.length - 2];
      if (fonts && operand && typeof operand === 'object') useFont(fonts.get(PDFName.of(operand.name)));
    } else if (op === 'gs') {
      const operand = operands[operands.length - 1];
      if (!states || !operand || typeof operand !== 'object') return;
      const state = context.lookup(states.get(PDFName.of(operand.name)));
      if (!(state instanceof PDFDict)) return;
      checkGraphicsState(context, state);
      const font = context.lookup(state.get(PDFName.of('Font')));
      if (font instanceof PDFArray && font.size() > 0) useFont(font.get(0));
    } else if (op === 'sh') {
      const operand = operands[operands.length - 1];
      if (shadings && operand && typeof operand === 'object')
        checkShading(context, shadings.get(PDFName.of(operand.name)));
    } else if (op === 'scn' || op === 'SCN') {
      // A tiling pattern's cell is drawing instructions too, which a render decodes: within the page's budget.
      const operand = operands[operands.length - 1];
      if (!patterns || !operand || typeof operand !== 'object') return;
      const ref = patterns.get(PDFName.of(operand.name));
      const pattern = context.lookup(ref);
      const key = ref instanceof PDFRef ? ref.toString() : `pattern ${operand.name}`;
      // A shading pattern paints with its shading's function.
      if (pattern instanceof PDFDict) checkShading(context, pattern.get(PDFName.of('Shading')));
      if (!(pattern instanceof PDFRawStream)) return;
      const own = context.lookup(pattern.dict.get(PDFName.of('Resources')));
      // Its images repeat a fill, not photos placed on the page: only its fonts are reported.
      walkNested(key, pattern, own instanceof PDFDict ? own : undefined, ctm, { font: visitor.font });
    } else {
      const operand = operands[operands.length - 1];
      if (!xobjects || !operand || typeof operand !== 'object') return;
      const ref = xobjects.get(PDFName.of(operand.name));
      if (!(ref instanceof PDFRef)) return;
      const image = catalog.imageAt(ref);
      if (image) {
        visitor.image?.(image, ctm);
        return;
      }
      const form = context.lookup(ref);
      if (!(form instanceof PDFRawStream) || name(form.dict.get(PDFName.of('Subtype'))) !== 'Form') return;
      const own = context.lookup(form.dict.get(PDFName.of('Resources')));
      walkNested(
        ref.toString(),
        form,
        own instanceof PDFDict ? own : resources,
        multiply(matrixOf(context, form.dict), ctm),
        visitor,
      );
    }
  });
}

/**
 * Walks drawing instructions (a page's, a form's, a glyph procedure's) and
 * the forms they draw, which are decoded against `budget`: each image drawn
 * and each font selected is reported to `visitor`. Throws
 * PdfUnreadable('too_large') past the budget or for an image over
 * MAX_IMAGE_PIXELS (./reading-limits.ts).
 */
export function walkDrawing(
  context: PDFContext,
  catalog: ImageCatalog,
  content: Uint8Array,
  resources: PDFDict | undefined,
  budget: DecodeBudget,
  visitor: DrawingVisitor,
): void {
  walk(context, catalog, content, resources, IDENTITY, new Set(), budget, visitor);
}

/** What a page draws: its image placements in drawing order, and the fonts its text selects (each once). */
export interface PageDrawing {
  placements: RawPlacement[];
  fonts: FontUse[];
}

/**
 * A page's drawing, read from its content and the forms it draws. Throws
 * PdfUnreadable('too_large') for a page whose content (forms included)
 * decodes past MAX_PAGE_CONTENT_BYTES or that draws an image over
 * MAX_IMAGE_PIXELS (./reading-limits.ts).
 */
export function readPageDrawing(context: PDFContext, catalog: ImageCatalog, page: PDFPageLeaf): PageDrawing {
  const placements: RawPlacement[] = [];
  const fonts = new Map<PDFDict, FontUse>();
  const budget = DecodeBudget.pageContent();
  const content = pageContent(context, page, budget);
  walkDrawing(context, catalog, content, page.Resources(), budget, {
    image: (image, ctm) => placements.push({ image, ctm }),
    font: (use) => {
      if (!fonts.has(use.font)) fonts.set(use.font, use);
    },
  });
  return { placements, fonts: [...fonts.values()] };
}
