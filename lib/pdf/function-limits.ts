/**
 * Sampled functions (PDF function type 0) are tables whose size is declared
 * by the document: pdf.js allocates the product of /Size (times the outputs)
 * as one array when a page that uses one is drawn, so 65,535 × 65,535 samples
 * in a 700-byte file is a fatal allocation. The functions a page can reach
 * (a graphics state's transfer functions, a shading's) are measured before
 * anything is drawn, and a table past MAX_FUNCTION_SAMPLES refuses the
 * document as too large.
 */
import { PDFArray, type PDFContext, PDFDict, PDFName, PDFNumber, type PDFObject, PDFRawStream } from '@cantoo/pdf-lib';
import { PdfUnreadable } from './unreadable';

/** Samples one function may declare: 16 times a 1,024 × 1,024 table (real ones hold a few thousand). */
const MAX_FUNCTION_SAMPLES = 16 * 1024 ** 2;

/** Stitching functions inside stitching functions deeper than this are not followed. */
const MAX_FUNCTION_DEPTH = 8;

const numbersIn = (context: PDFContext, object: PDFObject | undefined): number[] => {
  const array = context.lookup(object);
  if (!(array instanceof PDFArray)) return [];
  return array.asArray().map((item) => {
    const value = context.lookup(item);
    return value instanceof PDFNumber ? value.asNumber() : 0;
  });
};

/** The dictionary of a function, whether it is a stream (types 0 and 4) or a plain dictionary (types 2 and 3). */
const dictOf = (object: PDFObject | undefined): PDFDict | undefined =>
  object instanceof PDFRawStream ? object.dict : object instanceof PDFDict ? object : undefined;

/**
 * Refuses a function (or an array of them, or a stitching function's parts)
 * that declares more than MAX_FUNCTION_SAMPLES samples.
 */
function checkFunction(context: PDFContext, object: PDFObject | undefined, depth = 0): void {
  if (depth > MAX_FUNCTION_DEPTH) return;
  const resolved = context.lookup(object);
  if (resolved instanceof PDFArray) {
    for (const item of resolved.asArray()) checkFunction(context, item, depth + 1);
    return;
  }
  const dict = dictOf(resolved);
  if (!dict) return;
  const type = context.lookup(dict.get(PDFName.of('FunctionType')));
  const kind = type instanceof PDFNumber ? type.asNumber() : -1;
  if (kind === 0) {
    const sizes = numbersIn(context, dict.get(PDFName.of('Size')));
    const outputs = Math.max(1, numbersIn(context, dict.get(PDFName.of('Range'))).length / 2);
    const samples = sizes.reduce((product, size) => product * Math.max(1, size), outputs);
    if (!(samples <= MAX_FUNCTION_SAMPLES)) throw new PdfUnreadable('too_large');
  } else if (kind === 3) {
    checkFunction(context, dict.get(PDFName.of('Functions')), depth + 1);
  }
}

/** A graphics state's functions: its transfer functions, and those of its soft mask. */
export function checkGraphicsState(context: PDFContext, state: PDFDict): void {
  for (const key of ['TR', 'TR2']) checkFunction(context, state.get(PDFName.of(key)));
  const mask = context.lookup(state.get(PDFName.of('SMask')));
  if (mask instanceof PDFDict) checkFunction(context, mask.get(PDFName.of('TR')));
}

/** A shading's function (a shading is a dictionary, or a stream for the mesh types). */
export function checkShading(context: PDFContext, shading: PDFObject | undefined): void {
  const dict = dictOf(context.lookup(shading));
  if (dict) checkFunction(context, dict.get(PDFName.of('Function')));
}
