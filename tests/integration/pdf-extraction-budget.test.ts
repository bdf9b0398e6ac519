/**
 * The PDF import's extracted-bytes budget per document on the real engine and
 * the real pipeline (spec: PDF import limits — over a limit the import stops
 * with a clear message on the job and keeps what it found). A document whose
 * budget (MAX_EXTRACTED_BYTES) is nearly spent when its photos are taken out
 * still ends its read: the photos before the limit are staged, in order from
 * the first, and its entry on the job says the limit was reached. The same
 * document with its budget untouched yields every photo and no message.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { eventually } from '../support/api';
import { fakeGateway } from '../support/fake-gateway';
import { startInProcessWorkers, useEngineStage, type EngineStage } from '../support/engine';
import { cardGridList, CARD_GRID_RECIPE } from '../support/pdf-fixtures';
import { mediaBucket, s3 } from '../../lib/blob/client';
import { blobKeys } from '../../lib/blob/keys';
import { db, tableName } from '../../lib/db/client';
import { getJob, newJobRecord, putNewJob, type Job } from '../../lib/jobs/job-store';
import { startJob } from '../../lib/orchestrator/engine';
import { BYTES_LIMIT_REACHED, MAX_EXTRACTED_BYTES } from '../../lib/pipelines/pdf/limit-rules';
import { pdfImportPipeline } from '../../lib/pipelines/pdf/pipeline';
import { runRecordKey } from '../../lib/pipelines/run-record-store';
import { listStagedPhotos } from '../../lib/photos/staged-photo-store';
import { newPdfDocuments } from '../../lib/photos/upload-rules';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;
let fixture: Awaited<ReturnType<typeof cardGridList>>;

beforeAll(async () => {
  stage = await useEngineStage({}, 'engine-pdf-budget');
  // A layout of this file's own, so no template another suite learned matches it.
  const tag = randomUUID().slice(0, 6);
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
  const filename = `budget-${randomUUID().slice(0, 8)}.pdf`;
  await gateway.script(`Sample pages of the contents list "${filename}"`, [{ items: [], content: CARD_GRID_RECIPE }]);
  const room = { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() };
  const id = randomUUID();
  const job = newJobRecord({ id, room, userId: randomUUID(), sourceType: 'photo', status: 'importing_pdf' });
  const [document] = newPdfDocuments(blobKeys.jobPrefix(room.team_id, room.claim_id, id), [
    { filename, size: fixture.bytes.length },
  ]);
  job.pdf_documents = [{ ...document, state: 'queued' }];
  await s3().send(
    new PutObjectCommand({
      Bucket: mediaBucket(),
      Key: document.key,
      Body: fixture.bytes,
      ContentType: 'application/pdf',
    }),
  );
  await putNewJob(job);
  const started = await startJob(job, pdfImportPipeline);
  if (!started?.run_id) throw new Error('the read did not start');
  return started;
}

const budgetKey = (job: Job) => ({ pk: `JOB#${job.id}`, sk: runRecordKey('PDFBYTES', job.run_id as string, 0) });

const handedOn = (jobId: string) =>
  eventually(
    async () => {
      const job = await getJob(jobId);
      return job?.status === 'awaiting_grouping' ? job : null;
    },
    60_000,
    200,
  );

const pdfPhotos = async (jobId: string) =>
  (await listStagedPhotos(jobId)).filter((p) => p.filename.startsWith('pdf_')).sort((a, b) => a.index - b.index);

const names = (count: number) => Array.from({ length: count }, (_, i) => `pdf_${String(i).padStart(4, '0')}.jpg`);

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
  expect(staged.map((p) => p.filename)).toEqual(names(KEPT));
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
  expect((await pdfPhotos(job.id)).map((p) => p.filename)).toEqual(names(total));
}, 90_000);
