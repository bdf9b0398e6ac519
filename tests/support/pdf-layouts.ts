/**
 * Page layouts drawn by hand for the PDF import's rule tests: text runs and
 * image placements in points (top-left origin, y down), as the reader
 * reports them.
 */
import type { PdfImagePlacement, PdfPageLayout, PdfText } from '../../lib/pdf/layout';
import { DEFAULT_RECIPE, type Recipe } from '../../lib/pipelines/pdf/recipe';

/** US Letter in points. */
const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;

/** One run of text; its width is estimated from the font size (half an em per character). */
export function run(str: string, x: number, y: number, size = 10, width = str.length * size * 0.5): PdfText {
  return { str, x, y, width, height: size };
}

/** Lines of text stacked from y down, one run each, `leading` points from top to top. */
export function stacked(x: number, y: number, texts: string[], size = 10, leading = size + 2): PdfText[] {
  return texts.map((t, i) => run(t, x, y + i * leading, size));
}

/** One drawing of an embedded image (a 600 x 400 pixel JPEG unless said otherwise). */
export function image(
  id: string,
  x: number,
  y: number,
  width: number,
  height: number,
  pixels: { width: number; height: number } = { width: 600, height: 400 },
): PdfImagePlacement {
  return { id, x, y, width, height, pixelWidth: pixels.width, pixelHeight: pixels.height, jpeg: true };
}

export function page(
  n: number,
  content: { texts?: PdfText[]; images?: PdfImagePlacement[] },
  size: { width: number; height: number } = { width: PAGE_WIDTH, height: PAGE_HEIGHT },
): PdfPageLayout {
  return { page: n, ...size, texts: content.texts ?? [], images: content.images ?? [] };
}

export function recipe(overrides: Partial<Recipe> = {}): Recipe {
  return { ...DEFAULT_RECIPE, ...overrides };
}

/**
 * A card grid page: `rows` x `cols` photos of 150 x 100 pt starting at
 * (50, top), cells 180 pt wide and `cellHeight` tall; `cell(r, c)` returns the
 * texts to stack under each photo (3 pt under it, 12 pt leading), and the
 * photo ids are `${prefix}-r${r}c${c}`.
 */
export function gridPage(
  n: number,
  options: {
    rows: number;
    cols: number;
    prefix: string;
    top?: number;
    cellHeight?: number;
    cell: (r: number, c: number) => string[];
    extraTexts?: PdfText[];
    extraImages?: PdfImagePlacement[];
  },
): PdfPageLayout {
  const top = options.top ?? 60;
  const cellHeight = options.cellHeight ?? 160;
  const texts: PdfText[] = [...(options.extraTexts ?? [])];
  const images: PdfImagePlacement[] = [...(options.extraImages ?? [])];
  for (let r = 0; r < options.rows; r++) {
    for (let c = 0; c < options.cols; c++) {
      const x = 50 + c * 180;
      const y = top + r * cellHeight;
      images.push(image(`${options.prefix}-r${r}c${c}`, x, y, 150, 100));
      texts.push(...stacked(x, y + 103, options.cell(r, c)));
    }
  }
  return page(n, { texts, images });
}
