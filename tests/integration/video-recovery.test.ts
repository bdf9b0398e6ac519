/**
 * The real video and audio pipelines on the real worker handlers, where the
 * end-to-end suite cannot reach: a worker SIGKILLed in the middle of frame
 * extraction (with the transcript branch unfinished, the run restarts; with
 * only a frames unit running, the unit is sent again), and a deployment
 * without a speech-to-text key (a setting the local service is started with,
 * so it cannot change it per test).
 *
 * Runs on an engine stage of its own (tests/support/engine.ts): its own
 * table, bucket and queues, a 3-second stage lease, workers in this process or
 * in a child process. The AI gateway and speech-to-text fakes are the run's
 * shared ones; their requests are told apart by the job's unique file name
 * (in every chunk's prompt) and the job id (the transcription tag).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, type _Object } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { eventually } from '../support/api';
import { bucket, s3 } from '../support/aws';
import {
  type EngineStage,
  killed,
  setVisibilityTimeout,
  startInProcessWorkers,
  startWorkerProcess,
  useEngineStage,
} from '../support/engine';
import { fakeGateway } from '../support/fake-gateway';
import { fakeSpeech, makeToneBursts } from '../support/fake-speech';
import { finishedJob, logMessages, startRecordingJob, uploadedJob } from '../support/recording-jobs';
import { makeWalkthrough, type WalkthroughObject } from '../support/walkthrough';
import { blobKeys } from '../../lib/blob/keys';
import { resetSettings } from '../../lib/config';
import { listItemPhotos, listJobItems } from '../../lib/inventory/item-store';
import { getJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { RESTARTING, runWatchdog } from '../../lib/orchestrator/recovery';
import { jobRunKind } from '../../lib/orchestrator/job-run-kind';
import { listUnits } from '../../lib/orchestrator/store';
import '../../lib/pipelines'; // the watchdog below runs before any worker has registered the pipelines
import { framePacksPrefix, readFrameImages } from '../../lib/pipelines/video/frame-packs';
import { listFrames } from '../../lib/pipelines/video/run-store';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const speech = fakeSpeech(process.env.TEST_FAKE_SPEECH_URL as string);

let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;
let dir: string;

beforeAll(async () => {
  stage = await useEngineStage(
    {
      // The run's fakes, with the keys global-setup starts them with; both this process and the child use them.
      OPENROUTER_BASE_URL: process.env.TEST_FAKE_GATEWAY_URL as string,
      OPENROUTER_API_KEY: 'fake-ai-gateway-key',
      OPENROUTER_TIMEOUT_SECONDS: '5',
      OPENROUTER_RETRY_BACKOFF_MS: '20',
      TRANSCRIPTION_BASE_URL: process.env.TEST_FAKE_SPEECH_URL as string,
      TRANSCRIPTION_API_KEY: 'fake-speech-key',
      TRANSCRIPTION_TIMEOUT_SECONDS: '10',
      TRANSCRIPTION_RETRY_BACKOFF_MS: '20',
      // One extraction unit at a time: the kill lands while the frames branch is still running.
      FRAME_EXTRACTION_CONCURRENCY: '1',
      STUCK_JOB_MINUTES: '15',
      STUCK_JOB_MINUTES_WITH_QUEUE: '30',
    },
    'engine-video',
  );
  // A video stage runs for seconds, longer than the engine stage's 10-second redelivery: a message handed
  // out again while its stage still runs (its 3-second lease long gone) would be taken for an interruption.
  await setVisibilityTimeout(stage.queues.stages, 120);
  await setVisibilityTimeout(stage.queues.units, 120);
  dir = mkdtempSync(join(tmpdir(), 'video-recovery-'));
}, 120_000);

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const box = (x: number, y: number) => ({ x, y, width: 0.2, height: 0.3 });
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

/** Every object under a prefix of the stage's bucket, with its last-modified time. */
async function objectsUnder(prefix: string): Promise<_Object[]> {
  const out: _Object[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix, ContinuationToken }));
    out.push(...(page.Contents ?? []));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return out;
}

