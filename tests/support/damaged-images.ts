/**
 * A card-grid contents list (cardGridList) with two of its photos damaged and
 * the rest intact, for the import's rule that one damaged image is left out
 * rather than failing the read:
 *  - `garbled`: a photo stored as a JPEG whose bytes are no JPEG at all (so
 *    its bytes, taken out as stored, cannot be read as an image);
 *  - `offPage`: one more photo, a palette image (which the reader renders from
 *    its page) drawn outside the page, where there is nothing to render.
 * Both are found as photos by the card grid, like the intact ones.
 */
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFRawStream,
  popGraphicsState,
  pushGraphicsState,
} from '@cantoo/pdf-lib';
import { cardGridList } from './pdf-fixtures';
import { PAGE_HEIGHT } from './pdf-drawing';

export interface DamagedList {
  bytes: Uint8Array;
  /** Photos the card grid finds (the intact ones, the garbled one and the off-page one). */
  found: number;
  /** The intact photos' bytes, in document order. */
  intact: Buffer[];
  garbled: { page: number };
  offPage: { page: number };
}

export async function damagedImageList(options: { header: string; footerLines: string[] }): Promise<DamagedList> {
  const list = await cardGridList({ pages: 2, photosPerPage: 3, ...options });
  const doc = await PDFDocument.load(list.bytes);
  // The second photo of page 1: its stream keeps its dictionary (a 320x240 RGB JPEG) over bytes that are not one.
  const victim = list.expected.photos[1];
  const found = doc.context
    .enumerateIndirectObjects()
    .find(([, object]) => object instanceof PDFRawStream && Buffer.from(object.contents).equals(victim.jpeg));
  if (!found) throw new Error('the photo to garble is not in the document');
  const [ref, stream] = found as [never, PDFRawStream];
  doc.context.assign(ref, PDFRawStream.of(stream.dict, Buffer.alloc(victim.jpeg.length, 0x5a)));

  // A 96x96 palette image, drawn to the right of page 2, off the page.
  const palette = PDFHexString.of('ff000000ff000000ff');
  const image = doc.context.flateStream(Buffer.alloc(96 * 96, 1), {
    Type: 'XObject',
    Subtype: 'Image',
    Width: 96,
    Height: 96,
    ColorSpace: [PDFName.of('Indexed'), PDFName.of('DeviceRGB'), 2, palette],
    BitsPerComponent: 8,
  });
  const page = doc.getPage(1);
  const name = page.node.newXObject('OffPage', doc.context.register(image));
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(150, 0, 0, 150, 700, PAGE_HEIGHT - 400),
    drawObject(name),
    popGraphicsState(),
  );
  return {
    bytes: await doc.save(),
    found: list.expected.photos.length + 1,
    intact: list.expected.photos.filter((p) => p !== victim).map((p) => p.jpeg),
    garbled: { page: victim.page },
    offPage: { page: 2 },
  };
}
