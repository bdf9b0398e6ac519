/**
 * The PDF import's extracted-bytes budget per document on the real engine and
 * the real pipeline (spec: PDF import limits — over a limit the import stops
 * with a clear message on the job and keeps what it found). A document whose
 * budget (MAX_EXTRACTED_BYTES) is nearly spent when its photos are taken out
 * still ends its read: the photos before the limit are staged, in order from
 * the first, and its entry on the job says the limit was reached. The same
 * document with its budget untouched yields every photo and no message.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startInProcessWorkers, useEngineStage, type EngineStage } from '../support/engine';
import { cardGridList, layoutTag } from '../support/pdf-fixtures';
import { cardGridPdfJob, handedOn, pdfNames, pdfPhotos, startPdfRead } from '../support/pdf-jobs';
import { db, tableName } from '../../lib/db/client';
import { putNewJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { BYTES_LIMIT_REACHED, MAX_EXTRACTED_BYTES } from '../../lib/pipelines/pdf/limit-rules';
import { runRecordKey } from '../../lib/pipelines/run-record-store';

let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;
let fixture: Awaited<ReturnType<typeof cardGridList>>;

beforeAll(async () => {
  stage = await useEngineStage({}, 'engine-pdf-budget');
  // A layout of this file's own, so no template another suite learned matches it.
  const tag = layoutTag();
  fixture = await cardGridList({
    pages: 3,
    photosPerPage: 3,
    header: `Budget Restoration ${tag} - Contents inventory - Claim 88-12345 - Insured: Jane Doe`,
    footerLines: [`Budget Restoration ${tag} - 12 Main Street`],
  });
}, 120_000);

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

/** A photo job with the fixture uploaded and confirmed (queued), its read started but not yet picked up. */
async function startedRead(): Promise<Job> {
  const job = await cardGridPdfJob(fixture.bytes, 'budget');
  await putNewJob(job);
  return startPdfRead(job);
}

const budgetKey = (job: Job) => ({ pk: `JOB#${job.id}`, sk: runRecordKey('PDFBYTES', job.run_id as string, 0) });

it('stops taking photos out at the budget, keeps those before it in order and says so on the job', async () => {
  // Photos are taken out as stored: room for exactly KEPT of them, whatever their order (sizes differ by bytes).
  const sizes = fixture.expected.photos.map((p) => p.jpeg.length);
  const KEPT = 3;
  const headroom = KEPT * Math.max(...sizes) + Math.floor(Math.min(...sizes) / 2);
  expect(headroom).toBeLessThan((KEPT + 1) * Math.min(...sizes));
  expect(fixture.expected.photos.length).toBeGreaterThan(KEPT + 1);

  const job = await startedRead();
  // Seeded before any worker runs, as if earlier photos of the document had used the rest.
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...budgetKey(job), entity: 'PdfBytesUsed', used: MAX_EXTRACTED_BYTES - headroom },
    }),
  );
  workers = startInProcessWorkers(stage);
  const done = await handedOn(job.id);

  expect(done.preparation_error).toBeNull();
  expect(done.pdf_documents).toEqual([
    expect.objectContaining({ state: 'read', pages: 3, photos: KEPT, message: BYTES_LIMIT_REACHED }),
  ]);
  const staged = await pdfPhotos(job.id);
  expect(staged.map((p) => p.filename)).toEqual(pdfNames(KEPT));
  // The budget was never overdrawn: what was counted is exactly what was kept.
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: budgetKey(job), ConsistentRead: true }),
  );
  const keptBytes = staged.reduce((n, p) => n + p.size_bytes, 0);
  expect(Item?.used).toBe(MAX_EXTRACTED_BYTES - headroom + keptBytes);
  expect(Item?.used).toBeLessThanOrEqual(MAX_EXTRACTED_BYTES);
}, 90_000);

it('takes every photo out, with no limit message, when the budget is untouched', async () => {
  const job = await startedRead();
  workers = startInProcessWorkers(stage);
  const done = await handedOn(job.id);

  const total = fixture.expected.photos.length;
  expect(done.preparation_error).toBeNull();
  expect(done.pdf_documents).toEqual([
    expect.objectContaining({ state: 'read', pages: 3, photos: total, message: null }),
  ]);
  expect((await pdfPhotos(job.id)).map((p) => p.filename)).toEqual(pdfNames(total));
}, 90_000);
