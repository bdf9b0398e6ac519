/**
 * Photo jobs that read a contents list with the real PDF import on an engine
 * stage (tests/support/engine.ts): the document in the bucket, confirmed
 * (queued), its recipe scripted on the fake gateway; and what the read left
 * on the job.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { eventually } from './api';
import { CARD_GRID_RECIPE } from './pdf-fixtures';
import { fakeGateway } from './fake-gateway';
import { mediaBucket, s3 } from '../../lib/blob/client';
import { blobKeys } from '../../lib/blob/keys';
import { getJob } from '../../lib/jobs/job-store';
import { newJobRecord, type Job } from '../../lib/jobs/job-record-rules';
import { startJob } from '../../lib/orchestrator/engine';
import { pdfImportPipeline } from '../../lib/pipelines/pdf/pipeline';
import { pdfFilename } from '../../lib/photos/rules';
import { listStagedPhotos } from '../../lib/photos/staged-photo-store';
import { newPdfDocuments } from '../../lib/photos/upload-rules';

/**
 * A photo job in importing_pdf (not saved yet) with one card-grid document
 * uploaded and confirmed; the fake AI answers CARD_GRID_RECIPE for it.
 */
export async function cardGridPdfJob(bytes: Uint8Array, namePrefix: string): Promise<Job> {
  const filename = `${namePrefix}-${randomUUID().slice(0, 8)}.pdf`;
  await fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string).script(
    `Sample pages of the contents list "${filename}"`,
    [{ items: [], content: CARD_GRID_RECIPE }],
  );
  const room = { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() };
  const id = randomUUID();
  const job = newJobRecord({ id, room, userId: randomUUID(), sourceType: 'photo', status: 'importing_pdf' });
  const [document] = newPdfDocuments(blobKeys.jobPrefix(room.team_id, room.claim_id, id), [
    { filename, size: bytes.length },
  ]);
  job.pdf_documents = [{ ...document, state: 'queued' }];
  await s3().send(
    new PutObjectCommand({ Bucket: mediaBucket(), Key: document.key, Body: bytes, ContentType: 'application/pdf' }),
  );
  return job;
}

/** Starts the read of a saved job (not yet picked up by any worker). */
export async function startPdfRead(job: Job): Promise<Job> {
  const started = await startJob(job, pdfImportPipeline);
  if (!started?.run_id) throw new Error('the read did not start');
  return started;
}

/** The job once its read ended and it moved on to awaiting_grouping. */
export const handedOn = (jobId: string, timeout = 60_000) =>
  eventually(
    async () => {
      const job = await getJob(jobId);
      return job?.status === 'awaiting_grouping' ? job : null;
    },
    timeout,
    200,
  );

/** The job's staged photos taken out of its documents, in index order. */
export const pdfPhotos = async (jobId: string) =>
  (await listStagedPhotos(jobId)).filter((p) => p.filename.startsWith('pdf_')).sort((a, b) => a.index - b.index);

/** pdf_####.jpg for `count` consecutive numbers from `first`. */
export const pdfNames = (count: number, first = 0) => Array.from({ length: count }, (_, i) => pdfFilename(first + i));
