/** Covers: lib/imports/rules.ts (claim-level contents-list imports: manifest, file outcomes, counters, status, retry). */
import {
  batchCounters,
  type BatchDocument,
  contentsListManifestProblem,
  documentOutcome,
  endedBatchStatus,
  filesToRetry,
  liveDocuments,
  NO_PHOTOS_FOUND,
  NOTHING_TO_IMPORT,
  retryProblem,
  settledDocuments,
} from '../../../lib/imports/rules';
import type { PdfDocument } from '../../../lib/jobs/job-record-rules';

const MiB = 1024 * 1024;

const batchDoc = (document: number, over: Partial<BatchDocument> = {}): BatchDocument => ({
  document,
  original_filename: `list-${document}.pdf`,
  key: `k/${document}.pdf`,
  size_bytes: 100,
  state: 'queued',
  pages: null,
  photos: 0,
  message: null,
  ...over,
});
const pdfDoc = (document: number, over: Partial<PdfDocument> = {}): PdfDocument => ({
  ...batchDoc(document),
  state: 'queued',
  ...over,
});

describe('contentsListManifestProblem', () => {
  it('takes PDFs only, naming the first other file', () => {
    expect(
      contentsListManifestProblem([
        { filename: 'a.pdf', size: 1 },
        { filename: 'photo.jpg', size: 1 },
      ]),
    ).toEqual({ status: 400, detail: expect.stringMatching(/^photo\.jpg is not a PDF/) });
  });
  it('takes at most 20 PDFs', () => {
    const files = Array.from({ length: 21 }, (_, i) => ({ filename: `${i}.pdf`, size: 1 }));
    expect(contentsListManifestProblem(files)).toEqual({ status: 400, detail: expect.stringMatching(/At most 20/) });
    expect(contentsListManifestProblem(files.slice(0, 20))).toBeNull();
  });
  it('refuses a PDF over 512 MiB with 413', () => {
    expect(contentsListManifestProblem([{ filename: 'big.PDF', size: 512 * MiB + 1 }])).toEqual({
      status: 413,
      detail: expect.stringMatching(/^big\.PDF is larger than the 512 MiB limit/),
    });
    expect(contentsListManifestProblem([{ filename: 'big.pdf', size: 512 * MiB }])).toBeNull();
  });
  it('refuses a manifest of empty files only', () => {
    expect(contentsListManifestProblem([{ filename: 'a.pdf', size: 0 }])).toEqual({
      status: 400,
      detail: NOTHING_TO_IMPORT,
    });
    expect(
      contentsListManifestProblem([
        { filename: 'a.pdf', size: 0 },
        { filename: 'b.pdf', size: 5 },
      ]),
    ).toBeNull();
  });
});

describe('documentOutcome', () => {
  it('imported when the read found photos', () => {
    expect(documentOutcome(pdfDoc(0, { state: 'read', pages: 4, photos: 9 }), null)).toEqual({
      state: 'imported',
      pages: 4,
      photos: 9,
      message: null,
    });
  });
  it('failed when the read found none, with its message or the default', () => {
    expect(documentOutcome(pdfDoc(0, { state: 'read', pages: 2 }), null)).toEqual({
      state: 'failed',
      pages: 2,
      photos: 0,
      message: NO_PHOTOS_FOUND,
    });
    expect(documentOutcome(pdfDoc(0, { state: 'read', message: 'Limit hit.' }), null).message).toBe('Limit hit.');
  });
  it('keeps failed and skipped as they are', () => {
    expect(documentOutcome(pdfDoc(0, { state: 'failed', message: 'Encrypted.' }), null)).toEqual({
      state: 'failed',
      pages: null,
      photos: 0,
      message: 'Encrypted.',
    });
    expect(documentOutcome(pdfDoc(0, { state: 'skipped', message: 'Never arrived.' }), 'x').state).toBe('skipped');
  });
  it('fails a file the run never finished, with the run error or a default', () => {
    expect(documentOutcome(pdfDoc(0, { state: 'queued' }), 'The worker died.')).toEqual({
      state: 'failed',
      pages: null,
      photos: 0,
      message: 'The worker died.',
    });
    expect(documentOutcome(pdfDoc(0, { state: 'awaiting_upload' }), null).message).toMatch(/stopped before/);
  });
});

describe('settledDocuments and liveDocuments', () => {
  const batch = [batchDoc(0, { state: 'imported', photos: 3 }), batchDoc(1), batchDoc(2, { state: 'awaiting_upload' })];
  it('settles only the files the run read', () => {
    const settled = settledDocuments(batch, [pdfDoc(1, { state: 'read', photos: 2, pages: 1 })], null);
    expect(settled.map((d) => d.state)).toEqual(['imported', 'imported', 'awaiting_upload']);
    expect(settled[1]).toMatchObject({ photos: 2, pages: 1, key: 'k/1.pdf' });
  });
  it("shows the reader's live upload states, never its interim read results", () => {
    const live = liveDocuments(batch, [
      pdfDoc(1, { state: 'read', photos: 2 }),
      pdfDoc(2, { state: 'skipped', message: 'Never arrived.' }),
    ]);
    expect(live.map((d) => d.state)).toEqual(['imported', 'queued', 'skipped']);
    expect(live[2].message).toBe('Never arrived.');
    expect(liveDocuments(batch, [pdfDoc(1, { state: 'failed' })])[1].state).toBe('queued');
  });
});

describe('batchCounters and endedBatchStatus', () => {
  it('counts files by state', () => {
    const docs = [
      batchDoc(0, { state: 'imported' }),
      batchDoc(1, { state: 'skipped' }),
      batchDoc(2, { state: 'failed' }),
      batchDoc(3, { state: 'imported' }),
      batchDoc(4, { state: 'queued' }),
    ];
    expect(batchCounters(docs)).toEqual({ total: 5, imported: 2, skipped: 1, failed: 1 });
  });
  it('failed with nothing imported, partial with a failure, else complete (skipped files do not make it partial)', () => {
    expect(endedBatchStatus({ total: 2, imported: 0, skipped: 1, failed: 1 })).toBe('failed');
    expect(endedBatchStatus({ total: 2, imported: 1, skipped: 0, failed: 1 })).toBe('partial');
    expect(endedBatchStatus({ total: 2, imported: 1, skipped: 1, failed: 0 })).toBe('complete');
  });
});

describe('retryProblem and filesToRetry', () => {
  it('retries only a finished batch with failed files, and only those', () => {
    const docs = [
      batchDoc(0, { state: 'imported' }),
      batchDoc(1, { state: 'failed' }),
      batchDoc(2, { state: 'skipped' }),
    ];
    expect(retryProblem({ status: 'partial', documents: docs })).toBeNull();
    expect(retryProblem({ status: 'failed', documents: docs })).toBeNull();
    expect(retryProblem({ status: 'importing', documents: docs })).toMatch(/finished/);
    expect(retryProblem({ status: 'complete', documents: docs })).toMatch(/finished/);
    expect(retryProblem({ status: 'failed', documents: [docs[2]] })).toMatch(/never arrived/);
    expect(filesToRetry(docs).map((d) => d.document)).toEqual([1]);
  });
});