const jobPrefix = (job: Job) => blobKeys.jobPrefix(job.team_id, job.claim_id, job.id);
const nameOf = (key: string) => key.slice(key.lastIndexOf('/') + 1);

describe('a video whose worker is killed during extraction', () => {
  // Four minutes: two 2-minute extraction units, eight 30-second chunks; one word of narration at 1:40 (the
  // same clip without its sound track too). The boxes and the word sit far from chunk boundaries.
  const SECONDS = 240;
  const objects: WalkthroughObject[] = [
    { colour: 'red', from: 10, to: 14, box: box(0.1, 0.1) },
    { colour: 'blue', from: 135, to: 139, box: box(0.6, 0.5) },
    { colour: 'green', from: 200, to: 204, box: box(0.4, 0.3) },
  ];
  const clips = {} as Record<'narrated' | 'silent', Buffer>;
  beforeAll(() => {
    const narrated = makeWalkthrough(join(dir, 'narrated.mp4'), {
      seconds: SECONDS,
      fps: 10,
      // Four minutes of grain that changes on every frame would be most of this file's work; no check needs it.
      changingGrain: false,
      objects,
      bursts: [[100, 100.4]],
    });
    const silent = join(dir, 'silent.mp4');
    // The same picture without its sound track: copied, not encoded again.
    const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';
    execFileSync(ffmpeg, ['-v', 'error', '-y', '-i', narrated, '-an', '-c', 'copy', silent]);
    clips.narrated = readFileSync(narrated);
    clips.silent = readFileSync(silent);
  }, 60_000);

  /** Starts the job on a worker process and kills it once `ready` holds while frames are landing in the bucket. */
  async function runOnWorkerProcessUntil(job: Job, ready: (job: Job) => Promise<boolean>): Promise<Job> {
    const packs = framePacksPrefix(job);
    const child = await startWorkerProcess(stage);
    try {
      await startRecordingJob(job);
      return await eventually(
        async () => {
          const now = await getJob(job.id);
          if (now?.branches?.frames?.state !== 'fanout' || !(await ready(now))) return null;
          return (await objectsUnder(packs)).length > 0 ? now : null;
        },
        60_000,
        100,
      );
    } finally {
      await killed(child);
      killedPids.push(child.pid as number);
    }
  }

  /** Worker processes killed by these tests: their transcription work directories must not outlive the run. */
  const killedPids: number[] = [];

  /**
   * What a clean finish looks like, whichever way the run recovered: the items once, the run's frames and
   * pictures only (a close-up and a context view per box, the nearest frame for a word), billed once.
   */
  async function expectCleanFinish(
    job: Job,
    recoveryAttempts: number,
    expected: { items: string[]; pictures: number },
  ) {
    workers = startInProcessWorkers(stage);
    const done = await finishedJob(job.id);
    expect(done).toMatchObject({
      status: 'complete',
      recovery_attempts: recoveryAttempts,
      items_found: expected.items.length,
      total_frames: SECONDS,
      // Four minutes are 12 blocks of 20 s at 3 credits (billing is off on this stage: nothing is charged).
      billed_blocks: 12,
      billed_cost_usd: 36,
      billing_finalized_at: expect.any(String),
    });
    const run = done.run_id as string;

    // The items once each, numbered from 1, in video-time order.
    const items = (await listJobItems(job.id)).sort((a, b) => a.item_number - b.item_number);
    expect(items.map((i) => i.name)).toEqual(expected.items);
    expect(items.map((i) => i.item_number)).toEqual(expected.items.map((_, n) => n + 1));

    // The run's frames, one per second; the bucket's frame packs are exactly the ones they are in, and each
    // frame's bytes there are a JPEG of its recorded size.
    const recorded = await listFrames(job.id, run);
    expect(recorded).toHaveLength(SECONDS);
    const stored = (await objectsUnder(framePacksPrefix(job))).map((o) => nameOf(o.Key as string)).sort();
    const referenced = new Set(recorded.flatMap((f) => [`${f.packed.pack}.frames`, `${f.packed.pack}.previews`]));
    expect(stored).toEqual([...referenced].sort());
    const images = await readFrameImages(job, recorded, 'frame');
    const sizes = await Promise.all(images.map((jpeg) => sharp(jpeg).metadata()));
    expect(sizes.map((m) => [m.format, m.width, m.height])).toEqual(recorded.map((f) => ['jpeg', f.width, f.height]));

    // The pictures are only this run's, and each is an item's.
    const pictures = (await objectsUnder(`${jobPrefix(job)}photos/`)).map((o) => nameOf(o.Key as string));
    expect(pictures).toHaveLength(expected.pictures);
    expect(pictures.every((name) => name.startsWith(`vid_${run.slice(0, 8)}_`))).toBe(true);
    const photoRows = (await Promise.all(items.map((i) => listItemPhotos(i.id, { consistent: true })))).flat();
    expect(photoRows.map((p) => nameOf(p.key)).sort()).toEqual([...pictures].sort());

    // A killed worker's speech-track directory in /tmp is swept by the next transcription.
    const workDirs = readdirSync(tmpdir()).filter((d) => killedPids.some((pid) => d.startsWith(`transcribe-${pid}-`)));
    expect(workDirs).toEqual([]);

    // One AI call per chunk (the killed worker never reached the analysis); billed once.
    expect(await gateway.requests(job.original_filename as string)).toHaveLength(SECONDS / 30);
    const log = await logMessages(job.id);
    expect(log.filter((m) => m.startsWith('Complete:'))).toEqual([
      `Complete: ${expected.items.length} items, 36 credits`,
    ]);
    return done;
  }

  it('restarts the run when the worker died with the transcript unfinished: its frames cleared, items once', async () => {
    const job = await uploadedJob('video', clips.narrated, 'mp4');
    await speech.script(['Piano.'], job.id);
    // Frames are landing and the sound track is still being transcribed.
    const killedIn = await runOnWorkerProcessUntil(job, async (now) => now.branches?.transcribe?.state === 'running');
    expect(killedIn.status).toBe('extracting');
    // Frames land in packs of 30 (a .frames and a .previews object each): some had landed, not all 240.
    const leftBehind = await objectsUnder(framePacksPrefix(job));
    expect(leftBehind.length).toBeGreaterThan(0);
    expect(leftBehind.length).toBeLessThan((SECONDS / 30) * 2);

    // The branch's 3-second lease runs out: its worker is gone. The watchdog takes it for an interruption.
    await eventually(async () => {
      const lease = (await getJob(job.id))?.branches?.transcribe?.lease_until;
      return Boolean(lease && lease < new Date().toISOString());
    });
    const restartedAt = new Date();
    expect((await runWatchdog(later(20))).recovered).toBe(1);
    const restarted = (await getJob(job.id)) as Job;
    expect(restarted).toMatchObject({ status: 'pending', current_stage: RESTARTING, recovery_attempts: 1 });
    expect(restarted.run_id).not.toBe(killedIn.run_id);
    // The interrupted run's frames are gone before the new run starts.
    expect(await objectsUnder(framePacksPrefix(job))).toEqual([]);

    const done = await expectCleanFinish(job, 1, { items: ['Red box', 'Piano', 'Blue box', 'Green box'], pictures: 7 });
    expect(done.run_id).toBe(restarted.run_id);
    // Every frame in the bucket was written by the new run.
    const restartSecond = Math.floor(restartedAt.getTime() / 1000) * 1000;
    const stored = await objectsUnder(framePacksPrefix(job));
    expect(stored.every((o) => (o.LastModified as Date).getTime() >= restartSecond)).toBe(true);
    expect((await logMessages(job.id)).filter((m) => m.startsWith(RESTARTING))).toHaveLength(1);
  }, 120_000);

  it('sends a frames unit whose worker died again: the same run goes on, its frames written once', async () => {
    const job = await uploadedJob('video', clips.silent, 'mp4');
    // The transcript branch is done (no sound); only the frames branch is left, and one of its units is running.
    const killedIn = await runOnWorkerProcessUntil(job, async (now) => now.branches?.transcribe?.state === 'done');
    expect(killedIn.status).toBe('extracting');
    const running = (await listUnits(jobRunKind, killedIn, 'extract/frames')).filter((u) => u.state === 'running');
    expect(running).toHaveLength(1);

    // The unit's 3-second lease runs out; the watchdog sends it again, in the same run.
    await eventually(async () => {
      const units = await listUnits(jobRunKind, killedIn, 'extract/frames');
      const unit = units.find((u) => u.index === running[0].index);
      return Boolean(unit && unit.lease_until < new Date().toISOString());
    });
    expect((await runWatchdog(later(20))).requeued).toBe(1);
    expect(await getJob(job.id)).toMatchObject({ run_id: killedIn.run_id, recovery_attempts: 0 });

    const done = await expectCleanFinish(job, 0, { items: ['Red box', 'Blue box', 'Green box'], pictures: 6 });
    expect(done.run_id).toBe(killedIn.run_id);
    const units = await listUnits(jobRunKind, done, 'extract/frames');
    expect(units.find((u) => u.index === running[0].index)).toMatchObject({ state: 'done', attempts: 2 });
    expect(await logMessages(job.id)).not.toContainEqual(expect.stringMatching(RESTARTING));
  }, 120_000);
});

