/**
 * The PDF reader fuzzed with damaged documents: a small contents list (text,
 * stored JPEGs and a Flate image) cut short, overwritten, with bytes spliced
 * in or taken out, in a few hundred combinations fast-check draws (and
 * shrinks on a failure), and the same for a list encrypted with owner
 * restrictions only. Whatever it meets, the reader either reads the
 * pages and images or refuses the document as PdfUnreadable: no other error,
 * no hang, no rejection left unhandled (which would end a Lambda invocation).
 *
 * A failure reported without a message and with a stack that stops at pdf.js's
 * `BaseExceptionClosure` is such an unhandled rejection from pdf.js (its
 * errors keep the stack of the module's load), which jest reports against
 * whichever test was running; it has no counterexample, so find the input by
 * running the reader outside jest with a process `unhandledRejection` listener.
 */
import fc from 'fast-check';
import { PDFDocument } from '@cantoo/pdf-lib';
import { openPdf, PdfUnreadable } from '../../../lib/pdf/reader';
import { smallPng } from '../../support/uploads';
import { cardGridList } from '../../support/pdf-fixtures';
import { type Damage, damage, damaged } from '../../support/damaged-pdfs';
import { restrictedList } from '../../support/restricted-pdfs';

const RUNS = 200;

let base: Buffer;

beforeAll(async () => {
  const list = await cardGridList({ pages: 2, photosPerPage: 2 });
  const doc = await PDFDocument.load(list.bytes);
  doc.getPage(1).drawImage(await doc.embedPng(await smallPng(3)), { x: 300, y: 40, width: 60, height: 45 });
  // Without object streams, damage lands in page objects and streams as often as anywhere.
  base = Buffer.from(await doc.save({ useObjectStreams: false }));
});

/** Everything the import asks of a document: every page's layout, then every image's JPEG. */
async function readAll(bytes: Buffer): Promise<void> {
  const reader = await openPdf(bytes);
  try {
    for (let page = 1; page <= reader.pageCount; page++) {
      const layout = await reader.pageLayout(page);
      for (const image of layout.images) await reader.imageJpeg(page, image);
    }
  } finally {
    await reader.close();
  }
}

it('reads a damaged document or refuses it as unreadable, never anything else', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 3 }), async (damages) => {
      try {
        await readAll(damaged(base, damages));
      } catch (error) {
        if (!(error instanceof PdfUnreadable)) throw error;
      }
    }),
    { numRuns: RUNS, interruptAfterTimeLimit: 50_000 },
  );
}, 60_000);

it('reads a damaged list encrypted with owner restrictions only or refuses it as unreadable', async () => {
  const encrypted = (await restrictedList({ encryption: 'aes-128' })).bytes;
  await fc.assert(
    fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 3 }), async (damages) => {
      try {
        await readAll(damaged(encrypted, damages));
      } catch (error) {
        if (!(error instanceof PdfUnreadable)) throw error;
      }
    }),
    { numRuns: RUNS / 2, interruptAfterTimeLimit: 25_000 },
  );
}, 40_000);

it('reads or refuses the damaged list fuzzing once found, where an image to render lay outside its page', async () => {
  const found: Damage[] = [
    { kind: 'splice', at: 0.882546, bytes: [40] },
    { kind: 'overwrite', at: 0.56578, bytes: [136] },
  ];
  // Read front to back, its image once lay outside its page (a RangeError); its objects as the
  // cross-reference names them read whole. Either is right; any other error is not.
  const outcome = await readAll(damaged(base, found)).then(
    () => 'read',
    (error: unknown) => error,
  );
  if (outcome !== 'read') expect(outcome).toBeInstanceOf(PdfUnreadable);
});

it('refuses the encrypted list fuzzing once found with nothing failing after it: a page pdf.js fetched ahead and never used', async () => {
  const found: Damage[] = [
    { kind: 'splice', at: 0.66506, bytes: [91, 47, 40] },
    { kind: 'remove', at: 0.210395, length: 3 },
    { kind: 'overwrite', at: 0.028582, bytes: [60, 101, 112, 224, 60] },
  ];
  const encrypted = (await restrictedList({ encryption: 'aes-128' })).bytes;
  await expect(readAll(damaged(encrypted, found))).rejects.toBeInstanceOf(PdfUnreadable);
  // A rejection nobody handles surfaces once the tasks queued behind it have run: while this test still runs.
  await new Promise((resolve) => setTimeout(resolve, 50));
});
