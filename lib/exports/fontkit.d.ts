/** The part of fontkit (pdfkit's font engine, which ships no types) the report uses. */
declare module 'fontkit' {
  export interface Font {
    postscriptName: string;
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  /** A font file's bytes as a font (TTF or OTF; a collection would need the postscript name). */
  export function create(bytes: Buffer): Font;
}
