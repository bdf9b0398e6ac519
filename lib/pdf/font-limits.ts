/**
 * The fonts a page's text uses, measured before pdf.js loads them. For the
 * text alone pdf.js decodes each font's program and character maps whole and
 * runs every glyph procedure of a Type3 font (with whatever those draw), so a
 * font stream of a few MB of deflated zeros would cost it gigabytes. Each
 * such stream is decoded here in chunks against the limits in
 * ./reading-limits.ts and the page refused (PdfUnreadable 'too_large') once
 * one is passed, after at most a limit's worth of work.
 */
import { PDFArray, type PDFContext, PDFDict, PDFName, type PDFObject, UnsupportedEncodingError } from '@cantoo/pdf-lib';
import { type FontUse, type ImageCatalog, walkDrawing } from './placements';
import { checkType3Glyphs, DecodeBudget, decodeWithin } from './reading-limits';
import { PdfUnreadable } from './unreadable';

/** What loading a font costs pdf.js: the bytes it decodes, and the fonts its glyph procedures select. */
interface FontCost {
  bytes: number;
  fonts: FontUse[];
}

/** A font descriptor's program: pdf.js reads the first present, all are measured. */
const FONT_FILES = ['FontFile', 'FontFile2', 'FontFile3'];

/** Fonts' costs, measured once per document (pdf.js too loads a font once per document). */
export class FontLimits {
  private readonly costs = new Map<PDFDict, FontCost>();

  constructor(
    private readonly context: PDFContext,
    private readonly catalog: ImageCatalog,
  ) {}

  /**
   * Refuses a page one of whose fonts has a stream decoding past MAX_FONT_STREAM_BYTES or a Type3 font of
   * more than MAX_TYPE3_GLYPHS procedures, or whose fonts together (with the fonts their glyphs select)
   * decode past MAX_PAGE_FONT_BYTES.
   */
  checkPage(fonts: FontUse[]): void {
    const budget = DecodeBudget.pageFonts();
    const counted = new Set<PDFDict>();
    const queue = [...fonts];
    for (let use = queue.pop(); use; use = queue.pop()) {
      if (counted.has(use.font)) continue;
      counted.add(use.font);
      const cost = this.costOf(use);
      budget.take(cost.bytes);
      queue.push(...cost.fonts);
    }
  }

  private costOf(use: FontUse): FontCost {
    let cost = this.costs.get(use.font);
    if (!cost) {
      cost = this.lookup(use.font, 'Subtype') === PDFName.of('Type3') ? this.type3Cost(use) : this.fileCost(use.font);
      this.costs.set(use.font, cost);
    }
    return cost;
  }

  private lookup(dict: PDFDict, key: string): PDFObject | undefined {
    return this.context.lookup(dict.get(PDFName.of(key)));
  }

  /** A font drawn from a font program: the program and the maps pdf.js decodes with it. */
  private fileCost(font: PDFDict): FontCost {
    let bytes = this.streamBytes(this.lookup(font, 'ToUnicode'));
    let described = font;
    if (this.lookup(font, 'Subtype') === PDFName.of('Type0')) {
      bytes += this.streamBytes(this.lookup(font, 'Encoding')); // a stream when the CMap is embedded
      const descendants = this.lookup(font, 'DescendantFonts');
      const cidFont = descendants instanceof PDFArray ? this.context.lookup(descendants.get(0)) : undefined;
      if (!(cidFont instanceof PDFDict)) return { bytes, fonts: [] };
      bytes += this.streamBytes(this.lookup(cidFont, 'ToUnicode'));
      bytes += this.streamBytes(this.lookup(cidFont, 'CIDToGIDMap'));
      described = cidFont;
    }
    const descriptor = this.lookup(described, 'FontDescriptor');
    if (descriptor instanceof PDFDict) {
      for (const key of FONT_FILES) bytes += this.streamBytes(this.lookup(descriptor, key));
    }
    return { bytes, fonts: [] };
  }

  /**
   * A Type3 font: its glyph procedures, each decoded and walked as pdf.js runs it (a procedure named twice is
   * counted twice), with the forms they draw, all within one page's font limit.
   */
  private type3Cost({ font, resources }: FontUse): FontCost {
    const budget = DecodeBudget.pageFonts();
    budget.take(this.streamBytes(this.lookup(font, 'ToUnicode')));
    const procedures = this.lookup(font, 'CharProcs');
    const fonts: FontUse[] = [];
    if (!(procedures instanceof PDFDict)) return { bytes: budget.used, fonts };
    const names = procedures.keys();
    checkType3Glyphs(names.length);
    const own = this.lookup(font, 'Resources');
    const glyphResources = own instanceof PDFDict ? own : resources;
    for (const name of names) {
      tolerateDamage(() => {
        const content = decodeWithin(this.context.lookup(procedures.get(name)), budget);
        if (content) {
          walkDrawing(this.context, this.catalog, content, glyphResources, budget, { font: (use) => fonts.push(use) });
        }
      });
    }
    return { bytes: budget.used, fonts };
  }

  /** A font stream's decoded size, decoding it no further than MAX_FONT_STREAM_BYTES; 0 for no stream. */
  private streamBytes(object: PDFObject | undefined): number {
    const budget = DecodeBudget.fontStream();
    tolerateDamage(() => decodeWithin(object, budget));
    return budget.used;
  }
}

/**
 * Runs `measure`, letting a limit's refusal through. Damaged data stops pdf.js's decoder where it stopped this
 * one (what was decoded is counted), and pdf.js reads the text on with a substitute font; but a filter pdf-lib
 * cannot decode could hide anything, so that page is refused as one with such content is.
 */
function tolerateDamage(measure: () => void): void {
  try {
    measure();
  } catch (error) {
    if (error instanceof PdfUnreadable || error instanceof UnsupportedEncodingError) throw error;
  }
}
