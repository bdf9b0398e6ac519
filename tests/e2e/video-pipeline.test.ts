/**
 * The video and audio pipelines end to end over real HTTP, on clips made with
 * ffmpeg and espeak-ng at test time: upload through presigned parts →
 * complete → process → numbered items with close-ups in video-time order.
 *
 * The fake AI gateway reads the frames it is sent (coloured boxes on a grey
 * background become "<Colour> box" items, with the box it sees) and the
 * narration (each word an item); the fake speech-to-text provider hears each
 * tone burst or spoken word as one word of its script. Both are shared by the
 * run: scripts and failures are scoped by the unique file name each test
 * uploads (it is in every chunk's prompt) or the job id (the transcription
 * tag).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { RecordedSpan } from '../fakes/otlp-collector';
import { Client, eventually, serviceUrl } from '../support/api';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway } from '../support/fake-gateway';
import { fakeOtlp } from '../support/fake-otlp';
import { fakeSpeech } from '../support/fake-speech';
import { newTeamMember } from '../support/tokens';
import { chunkedUpload, newRoom, photoJob, smallPng, type TestRoom, waitForDuration } from '../support/uploads';
import { makeVoiceNote, makeWalkthrough, type WalkthroughObject } from '../support/walkthrough';
import { signalId } from '../support/outbound-ids';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const speech = fakeSpeech(process.env.TEST_FAKE_SPEECH_URL as string);
const otlp = fakeOtlp(process.env.TEST_FAKE_OTLP_URL as string);

const box = (x: number, y: number, width = 0.2, height = 0.3) => ({ x, y, width, height });

// Chunks of 30 s: [0, 30), [30, 60), [60, 75].
const walkthroughObjects: WalkthroughObject[] = [
  { colour: 'green', from: 5, to: 7, box: box(0.05, 0.1) },
  { colour: 'red', from: 8, to: 12, box: box(0.6, 0.5) },
  // Across the first boundary, within the 3 s window on both sides: one item.
  { colour: 'blue', from: 28, to: 32, box: box(0.4, 0.3) },
  // The same colour 45 s later, far from any shared boundary: a second item.
  { colour: 'green', from: 50, to: 53, box: box(0.7, 0.1) },
  { colour: 'yellow', from: 62, to: 70, box: box(0.3, 0.6, 0.25, 0.25) },
];

const KINDS = {
  keyframes: { keyframeIntervalSeconds: 1 },
  sparse: { keyframeIntervalSeconds: 10 },
  vfr: { variableFrameRate: true },
} as const;

/**
 * Every clip is made before the first request: making one blocks this process for seconds, long enough for
 * the service to close an idle keep-alive connection that the next request would then find dead.
 */
let dir: string;
const clips = {} as Record<'walkthrough' | 'failing' | 'half' | 'deaf' | keyof typeof KINDS, Buffer> & {
  note: Buffer;
};
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'video-e2e-'));
  // 10 frames a second without the grain that changes on every frame: the pipeline takes one frame a second, and
  // such clips are a quarter of the work to make (the frame pick does not depend on the grain here).
  const make = (name: string, options: Parameters<typeof makeWalkthrough>[1]) =>
    readFileSync(makeWalkthrough(join(dir, `${name}.mp4`), { fps: 10, changingGrain: false, ...options }));
  clips.walkthrough = make('walkthrough', {
    seconds: 75,
    // Frames keep this size (FRAME_LONG_EDGE_PX is 1600); the model gets them at 768 px.
    width: 960,
    height: 540,
    objects: walkthroughObjects,
    // Two words of narration: at 0:15 (first chunk) and 0:40 (second chunk).
    bursts: [
      [15, 15.4],
      [40, 40.4],
    ],
  });
  clips.failing = make('failing', { seconds: 20, objects: [{ colour: 'red', from: 2, to: 4, box: box(0.1, 0.1) }] });
  clips.half = make('half', {
    seconds: 45,
    objects: [
      { colour: 'cyan', from: 3, to: 6, box: box(0.2, 0.2) },
      { colour: 'magenta', from: 35, to: 40, box: box(0.5, 0.5) },
    ],
  });
  clips.deaf = make('deaf', {
    seconds: 12,
    objects: [{ colour: 'yellow', from: 2, to: 5, box: box(0.3, 0.3) }],
    bursts: [[6, 6.4]],
  });
  for (const [kind, options] of Object.entries(KINDS))
    clips[kind as keyof typeof KINDS] = make(kind, {
      seconds: 20,
      objects: [{ colour: 'blue', from: 14, to: 16, box: box(0.5, 0.2) }],
      ...options,
    });
  const words = ['lamp', 'chair', 'desk', 'rug', 'couch'];
  clips.note = readFileSync(makeVoiceNote(join(dir, 'note.m4a'), words, { gapSeconds: 1.5, totalSeconds: 90 }).path);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tag = () => randomUUID().slice(0, 8);

