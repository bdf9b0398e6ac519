/**
 * The fake AI gateway's vision mode (tests/fakes/ai-vision.ts) on a real
 * walkthrough clip made with ffmpeg: frames extracted by lib/media/frames.ts,
 * sent by the real AiGatewayClient with the real video and audio prompts,
 * labels and answer schemas, exactly as the pipelines send them. Scripts and
 * injected failures still win over it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { AiGatewayError, type VisionRequest } from '../../../lib/integrations/ai-call';
import { AiGatewayClient } from '../../../lib/integrations/ai-gateway';
import { frameName } from '../../../lib/media/extraction-rules';
import { extractFrames } from '../../../lib/media/frames';
import { AUDIO_ANSWER_JSON_SCHEMA, audioItem } from '../../../lib/pipelines/audio/answer-schemas';
import { audioSystemPrompt, audioUserText } from '../../../lib/pipelines/audio/prompt-rules';
import { VIDEO_ANSWER_JSON_SCHEMA, videoItem } from '../../../lib/pipelines/video/answer-schemas';
import type { TimedWord } from '../../../lib/pipelines/video/chunk-rules';
import { chunkUserText, frameLabel, videoSystemPrompt } from '../../../lib/pipelines/video/prompt-rules';
import { type FakeAiGateway, startFakeAiGateway } from '../../fakes/ai-gateway-server';
import { hasFfmpeg } from '../../support/media';
import { type FractionBox, makeWalkthrough } from '../../support/walkthrough';

const maybe = hasFfmpeg ? describe : describe.skip;

const SMALL_RED: FractionBox = { x: 0.1, y: 0.15, width: 0.15, height: 0.2 };
const LARGE_RED: FractionBox = { x: 0.05, y: 0.1, width: 0.35, height: 0.5 };
const BLUE: FractionBox = { x: 0.55, y: 0.45, width: 0.3, height: 0.35 };
const WORDS: TimedWord[] = [
  { word: 'Oak', start: 2.4, end: 2.7 },
  { word: 'desk.', start: 2.8, end: 3.2 },
  { word: 'old', start: 8.7, end: 9.0 },
  { word: 'rug', start: 9.1, end: 9.5 },
];
const BOX_TOLERANCE = 0.05;

let fake: FakeAiGateway;
let dir: string;
let frames: { name: string; time: number; jpeg: Buffer }[];

const client = () =>
  new AiGatewayClient({
    baseUrl: fake.url,
    apiKey: fake.apiKey,
    model: 'google/gemini-2.5-flash',
    temperature: 0,
    maxAttempts: 1,
    backoffMs: 5,
    timeoutMs: 10_000,
    recorder: () => undefined,
  });

const context = { jobId: 'job-1', teamId: 'team-1', purpose: 'video-chunk' };

/** One video chunk's request as the video pipeline builds it. */
function videoRequest(sent = frames, words = WORDS, chunk = { start: 0, end: 12 }): VisionRequest {
  return {
    system: videoSystemPrompt(),
    text: chunkUserText({ chunk, frames: sent, words }),
    images: sent.map((f) => ({ label: frameLabel(f), jpeg: f.jpeg })),
    maxTokens: 4000,
    responseFormat: VIDEO_ANSWER_JSON_SCHEMA,
    context,
  };
}

async function itemsOf(request: VisionRequest): Promise<Record<string, any>[]> {
  const answer = await client().complete(request);
  return JSON.parse(answer.content).items;
}

function expectBox(actual: FractionBox, drawn: FractionBox) {
  for (const key of ['x', 'y', 'width', 'height'] as const)
    expect(Math.abs(actual[key] - drawn[key])).toBeLessThanOrEqual(BOX_TOLERANCE);
}

