/**
 * The watchdog and a contents-list read whose files were not all confirmed
 * (lib/orchestrator/recovery.ts with the PDF import's uploadsExpired): once
 * the upload links have expired, each file still waiting is looked for in the
 * bucket, and the read starts with what arrived, or the job moves on when
 * nothing did. No workers run here: the started read stays queued.
 */
import { randomUUID } from 'node:crypto';
import '../../lib/pipelines';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { blobKeys } from '../../lib/blob/keys';
import { getJob, putNewJob } from '../../lib/jobs/job-store';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import { runWatchdog } from '../../lib/orchestrator/recovery';
import { confirmDocumentUploads } from '../../lib/photos/document-upload-service';
import { NO_DOCUMENT_ARRIVED, newPdfDocuments } from '../../lib/photos/upload-rules';
import { useEngineStage } from '../support/engine';

let s3: S3Client;

beforeAll(async () => {
  await useEngineStage({ PRESIGNED_URL_TTL_SECONDS: '900' }, 'engine-pdf-expiry');
  s3 = new S3Client({ forcePathStyle: true });
}, 120_000);

afterAll(() => s3.destroy());

const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

async function pdfJob(files: number): Promise<Job> {
  const room = { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() };
  const id = randomUUID();
  const job = newJobRecord({ id, room, userId: randomUUID(), sourceType: 'photo', status: 'importing_pdf' });
  job.pdf_documents = newPdfDocuments(
    blobKeys.jobPrefix(room.team_id, room.claim_id, id),
    Array.from({ length: files }, (_, i) => ({ filename: `list-${i}.pdf`, size: 64 })),
  );
  return putNewJob(job);
}

/** What the browser's presigned POST leaves in the bucket for document `n`. */
async function uploaded(job: Job, n: number): Promise<void> {
  const doc = job.pdf_documents?.[n];
  await s3.send(
    new PutObjectCommand({
      Bucket: process.env.MEDIA_BUCKET,
      Key: doc?.key,
      Body: Buffer.alloc(64, 1),
      ContentType: 'application/pdf',
      Metadata: { document: String(n) },
    }),
  );
}

it('starts the read with the files that arrived, skipping the one that never did', async () => {
  const job = await pdfJob(3);
  await uploaded(job, 0);
  await uploaded(job, 1);
  // The browser confirmed the first file only; the second arrived unconfirmed, the third never came.
  await confirmDocumentUploads(job, [0]);
  expect((await getJob(job.id))?.run_id).toBeNull();

  await runWatchdog(later(10));
  expect((await getJob(job.id))?.run_id).toBeNull();

  const report = await runWatchdog(later(26));
  expect(report.recovered).toBeGreaterThanOrEqual(1);
  const after = await getJob(job.id);
  expect(after).toMatchObject({ status: 'importing_pdf', pipeline: 'pdf-import' });
  expect(after?.run_id).not.toBeNull();
  expect(after?.pdf_documents?.map((d) => d.state)).toEqual(['queued', 'queued', 'skipped']);
});

it('hands the job on when none of its files arrived', async () => {
  const job = await pdfJob(2);
  await runWatchdog(later(26));
  const after = await getJob(job.id);
  expect(after).toMatchObject({ status: 'awaiting_grouping', run_id: null, preparation_error: NO_DOCUMENT_ARRIVED });
  expect(after?.pdf_documents?.map((d) => d.state)).toEqual(['skipped', 'skipped']);
});