async function team(balance: number): Promise<{ client: Client; room: TestRoom; teamId: number }> {
  const member = newTeamMember();
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, room: await newRoom(client, 'Living room'), teamId: member.current_team_id };
}

/** Uploads a file, waits for its measured duration, and returns the job (awaiting_confirmation: billing is on). */
async function upload(client: Client, room: TestRoom, bytes: Buffer, filename: string, kind: 'video' | 'audio') {
  const { job } = await chunkedUpload(client, room, bytes, { kind, filename });
  expect(job).toMatchObject({ status: 'awaiting_confirmation', pipeline_available: true });
  await waitForDuration(job.id);
  return job.id as string;
}

async function startProcessing(client: Client, jobId: string) {
  const res = await client.post(`/api/jobs/${jobId}/process`);
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * Polls the job until it ends, recording every (status, progress) it was seen
 * in; `onStatus` hears each new one.
 */
async function finish(
  client: Client,
  jobId: string,
  { timeoutMs = 120_000, onStatus }: { timeoutMs?: number; onStatus?: (status: string) => Promise<void> } = {},
) {
  const seen: { status: string; progress: number }[] = [];
  const job = await eventually(
    async () => {
      const res = await client.get(`/api/jobs/${jobId}`);
      const last = seen[seen.length - 1];
      if (!last || last.status !== res.body.status || last.progress !== res.body.progress_pct) {
        seen.push({ status: res.body.status, progress: res.body.progress_pct });
        await onStatus?.(res.body.status);
      }
      return ['complete', 'error'].includes(res.body.status) ? res.body : null;
    },
    timeoutMs,
    150,
  );
  return { job, seen };
}

async function inventory(client: Client, jobId: string): Promise<any[]> {
  const res = await client.get(`/api/inventory/${jobId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The bytes behind a capability URL (the service answers with a redirect to the bucket). */
async function fetchBytes(path: string): Promise<Buffer> {
  const res = await fetch(`${serviceUrl()}${path}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Mean red, green and blue of a JPEG. */
async function meanColour(jpeg: Buffer): Promise<[number, number, number]> {
  const { channels } = await sharp(jpeg).stats();
  return [channels[0].mean, channels[1].mean, channels[2].mean];
}

describe('video pipeline: a walkthrough into items', () => {
  let client: Client;
  let room: TestRoom;
  let teamId: number;
  let jobId: string;
  let filename: string;
  let seen: { status: string; progress: number }[];
  let job: any;

  beforeAll(async () => {
    ({ client, room, teamId } = await team(100));
    // An item already in the claim (another room): the video's numbers continue after it.
    const other = await client.post(`/api/claims/${room.claim_id}/rooms`, { name: 'Hallway' });
    expect(other.status).toBe(201);
    const { jobId: photoJobId } = await photoJob(client, other.body.id, [await smallPng(3)], [`coat-${tag()}.png`]);
    const staged = (await client.get(`/api/jobs/${photoJobId}/staged-photos`)).body;
    await client.put(`/api/jobs/${photoJobId}/staged-photos/details`, {
      ids: [staged[0].id],
      name: 'Coat rack',
      quantity: null,
    });
    await startProcessing(client, photoJobId);
    expect((await finish(client, photoJobId)).job).toMatchObject({ status: 'complete', items_found: 1 });

    filename = `walkthrough-${tag()}.mp4`;
    jobId = await upload(client, room, clips.walkthrough, filename, 'video');
    await speech.script(['Television.', 'Piano.'], jobId);
    // The transcript is held back until the job is seen waiting for it (transcribing), for 8 s at most: under
    // the tests' 10 s transcription timeout, so it stays one request.
    await speech.hold(jobId, 8000);
    try {
      const started = await startProcessing(client, jobId);
      // 75 s is 4 blocks of 20 s at 3 credits, spent up front.
      expect(started).toMatchObject({ status: 'pending', billing_charged: true, billing_amount: 12 });
      ({ job, seen } = await finish(client, jobId, {
        onStatus: async (status) => {
          if (status === 'transcribing') await speech.release(jobId);
        },
      }));
    } finally {
      await speech.release(jobId);
    }
  }, 240_000);

  it('completes, billed per block of the video', async () => {
    expect(job).toMatchObject({
      status: 'complete',
      progress_pct: 100,
      duration: expect.closeTo(75, 0),
      total_frames: 75,
      items_found: 7,
      billed_blocks: 4,
      billed_cost_usd: 12,
      billing_refunded: false,
      ai_api_calls: 3,
    });
    expect(await fakeBilling.balance(teamId)).toBe(100 - 12);
  });

  it('shows extracting while frames are written, transcribing once only the transcript is left, 40 % after both', async () => {
    const statuses = seen.map((s) => s.status).filter((s, i, all) => s !== all[i - 1]);
    // Polling is sure to see extracting and transcribing (the transcript is held until transcribing is seen). The
    // chunk, analysis and synthesis stages can each take a fraction of a second on a fast machine, so their order
    // is read from the job's log, which records each stage as it starts.
    expect(statuses).toEqual(expect.arrayContaining(['extracting', 'transcribing', 'complete']));
    expect(statuses.indexOf('extracting')).toBeLessThan(statuses.indexOf('transcribing'));
    expect(statuses.indexOf('transcribing')).toBeLessThan(statuses.indexOf('complete'));
    const lines: Array<{ message: string }> = (await client.get(`/api/jobs/${jobId}/logs`)).body.lines;
    const started = lines.flatMap((line) => /^Stage (\w+) started/.exec(line.message)?.[1] ?? []);
    expect(started).toEqual(['probe', 'extract', 'chunk', 'analyze', 'synthesize']);
    for (const s of seen) {
      if (s.status === 'extracting' || s.status === 'transcribing') expect(s.progress).toBeLessThanOrEqual(40);
      // 40 % once both branches are done; the chunk stage ends at 55 %.
      if (s.status === 'segmenting') expect([40, 55]).toContain(s.progress);
      if (s.status === 'analyzing') expect(s.progress).toBeGreaterThanOrEqual(55);
      if (s.status === 'synthesizing') expect(s.progress).toBeGreaterThanOrEqual(85);
    }
  });

  it('saves the items in video-time order, numbered after the claim, boxes merged only across a near boundary', async () => {
    const items = await inventory(client, jobId);
    expect(items.map((i) => i.name)).toEqual([
      'Green box',
      'Red box',
      'Television',
      'Blue box',
      'Piano',
      'Green box',
      'Yellow box',
    ]);
    expect(items.map((i) => i.item_number)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(items[1].notes).toBe('Seen at 0:08 in the video.');
    expect(items[4].notes).toBe('Seen at 0:40 in the video.');
  });

  it('gives each seen item a close-up of its box (primary) and a wider context view', async () => {
    const items = await inventory(client, jobId);
    const red = items.find((i) => i.name === 'Red box');
    expect(red.photos).toHaveLength(2);
    const [close, context] = red.photos;
    expect(close.is_primary).toBe(true);
    expect(red.photo_path).toBe(close.url);
    const closeJpeg = await fetchBytes(close.url);
    const contextJpeg = await fetchBytes(context.url);
    const [r, g, b] = await meanColour(closeJpeg);
    // The close-up is mostly the red box; the context view around it mostly the grey room.
    expect(r).toBeGreaterThan(170);
    expect(g).toBeLessThan(110);
    expect(b).toBeLessThan(110);
    const [cr] = await meanColour(contextJpeg);
    expect(cr).toBeLessThan(r);
    const closeSize = await sharp(closeJpeg).metadata();
    const contextSize = await sharp(contextJpeg).metadata();
    // The box is 192 x 162 px on a 960 x 540 frame: padded 15 % a side, and 2.5 times it for the context.
    expect(closeSize).toMatchObject({ width: expect.closeTo(250, -0.5), height: expect.closeTo(211, -0.5) });
    expect(contextSize).toMatchObject({ width: expect.closeTo(480, -0.5), height: expect.closeTo(405, -0.5) });
    // An item only named in the narration gets the frame nearest to when it was named.
    const piano = items.find((i) => i.name === 'Piano');
    expect(piano.photos).toHaveLength(1);
    expect(await sharp(await fetchBytes(piano.photos[0].url)).metadata()).toMatchObject({ width: 960, height: 540 });
  });

  it('lists and serves the extracted frames; a traversal name is 404', async () => {
    const res = await client.get(`/api/jobs/${jobId}/frames`);
    expect(res.status).toBe(200);
    expect(res.body.frames).toHaveLength(75);
    expect(res.body.frames[0].name).toBe('frame_000000.000.jpg');
    expect(res.body.frames[74].name).toBe('frame_000074.000.jpg');
    const frame = await fetchBytes(res.body.frames[9].url);
    const [r, g] = await meanColour(frame);
    expect(r).toBeGreaterThan(g); // 0:09 shows the red box
    expect(await sharp(frame).metadata()).toMatchObject({ width: 960, height: 540, format: 'jpeg' });
    const bad = await fetch(`${serviceUrl()}/api/jobs/${jobId}/frames/..%2F..%2Fmedia%2F${filename}`, {
      redirect: 'manual',
    });
    expect(bad.status).toBe(404);
  });

  it('sends each chunk its frames at 768 px and its slice of the narration', async () => {
    const requests = await gateway.requests(filename);
    expect(requests).toHaveLength(3);
    const first = requests.find((r) => r.text.includes('from 0:00 to 0:30'));
    expect(first?.labels).toHaveLength(30);
    expect(first?.images.every((i) => i.width === 768 && i.height === 432)).toBe(true);
    expect(first?.text).toContain('[0:15] Television.');
    expect(first?.text).not.toContain('Piano');
    const last = requests.find((r) => r.text.includes('from 1:00 to 1:15'));
    expect(last?.labels).toHaveLength(15);
    expect(last?.text).toContain('Nothing was said during this part');
  });

  it('keeps the transcript and per-stage timings', async () => {
    const metrics = await client.get(`/api/jobs/${jobId}/metrics`);
    expect(metrics.status).toBe(200);
    expect(Object.keys(metrics.body.stage_timings)).toEqual(
      expect.arrayContaining(['probe', 'extract', 'chunk', 'analyze', 'synthesize']),
    );
    expect(metrics.body.ai.api_calls).toBe(3);
    expect(metrics.body.billing).toMatchObject({ credits: 12, blocks: 4 });
    const requests = await speech.requests(jobId);
    expect(requests).toHaveLength(1);
    expect(requests[0].content_type).toBe('audio/ogg');
  });

  it('is one trace: the branches side by side and their units are stage spans under the job.process root', async () => {
    const spans = await eventually(async () => {
      const found = await otlp.spans(signalId(jobId));
      return found.some((s) => s.name === 'job.process') ? found : null;
    }, 30_000);
    const root = spans.find((s) => s.name === 'job.process') as RecordedSpan;
    expect(root.attributes).toMatchObject({ 'job.pipeline': 'video', 'job.outcome': 'complete' });
    const names = spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'stage.probe',
        'stage.extract.frames',
        'stage.extract.frames.unit',
        'stage.extract.transcribe',
        'stage.chunk',
        'stage.analyze',
        'stage.analyze.unit',
        'stage.synthesize',
      ]),
    );
    // One unit per 2-minute stretch (75 s: one), one per chunk (three).
    expect(names.filter((n) => n === 'stage.extract.frames.unit')).toHaveLength(1);
    expect(names.filter((n) => n === 'stage.analyze.unit')).toHaveLength(3);
    for (const span of spans.filter((s) => s !== root)) {
      expect(span.traceId).toBe(root.traceId);
      expect(span.parentSpanId).toBe(root.spanId);
    }
    // The branches ran side by side: the frames unit and the transcription overlapped in time.
    const framesUnit = spans.find((s) => s.name === 'stage.extract.frames.unit') as RecordedSpan;
    const transcribe = spans.find((s) => s.name === 'stage.extract.transcribe') as RecordedSpan;
    expect(BigInt(framesUnit.startTimeUnixNano)).toBeLessThan(BigInt(transcribe.endTimeUnixNano));
    expect(BigInt(transcribe.startTimeUnixNano)).toBeLessThan(BigInt(framesUnit.endTimeUnixNano));
  });

  it('answers 404 to another team on every job route', async () => {
    const mallory = await Client.signIn(newTeamMember());
    for (const path of ['', '/frames', '/metrics', '/logs', '/quote'])
      expect((await mallory.get(`/api/jobs/${jobId}${path}`)).status).toBe(404);
    expect((await mallory.post(`/api/jobs/${jobId}/process`)).status).toBe(404);
    expect((await mallory.post(`/api/jobs/${jobId}/cancel`)).status).toBe(404);
    expect((await mallory.get(`/api/inventory/${jobId}`)).status).toBe(404);
  });
});

describe('video pipeline: failures and clip kinds', () => {
  it('ends in error with the charge refunded when every AI call failed', async () => {
    const { client, room, teamId } = await team(20);
    const filename = `failing-${tag()}.mp4`;
    const jobId = await upload(client, room, clips.failing, filename, 'video');
    await gateway.failNext('500', 10, filename);
    await startProcessing(client, jobId);
    const { job } = await finish(client, jobId);
    expect(job.status).toBe('error');
    expect(job.error_message).toMatch(/Every AI request for this video failed/);
    const refunded = await eventually(async () => {
      const res = await client.get(`/api/jobs/${jobId}`);
      return res.body.billing_refunded ? res.body : null;
    });
    expect(refunded).toMatchObject({ billing_charged: true, billed_cost_usd: 0 });
    expect(await fakeBilling.balance(teamId)).toBe(20);
    expect(await inventory(client, jobId)).toEqual([]);
  }, 120_000);

  it('never bills the stretch whose AI call failed, and reads a silent video visual-only', async () => {
    const { client, room, teamId } = await team(20);
    const filename = `half-${tag()}.mp4`;
    const jobId = await upload(client, room, clips.half, filename, 'video');
    // The second chunk (0:30 to 0:45) fails on every attempt.
    await gateway.failNext('500', 10, `"${filename}" from 0:30`);
    await startProcessing(client, jobId);
    const { job } = await finish(client, jobId);
    // 45 s is 3 blocks (9 credits) up front; 30 s answered is 2 blocks (6 credits) billed.
    expect(job).toMatchObject({ status: 'complete', items_found: 1, billed_blocks: 2, billed_cost_usd: 6 });
    expect((await inventory(client, jobId)).map((i) => i.name)).toEqual(['Cyan box']);
    await eventually(async () => ((await fakeBilling.balance(teamId)) === 14 ? true : null));
    const logs = (await client.get(`/api/jobs/${jobId}/logs`)).body;
    expect(JSON.stringify(logs)).toContain('The video has no sound: it is read visual-only');
    expect(await speech.requests(jobId)).toHaveLength(0);
  }, 120_000);

  it('goes on visual-only when speech-to-text keeps failing', async () => {
    const { client, room } = await team(20);
    const filename = `deaf-${tag()}.mp4`;
    const jobId = await upload(client, room, clips.deaf, filename, 'video');
    await speech.failNext('401', 5, jobId);
    await startProcessing(client, jobId);
    const { job } = await finish(client, jobId);
    expect(job).toMatchObject({ status: 'complete', items_found: 1 });
    expect((await inventory(client, jobId)).map((i) => i.name)).toEqual(['Yellow box']);
    const logs = JSON.stringify((await client.get(`/api/jobs/${jobId}/logs`)).body);
    expect(logs).toMatch(/Transcription failed \(.*401.*\): the video is read visual-only/);
  }, 120_000);

  it.each([
    ['a clip with a keyframe every second (keyframe-only decode)', 'keyframes', 'keyframes only'],
    ['a clip with sparse keyframes (every frame decoded)', 'sparse', 'every frame decoded'],
    ['a phone-style variable-frame-rate clip', 'vfr', 'every frame decoded'],
  ] as const)(
    'reads %s',
    async (_, kind, decode) => {
      const { client, room } = await team(20);
      const filename = `kind-${tag()}.mp4`;
      const jobId = await upload(client, room, clips[kind], filename, 'video');
      await startProcessing(client, jobId);
      const { job } = await finish(client, jobId);
      expect(job).toMatchObject({ status: 'complete', items_found: 1, billed_cost_usd: 3 });
      expect(job.total_frames).toBeGreaterThanOrEqual(19);
      expect(job.total_frames).toBeLessThanOrEqual(20);
      const [item] = await inventory(client, jobId);
      expect(item.name).toBe('Blue box');
      expect(item.notes).toMatch(/^Seen at 0:1[456] in the video\.$/);
      const logs = JSON.stringify((await client.get(`/api/jobs/${jobId}/logs`)).body);
      expect(logs).toContain(decode);
    },
    120_000,
  );
});

describe('audio pipeline: a voice note into items', () => {
  it('names one item per spoken thing, in order, without photos; 90 s is 5 blocks', async () => {
    const { client, room, teamId } = await team(10);
    const filename = `note-${tag()}.m4a`;
    const jobId = await upload(client, room, clips.note, filename, 'audio');
    await speech.script(['Lamp.', 'Chair.', 'Desk.', 'Rug.', 'Couch.'], jobId);
    const started = await startProcessing(client, jobId);
    expect(started).toMatchObject({ billing_amount: 5 });
    const { job, seen } = await finish(client, jobId);
    expect(job).toMatchObject({
      status: 'complete',
      items_found: 5,
      billed_blocks: 5,
      billed_cost_usd: 5,
      duration: expect.closeTo(90, 0),
    });
    expect(seen.map((s) => s.status)).toContain('transcribing');
    const items = await inventory(client, jobId);
    expect(items.map((i) => i.name)).toEqual(['Lamp', 'Chair', 'Desk', 'Rug', 'Couch']);
    expect(items.map((i) => i.item_number)).toEqual([1, 2, 3, 4, 5]);
    expect(items.every((i) => i.photos.length === 0 && i.photo_path === null)).toBe(true);
    expect(items[0].notes).toMatch(/^Named at 0:0[12] in the recording\.$/);
    expect(await fakeBilling.balance(teamId)).toBe(5);
    const requests = await gateway.requests(filename);
    expect(requests).toHaveLength(1);
    expect(requests[0].images).toHaveLength(0);
  }, 120_000);
});
