/**
 * Which frames a video chunk's call carries (spec: frames are picked by
 * density, the sharpest frame per time bucket), on the real pipeline with
 * settings the local service is started with: extraction measures each
 * frame's sharpness only when frames will share the chunks' time buckets;
 * when they should not but a short last chunk still puts two in one bucket,
 * the chunk stage measures those two.
 *
 * Runs on an engine stage of its own (tests/support/engine.ts) with the
 * workers in this process, so a setting changed here reaches them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetSettings } from '../../lib/config';
import '../../lib/pipelines';
import { listChunks, listFrames } from '../../lib/pipelines/video/run-store';
import { type EngineStage, setVisibilityTimeout, startInProcessWorkers, useEngineStage } from '../support/engine';
import { fakeGateway } from '../support/fake-gateway';
import { finishedJob, logMessages, startRecordingJob, uploadedJob } from '../support/recording-jobs';
import { makeWalkthrough } from '../support/walkthrough';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;
let dir: string;

beforeAll(async () => {
  stage = await useEngineStage(
    {
      OPENROUTER_BASE_URL: process.env.TEST_FAKE_GATEWAY_URL as string,
      OPENROUTER_API_KEY: 'fake-ai-gateway-key',
      OPENROUTER_TIMEOUT_SECONDS: '5',
      OPENROUTER_RETRY_BACKOFF_MS: '20',
      // Visual-only: these clips have no sound.
      TRANSCRIPTION_API_KEY: '',
    },
    'engine-video-frames',
  );
  await setVisibilityTimeout(stage.queues.stages, 120);
  await setVisibilityTimeout(stage.queues.units, 120);
  dir = mkdtempSync(join(tmpdir(), 'video-frames-'));
}, 120_000);

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A silent clip of `seconds` with one box, processed to the end; its frames and its one chunk. */
async function processClip(name: string, seconds: number) {
  const clip = readFileSync(
    makeWalkthrough(join(dir, `${name}.mp4`), {
      seconds,
      objects: [{ colour: 'red', from: 2, to: 5, box: { x: 0.2, y: 0.2, width: 0.3, height: 0.3 } }],
    }),
  );
  const job = await uploadedJob('video', clip, 'mp4');
  await gateway.script(`"${job.original_filename}"`, [{ items: [] }]);
  workers = startInProcessWorkers(stage);
  await startRecordingJob(job);
  const done = await finishedJob(job.id);
  expect(done.status).toBe('complete');
  const runId = done.run_id as string;
  const chunks = await listChunks(done.id, runId);
  expect(chunks).toHaveLength(1);
  return { job: done, frames: await listFrames(done.id, runId), chunk: chunks[0] };
}

it('leaves sharpness unmeasured at one frame a bucket, and measures the two a short last chunk puts in one', async () => {
  // 10.5 s at 1 frame a second: frames 0..10 s; 60 a minute makes 10 buckets of 1.05 s, the first holding 0 s and 1 s.
  const { job, frames, chunk } = await processClip('short-chunk', 10.5);
  expect(frames.map((f) => f.time)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(frames.every((f) => f.sharpness === null)).toBe(true);
  expect(await logMessages(job.id)).toContain('Measured the sharpness of 2 frame(s) sharing a time bucket');
  expect(chunk.frames.map((f) => f.time)).toEqual(expect.arrayContaining([2, 3, 4, 5, 6, 7, 8, 9, 10]));
  expect(chunk.frames).toHaveLength(10);
  const first = chunk.frames[0];
  expect([0, 1]).toContain(first.time);
  expect(first.sharpness).toEqual(expect.any(Number));
}, 90_000);

describe('at two frames a second', () => {
  const saved = process.env.FRAME_EXTRACTION_FPS;
  beforeAll(() => {
    process.env.FRAME_EXTRACTION_FPS = '2';
    resetSettings();
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.FRAME_EXTRACTION_FPS;
    else process.env.FRAME_EXTRACTION_FPS = saved;
    resetSettings();
  });

  it('measures every frame at extraction and sends the sharpest of each one-second bucket', async () => {
    const { job, frames, chunk } = await processClip('two-per-second', 8);
    expect(frames).toHaveLength(16);
    expect(frames.every((f) => typeof f.sharpness === 'number')).toBe(true);
    expect(await logMessages(job.id)).not.toContainEqual(expect.stringMatching(/^Measured the sharpness/));
    expect(chunk.frames).toHaveLength(8);
    chunk.frames.forEach((picked, bucket) => {
      const rivals = frames.filter((f) => f.time >= bucket && f.time < bucket + 1);
      expect(rivals).toHaveLength(2);
      expect(picked.sharpness).toBe(Math.max(...rivals.map((f) => f.sharpness as number)));
    });
  }, 90_000);
});