describe('without a speech-to-text key', () => {
  const saved = process.env.TRANSCRIPTION_API_KEY;
  beforeAll(() => {
    // Settings are read once per process: drop the key and read them again (the workers run in this process).
    process.env.TRANSCRIPTION_API_KEY = '';
    resetSettings();
  });
  afterAll(() => {
    process.env.TRANSCRIPTION_API_KEY = saved;
    resetSettings();
  });

  it('reads a video with sound visual-only, with a warning, and never calls the provider', async () => {
    const clip = readFileSync(
      makeWalkthrough(join(dir, 'sound.mp4'), {
        seconds: 12,
        objects: [{ colour: 'yellow', from: 2, to: 5, box: box(0.3, 0.3) }],
        bursts: [[7, 7.4]],
      }),
    );
    const job = await uploadedJob('video', clip, 'mp4');
    // Were the narration heard, it would add a "Piano" item.
    await speech.script(['Piano.'], job.id);
    workers = startInProcessWorkers(stage);
    await startRecordingJob(job);
    const done = await finishedJob(job.id);
    expect(done).toMatchObject({ status: 'complete', items_found: 1, transcript: null });
    expect((await listJobItems(job.id)).map((i) => i.name)).toEqual(['Yellow box']);
    expect(await logMessages(job.id)).toContain(
      'Speech-to-text is not configured (TRANSCRIPTION_API_KEY): the video is read visual-only',
    );
    expect(await speech.requests(job.id)).toEqual([]);
  }, 60_000);

  it('ends a voice note in error: it cannot be read without speech-to-text', async () => {
    const note = makeToneBursts(
      join(dir, 'note.m4a'),
      [
        [1, 1.4],
        [3, 3.4],
      ],
      6,
    );
    const job = await uploadedJob('audio', note, 'm4a');
    workers = startInProcessWorkers(stage);
    await startRecordingJob(job);
    const done = await finishedJob(job.id);
    expect(done).toMatchObject({ status: 'error', items_found: 0, billing_charged: false });
    expect(done.error_message).toMatch(/speech-to-text, which is not configured .*Nothing was charged/);
    expect(await listJobItems(job.id)).toEqual([]);
    expect(await speech.requests(job.id)).toEqual([]);
    expect(await gateway.requests(job.original_filename as string)).toEqual([]);
  }, 60_000);
});