/** A flat JPEG of `background` with a `colour` rectangle on it. */
async function card(background: string, colour: string, box: FractionBox, size = { width: 400, height: 200 }) {
  const patch = await sharp({
    create: {
      width: Math.round(box.width * size.width),
      height: Math.round(box.height * size.height),
      channels: 3,
      background: colour,
    },
  })
    .png()
    .toBuffer();
  return sharp({ create: { ...size, channels: 3, background } })
    .composite([{ input: patch, left: Math.round(box.x * size.width), top: Math.round(box.y * size.height) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

beforeAll(async () => {
  fake = await startFakeAiGateway();
  dir = mkdtempSync(join(tmpdir(), 'fake-vision-'));
  if (!hasFfmpeg) return;
  const clip = makeWalkthrough(join(dir, 'walkthrough.mp4'), {
    seconds: 12,
    objects: [
      { colour: 'red', from: 1, to: 3, box: SMALL_RED },
      // Only on the frame named 4 s, where red covers the most pixels (the span allows for that frame
      // showing a picture from up to half a frame interval later).
      { colour: 'red', from: 3.6, to: 4.6, box: LARGE_RED },
      { colour: 'blue', from: 6, to: 10, box: BLUE },
    ],
  });
  frames = [];
  await extractFrames({
    input: clip,
    fps: 1,
    longEdge: 768,
    jpegQuality: 4,
    onFrame: (f) => {
      frames.push({ name: frameName(f.timeSeconds), time: f.timeSeconds, jpeg: f.jpeg });
    },
  });
});

afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => fake.reset());

maybe('vision mode: video chunks', () => {
  it('names each saturated colour once, on the frame showing most of it, with its box, then the narration words', async () => {
    expect(frames.map((f) => f.time)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const items = await itemsOf(videoRequest());
    for (const item of items) expect(videoItem.strict().parse(item)).toEqual(item);

    expect(items.map((i) => i.name)).toEqual(['Red box', 'Blue box', 'Oak', 'Desk', 'Old', 'Rug']);
    const [red, blue, ...spoken] = items;
    expect(red).toMatchObject({ frame: frameName(4), video_time: 4, quantity: 1, confidence: 0.9, brand: null });
    expectBox(red.box, LARGE_RED);
    expect(blue.video_time).toBeGreaterThanOrEqual(6);
    expect(blue.video_time).toBeLessThanOrEqual(10);
    expect(blue.frame).toBe(frameName(blue.video_time));
    expectBox(blue.box, BLUE);
    // Each word at its narration line's time ("[0:02] Oak desk." and "[0:08] old rug").
    expect(spoken.map((i) => [i.video_time, i.frame, i.box])).toEqual([
      [2, null, null],
      [2, null, null],
      [8, null, null],
      [8, null, null],
    ]);
  });

  it('finds a colour on the frames of a later chunk only, and nothing on frames without colour', async () => {
    const small = frames.filter((f) => f.time >= 1 && f.time <= 3);
    const items = await itemsOf(videoRequest(small, [], { start: 0, end: 4 }));
    expect(items).toHaveLength(1);
    expect(items[0].name).toBe('Red box');
    expect([1, 2, 3]).toContain(items[0].video_time);
    expectBox(items[0].box, SMALL_RED);

    const bare = frames.filter((f) => f.time === 0 || f.time === 5 || f.time === 11);
    expect(await itemsOf(videoRequest(bare, []))).toEqual([]);
  });

  it('takes the earlier frame on a tie, ignores grey, white and black and colours under 0.5 % of a frame', async () => {
    const green = await card('#808080', '#00ff00', { x: 0.5, y: 0.25, width: 0.25, height: 0.5 });
    const sent = [
      { name: frameName(7), time: 7, jpeg: green },
      { name: frameName(3), time: 3, jpeg: green },
      // 0.4 % of the pixels in magenta (too little), 0.6 % in cyan, and unsaturated patches on white and black.
      { name: frameName(8), time: 8, jpeg: await card('#808080', '#ff00ff', { x: 0, y: 0, width: 0.04, height: 0.1 }) },
      {
        name: frameName(8.5),
        time: 8.5,
        jpeg: await card('#808080', '#00ffff', { x: 0.9, y: 0.8, width: 0.06, height: 0.1 }),
      },
      {
        name: frameName(9),
        time: 9,
        jpeg: await card('#ffffff', '#a0a0a0', { x: 0.2, y: 0.2, width: 0.5, height: 0.5 }),
      },
      {
        name: frameName(10),
        time: 10,
        jpeg: await card('#000000', '#b09a90', { x: 0.2, y: 0.2, width: 0.5, height: 0.5 }),
      },
    ];
    const items = await itemsOf(videoRequest(sent, [], { start: 0, end: 30 }));
    expect(items.map((i) => [i.name, i.frame, i.video_time])).toEqual([
      ['Green box', frameName(3), 3],
      ['Cyan box', frameName(8.5), 8.5],
    ]);
    expectBox(items[0].box, { x: 0.5, y: 0.25, width: 0.25, height: 0.5 });
  });
});

maybe('vision mode: voice-note chunks and overrides', () => {
  it('answers a voice-note chunk with one item per spoken word at its line time', async () => {
    const words: TimedWord[] = [
      { word: 'Two', start: 61.2, end: 61.4 },
      { word: 'lamps,', start: 61.5, end: 61.9 },
      { word: 'a', start: 64.0, end: 64.1 },
      { word: 'chair.', start: 64.2, end: 64.6 },
    ];
    const chunk = { start: 60, end: 120, words };
    const items = await itemsOf({
      system: audioSystemPrompt(),
      text: audioUserText(chunk),
      images: [],
      maxTokens: 2000,
      responseFormat: AUDIO_ANSWER_JSON_SCHEMA,
      context: { ...context, purpose: 'audio-chunk' },
    });
    for (const item of items) expect(audioItem.strict().parse(item)).toEqual(item);
    expect(items.map((i) => [i.name, i.audio_time])).toEqual([
      ['Two', 61],
      ['Lamps', 61],
      ['A', 64],
      ['Chair', 64],
    ]);
  });

  it('lets scripts and injected failures win, and answers other schemas with no items', async () => {
    const request = videoRequest();
    fake.script(frameName(4), [{ items: [{ name: 'Scripted sofa', quantity: 1 }] }]);
    expect((await itemsOf(request)).map((i) => i.name)).toEqual(['Scripted sofa']);

    fake.reset();
    fake.failNext('500');
    const err = await client()
      .complete(request)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiGatewayError);
    expect((await itemsOf(request))[0].name).toBe('Red box');

    const photo = { ...request, responseFormat: { ...VIDEO_ANSWER_JSON_SCHEMA, name: 'inventory_items' } };
    expect(await itemsOf(photo)).toEqual([]);
    expect(fake.requests.map((r) => r.answered)).toEqual(['500', 200, 200]);
  });
});
