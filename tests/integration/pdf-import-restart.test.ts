/**
 * A PDF import whose worker dies mid-read, on the real engine and the real
 * pipeline (spec: a restarted run clears partial results; nothing lost,
 * nothing doubled). The watchdog restarts the run in importing_pdf; the
 * restart removes what the interrupted run wrote (its pdf_ staged photos and
 * their photos/pdf_ objects) and keeps the loose photo uploaded with the
 * document; the job then reaches awaiting_grouping with every photo of the
 * document staged once, numbered consecutively after the loose photo.
 */
import type { ChildProcess } from 'node:child_process';
import {
  killed,
  selfKilled,
  startInProcessWorkers,
  startWorkerProcess,
  useEngineStage,
  type EngineStage,
} from '../support/engine';
import { flatJpeg } from '../support/pdf-drawing';
import { cardGridList, layoutTag, photoIndexOf } from '../support/pdf-fixtures';
import { cardGridPdfJob, handedOn, pdfNames, pdfPhotos, startPdfRead } from '../support/pdf-jobs';
import '../../lib/pipelines'; // the watchdog restarts a job through its pipeline, as functions/schedules/watchdog.ts
import { listNames } from '../../lib/blob/client';
import { blobKeys } from '../../lib/blob/keys';
import { putJpeg, readObject } from '../../lib/blob/objects';
import { getJob, putNewJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { readLiveLog } from '../../lib/jobs/log-store';
import { RESTARTING, runWatchdog } from '../../lib/orchestrator/recovery';
import { photoObjectKeys } from '../../lib/photos/rules';
import {
  getStagedPhoto,
  insertStagedPhotos,
  listStagedPhotos,
  newStagedPhoto,
} from '../../lib/photos/staged-photo-store';
import type { StagedPhoto } from '../../lib/photos/staged-photo-record-rules';

// About 120 photos: more than one insert of staged rows (99 a transaction), so the kill leaves some written, some not.
const PAGES = 20;
const PER_PAGE = 6;

let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;
let child: ChildProcess | null = null;
let fixture: Awaited<ReturnType<typeof cardGridList>>;

beforeAll(async () => {
  stage = await useEngineStage({}, 'engine-pdf-restart');
  // A layout of this file's own, so no template another suite learned matches it.
  const tag = layoutTag();
  fixture = await cardGridList({
    pages: PAGES,
    photosPerPage: PER_PAGE,
    header: `Restart Restoration ${tag} - Contents inventory - Claim 88-12345 - Insured: Jane Doe`,
    footerLines: [`Restart Restoration ${tag} - 12 Main Street`],
  });
}, 120_000);

afterEach(async () => {
  if (child) await killed(child);
  child = null;
  await workers?.stop();
  workers = null;
});

const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);
const photosPrefix = (job: Job) => `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/`;

/** A loose photo uploaded with the document, as the upload leaves it: orig_0000.jpg, its row and its object. */
async function uploadLoosePhoto(job: Job): Promise<{ row: StagedPhoto; jpeg: Buffer }> {
  const jpeg = await flatJpeg([200, 40, 40], 64, 48);
  const { filename, key } = photoObjectKeys(blobKeys.jobPrefix(job.team_id, job.claim_id, job.id), 0);
  const row = {
    ...newStagedPhoto({
      jobId: job.id,
      index: 0,
      filename,
      key,
      incomingKey: key,
      originalFilename: 'porch.jpg',
      capturedAt: null,
      sizeBytes: jpeg.length,
    }),
    normalized: true,
  };
  await putJpeg(key, jpeg);
  expect(await insertStagedPhotos(job.id, [row], ['importing_pdf'])).toBe('inserted');
  return { row, jpeg };
}

it('restarts a read whose worker died, clears what it wrote, keeps the loose photo and stages each photo once', async () => {
  const total = fixture.expected.photos.length;
  const job = await cardGridPdfJob(fixture.bytes, 'restart');
  // One loose photo came with the document: the document's photos are numbered after it.
  job.photo_count_hint = 1;
  job.photo_next_index = 1;
  await putNewJob(job);
  const loose = await uploadLoosePhoto(job);

  // The worker dies in the group stage right after its first batch of staged rows was saved (a hook in
  // tests/support/engine-worker-main.ts). Not during extract: a unit whose worker died is only sent again, the
  // run is not restarted; a stage's expired lease is what restarts it.
  child = await startWorkerProcess(stage, { ENGINE_KILL_AFTER_PHOTO_ROWS: '1' });
  await startPdfRead(job);
  expect(await selfKilled(child)).toBe('SIGKILL');

  expect(await getJob(job.id)).toMatchObject({
    status: 'importing_pdf',
    stage_name: 'group',
    stage_state: 'running',
    recovery_attempts: 0,
  });
  const written = await pdfPhotos(job.id);
  expect(written.length).toBeGreaterThan(0);
  expect(written.length).toBeLessThan(total);
  // Every photo was taken out before the group stage, so its objects are all there.
  expect(await listNames(photosPrefix(job))).toHaveLength(total + 1);

  // Far enough ahead that the lease (3 s) has expired and the job counts as quiet.
  const report = await runWatchdog(later(20));
  expect(report.jobs.recovered).toContain(job.id);
  expect(await getJob(job.id)).toMatchObject({
    status: 'importing_pdf',
    current_stage: RESTARTING,
    recovery_attempts: 1,
  });
  // Cleared before the restarted run starts: only the loose photo is left, row and object, and only its bytes
  // are still counted in the job's file size.
  expect(await listStagedPhotos(job.id)).toEqual([loose.row]);
  expect(await listNames(photosPrefix(job))).toEqual([loose.row.filename]);
  expect((await getJob(job.id))?.file_size_bytes).toBe(loose.jpeg.length);

  workers = startInProcessWorkers(stage);
  const done = await handedOn(job.id, 120_000);

  expect(done).toMatchObject({ preparation_error: null, recovery_attempts: 1 });
  expect(done.pdf_documents).toEqual([
    expect.objectContaining({ state: 'read', pages: PAGES, photos: total, message: null }),
  ]);
  expect((await readLiveLog(job.id)).map((l) => l.message)).toContain(`${RESTARTING} (stage group)`);

  // Numbered once, consecutively, after the loose photo: no duplicates, no gaps. (The restarted run takes fresh
  // numbers, past those the interrupted run took, so where they start is not pinned.)
  const staged = await pdfPhotos(job.id);
  expect(staged[0]?.index).toBeGreaterThan(loose.row.index);
  expect(staged.map((p) => p.filename)).toEqual(pdfNames(total, staged[0]?.index));
  // Each photo of the document once, in its order.
  const shown = await Promise.all(
    staged.map(async (p) => photoIndexOf((await readObject(p.key))?.body ?? Buffer.alloc(0))),
  );
  expect(shown).toEqual(fixture.expected.photos.map((p) => p.index));
  // The bucket holds these photos and the loose one: nothing of the interrupted run is left.
  expect(await listNames(photosPrefix(job))).toEqual([loose.row.filename, ...staged.map((p) => p.filename)].sort());
  // The job's file size counts each staged photo once.
  const rows = await listStagedPhotos(job.id);
  expect((await getJob(job.id))?.file_size_bytes).toBe(rows.reduce((sum, p) => sum + p.size_bytes, 0));
  // The loose photo is untouched.
  expect(await getStagedPhoto(job.id, loose.row.index)).toEqual(loose.row);
  expect((await readObject(loose.row.key))?.body.equals(loose.jpeg)).toBe(true);
}, 240_000);
