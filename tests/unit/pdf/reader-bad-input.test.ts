import { PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { openPdf, PdfUnreadable } from '../../../lib/pdf/reader';
import { badPdfs, cardGridList } from '../../support/pdf-fixtures';

async function refusal(bytes: Uint8Array): Promise<PdfUnreadable> {
  const error = await openPdf(bytes).then(
    (reader) => reader.close().then(() => null),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PdfUnreadable);
  return error as PdfUnreadable;
}

describe('openPdf on files it cannot read', () => {
  let files: Awaited<ReturnType<typeof badPdfs>>;

  beforeAll(async () => {
    files = await badPdfs();
  });

  it('tells a JPEG named .pdf is not a PDF', async () => {
    expect(files.jpegNamedPdf.filename).toMatch(/\.pdf$/);
    const error = await refusal(files.jpegNamedPdf.bytes);
    expect(error.kind).toBe('not_pdf');
    expect(error.message).toBe('This file is not a PDF document.');
  });

  it('refuses a truncated PDF as damaged', async () => {
    const error = await refusal(files.truncated.bytes);
    expect(error.kind).toBe('corrupt');
    expect(error.message).toMatch(/damaged or incomplete/);
  });

  it('refuses a password-protected PDF', async () => {
    const error = await refusal(files.encrypted.bytes);
    expect(error.kind).toBe('encrypted');
    expect(error.message).toMatch(/password-protected/);
  });

  it('refuses a PDF without pages', async () => {
    const error = await refusal(files.zeroPages.bytes);
    expect(error.kind).toBe('empty');
    expect(error.message).toBe('This PDF has no pages.');
  });

  it('reads a PDF named .jpg (the name is the caller’s business)', async () => {
    expect(files.pdfNamedJpg).toMatchObject({ filename: 'kitchen.jpg', kind: null });
    const reader = await openPdf(files.pdfNamedJpg.bytes);
    expect(reader.pageCount).toBe(2);
    await reader.close();
  });

  it('refuses a PDF cut short anywhere in its body', async () => {
    const { bytes } = await cardGridList({ pages: 2, photosPerPage: 2 });
    for (const share of [0.2, 0.5, 0.8, 0.95]) {
      expect((await refusal(bytes.slice(0, Math.floor(bytes.length * share)))).kind).toBe('corrupt');
    }
  });

  it('reads a PDF whose Producer is not text as having none (found by fuzzing a damaged list)', async () => {
    const doc = await PDFDocument.load((await cardGridList({ pages: 1, photosPerPage: 1 })).bytes);
    doc.context.lookup(doc.context.trailerInfo.Info, PDFDict).set(PDFName.of('Producer'), PDFName.of('Acme'));
    const reader = await openPdf(await doc.save({ updateFieldAppearances: false }));
    expect(reader.producer).toBeNull();
    expect(reader.pageCount).toBe(1);
    await reader.close();
  });
});
