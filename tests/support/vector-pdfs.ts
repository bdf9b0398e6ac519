/**
 * A contents list whose pictures are vector drawings (filled paths, written
 * by pdfkit), not embedded images: two cards a page, each a flat-coloured
 * shape (photoColour(index), so a crop of it tells which picture it is) with
 * its label and caption printed under it, and a header line on every page.
 */
import type { PdfBox } from '../../lib/pdf/layout';
import { PAGE_HEIGHT, PAGE_WIDTH, pdfkitBytes, photoColour } from './pdf-drawing';

export interface VectorPicture {
  index: number;
  page: number;
  box: PdfBox;
  label: string;
  caption: string;
}

const SLOTS: PdfBox[] = [
  { x: 50, y: 90, width: 220, height: 160 },
  { x: 330, y: 90, width: 220, height: 160 },
  { x: 50, y: 420, width: 220, height: 160 },
  { x: 330, y: 420, width: 220, height: 160 },
];

const hex = (rgb: readonly number[]) => `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/** `pages` pages of four drawn pictures each (default 2), under `header`. */
export async function vectorList(options: { header: string; pages?: number }): Promise<{
  bytes: Buffer;
  pictures: VectorPicture[];
}> {
  const pages = options.pages ?? 2;
  const pictures: VectorPicture[] = [];
  for (let page = 1; page <= pages; page++) {
    for (const box of SLOTS) {
      const index = pictures.length;
      pictures.push({ index, page, box, label: `Drawn item ${index + 1}`, caption: 'Sketched by the packer' });
    }
  }
  const bytes = await pdfkitBytes({ size: [PAGE_WIDTH, PAGE_HEIGHT], autoFirstPage: false }, (doc) => {
    for (let page = 1; page <= pages; page++) {
      doc.addPage({ size: [PAGE_WIDTH, PAGE_HEIGHT], margin: 0 });
      doc.font('Helvetica').fontSize(9).fillColor('black').text(options.header, 40, 30, { lineBreak: false });
      for (const picture of pictures.filter((p) => p.page === page)) {
        const { x, y, width, height } = picture.box;
        const colour = hex(photoColour(picture.index));
        // A drawing, all of it the picture's colour: a rounded panel and a disc on it.
        doc.roundedRect(x, y, width, height, 6).fill(colour);
        doc.circle(x + width / 2, y + height / 2, height / 3).fill(colour);
        doc.fillColor('black').font('Helvetica-Bold').fontSize(11);
        doc.text(picture.label, x, y + height + 4, { lineBreak: false });
        doc
          .font('Helvetica')
          .fontSize(9)
          .text(picture.caption, x, y + height + 18, { lineBreak: false });
      }
      doc.fontSize(9).text(`Page ${page} of ${pages}`, 270, 760, { lineBreak: false });
    }
  });
  return { bytes, pictures };
}
