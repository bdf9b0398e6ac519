/**
 * Frame extraction and the keyframe-rate probe on real clips made with ffmpeg.
 * Grey-step clips carry their second in their brightness, which checks that
 * each frame's reported time is the time it really shows.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { type ExtractedFrame, extractFrames, keyframeRate } from '../../../lib/media/frames';
import { MediaToolError } from '../../../lib/media/ffmpeg';
import {
  type FileServer,
  frameRates,
  hasFfmpeg,
  makeClip,
  makeTone,
  makeVariableRateClip,
  secondShown,
  serveFiles,
} from '../../support/media';

const maybe = hasFfmpeg ? describe : describe.skip;
const STEP = 20;

async function collect(
  input: string,
  options: Partial<Parameters<typeof extractFrames>[0]> = {},
): Promise<ExtractedFrame[]> {
  const frames: ExtractedFrame[] = [];
  const result = await extractFrames({
    input,
    fps: 1,
    longEdge: 1600,
    jpegQuality: 4,
    onFrame: (frame) => {
      frames.push(frame);
    },
    ...options,
  });
  expect(result.frames).toBe(frames.length);
  return frames;
}

const shown = (frames: ExtractedFrame[]) => Promise.all(frames.map((f) => secondShown(f.jpeg, STEP)));

maybe('extractFrames', () => {
  let dir: string;
  let steps: string;
  let full: string;
  let small: string;
  let sparse: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'frames-'));
    steps = makeClip(join(dir, 'steps.mp4'), { seconds: 10, fps: 30, gop: 30, stepLuma: STEP });
    full = makeClip(join(dir, 'full.mp4'), { seconds: 2, width: 1920, height: 1080 });
    small = makeClip(join(dir, 'small.mp4'), { seconds: 2, width: 640, height: 360 });
    sparse = makeClip(join(dir, 'sparse.mp4'), { seconds: 10, fps: 30, gop: 45, stepLuma: STEP });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes one frame per second of a 10 s clip at 30 fps, at times 0..9, each showing its second', async () => {
    const frames = await collect(steps);

    expect(frames.map((f) => f.timeSeconds)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await shown(frames)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('takes the frame AT each grid time, not one from later in the interval', async () => {
    // Lossless 30 fps clip whose brightness counts frames: frame n decodes to about 1.7 n grey levels.
    const counting = join(dir, 'counting.mp4');
    const lavfi = "nullsrc=s=64x64:r=30:d=3,geq=lum='N*2':cb=128:cr=128";
    const args = [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      lavfi,
      '-c:v',
      'libx264',
      '-qp',
      '0',
      '-pix_fmt',
      'yuv444p',
    ];
    execFileSync(process.env.FFMPEG_PATH || 'ffmpeg', [...args, counting]);
    const frames = await collect(counting, { jpegQuality: 2 });
    const luma = await Promise.all(frames.map(async (f) => (await sharp(f.jpeg).greyscale().stats()).channels[0].mean));
    expect(frames.map((f) => f.timeSeconds)).toEqual([0, 1, 2]);
    // Frames 0, 30 and 60 (the input frames at 0, 1 and 2 s); half an interval late would be frames 14, 44 and 74.
    expect(luma.map(Math.round)).toEqual([
      expect.closeTo(0, -0.5),
      expect.closeTo(51, -0.5),
      expect.closeTo(121, -0.5),
    ]);
  });

  it('writes a preview of each frame from the same decode, capped and never upscaled', async () => {
    const frames = await collect(full, { preview: { longEdge: 768, jpegQuality: 3 } });
    expect(frames.map((f) => f.timeSeconds)).toEqual([0, 1]);
    for (const frame of frames) {
      expect(await sharp(frame.jpeg).metadata()).toMatchObject({ width: 1600, height: 900 });
      expect(await sharp(frame.preview as Buffer).metadata()).toMatchObject({ width: 768, height: 432 });
    }
    const stepped = await collect(steps, {
      preview: { longEdge: 2000, jpegQuality: 3 },
      startSeconds: 2,
      endSeconds: 5,
    });
    expect(await shown(stepped)).toEqual([2, 3, 4]);
    expect(await Promise.all(stepped.map((f) => secondShown(f.preview as Buffer, STEP)))).toEqual([2, 3, 4]);
    expect((await sharp(stepped[0].preview as Buffer).metadata()).width).toBe(
      (await sharp(stepped[0].jpeg).metadata()).width,
    );
  });

  it('takes frames on the fps grid at other rates', async () => {
    const frames = await collect(steps, { fps: 2, startSeconds: 3, endSeconds: 5 });

    expect(frames.map((f) => f.timeSeconds)).toEqual([3, 3.5, 4, 4.5]);
  });

  it('extracts a time range on the video clock: 4..7 s gives the frames at 4, 5 and 6', async () => {
    const frames = await collect(steps, { startSeconds: 4, endSeconds: 7 });

    expect(frames.map((f) => f.timeSeconds)).toEqual([4, 5, 6]);
    expect(await shown(frames)).toEqual([4, 5, 6]);
  });

  it('caps the long edge, never upscales, and keeps full size with 0', async () => {
    const size = async (input: string, longEdge: number) => {
      const [frame] = await collect(input, { longEdge, endSeconds: 1 });
      const { width, height, format } = await sharp(frame.jpeg).metadata();
      return { width, height, format };
    };

    expect(await size(full, 1600)).toEqual({ width: 1600, height: 900, format: 'jpeg' });
    expect(await size(small, 1600)).toEqual({ width: 640, height: 360, format: 'jpeg' });
    expect(await size(full, 0)).toEqual({ width: 1920, height: 1080, format: 'jpeg' });
  });

  it('applies the JPEG quality: a higher q:v makes smaller frames', async () => {
    const [best] = await collect(full, { jpegQuality: 2, endSeconds: 1 });
    const [worst] = await collect(full, { jpegQuality: 20, endSeconds: 1 });

    expect(worst.jpeg.length).toBeLessThan(best.jpeg.length * 0.6);
  });

  it('decodes keyframes only and gives each its own time (keyframes every 1 s)', async () => {
    const frames = await collect(steps, { keyframesOnly: true });

    expect(frames.map((f) => f.timeSeconds)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await shown(frames)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('gives keyframes off the second grid their true times, also inside a range', async () => {
    const all = await collect(sparse, { keyframesOnly: true });
    const range = await collect(sparse, { keyframesOnly: true, startSeconds: 2, endSeconds: 7.5 });

    expect(all.map((f) => f.timeSeconds)).toEqual([0, 1.5, 3, 4.5, 6, 7.5, 9]);
    expect(range.map((f) => f.timeSeconds)).toEqual([3, 4.5, 6]);
    expect(await shown(range)).toEqual([3, 4, 6]);
  });

  it('thins keyframes closer together than the frame interval', async () => {
    const frames = await collect(steps, { keyframesOnly: true, fps: 0.5 });

    expect(frames.map((f) => f.timeSeconds)).toEqual([0, 2, 4, 6, 8]);
  });

  it('samples a variable-frame-rate clip (24 fps then 60 fps) at one frame per second at the right times', async () => {
    const vfr = makeVariableRateClip(join(dir, 'vfr.mp4'), STEP);
    expect(frameRates(vfr)).toEqual(expect.arrayContaining([24, 60]));

    const frames = await collect(vfr);

    expect(frames.map((f) => f.timeSeconds)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await shown(frames)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('waits for a slow onFrame before taking more output, and still hands over every frame in order', async () => {
    const seen: number[] = [];
    let busy = 0;
    let mostBusy = 0;
    const result = await extractFrames({
      input: steps,
      fps: 3,
      longEdge: 0,
      jpegQuality: 2,
      onFrame: async (frame) => {
        busy++;
        mostBusy = Math.max(mostBusy, busy);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(frame.timeSeconds);
        busy--;
      },
    });

    expect(result.frames).toBe(30);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(mostBusy).toBe(1);
  });

  it('stops ffmpeg and rejects with the error onFrame throws', async () => {
    const err = await extractFrames({
      input: steps,
      fps: 1,
      longEdge: 0,
      jpegQuality: 4,
      onFrame: (frame) => {
        if (frame.index === 2) throw new Error('bucket unavailable');
      },
    }).catch((e) => e);

    expect(err).toEqual(new Error('bucket unavailable'));
  });

  it('rejects with a non-transient error for a file that is not media, and a transient one without ffmpeg', async () => {
    const bad = await collect(join(__dirname, 'frames.test.ts')).catch((e) => e);
    const missing = await collect(steps, { ffmpeg: join(dir, 'no-ffmpeg') }).catch((e) => e);

    expect(bad).toBeInstanceOf(MediaToolError);
    expect(bad.transient).toBe(false);
    expect(missing).toBeInstanceOf(MediaToolError);
    expect(missing.transient).toBe(true);
  });

  it('gives up after the timeout', async () => {
    const err = await collect(full, { longEdge: 0, fps: 30, timeoutMs: 50 }).catch((e) => e);

    expect(err).toEqual(new MediaToolError('ffmpeg timed out', true));
  });

  it('reads nothing for an empty range', async () => {
    expect(await collect(steps, { startSeconds: 5, endSeconds: 5 })).toEqual([]);
  });

  describe('over HTTP (as through a presigned GET)', () => {
    let server: FileServer;

    beforeAll(async () => {
      server = await serveFiles(dir);
    });

    afterAll(() => server.close());

    it('seeks with Range requests and gives the same frames as from a file', async () => {
      server.requests.length = 0;

      const frames = await collect(`${server.origin}/steps.mp4?X-Amz-Signature=secret`, {
        startSeconds: 4,
        endSeconds: 7,
      });

      expect(frames.map((f) => f.timeSeconds)).toEqual([4, 5, 6]);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.every((r) => r.range?.startsWith('bytes='))).toBe(true);
    });

    it('never puts the URL into an error', async () => {
      const err = await collect(`${server.origin}/missing.mp4?X-Amz-Signature=secret`).catch((e) => e);

      expect(err).toBeInstanceOf(MediaToolError);
      expect(err.message).not.toContain('secret');
    });
  });
});

maybe('keyframeRate', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'keyframes-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures about one keyframe per second with -g 30 at 30 fps, and 0.1 with -g 300', async () => {
    const dense = makeClip(join(dir, 'g30.mp4'), { seconds: 10, fps: 30, gop: 30 });
    const sparse = makeClip(join(dir, 'g300.mp4'), { seconds: 10, fps: 30, gop: 300 });

    expect(await keyframeRate(dense)).toBeCloseTo(1, 1);
    expect(await keyframeRate(sparse)).toBeCloseTo(0.1, 2);
  });

  it('measures only the first seconds of a long video', async () => {
    // A keyframe every 2 s: 0, 2 and 4 fall in the first 5 s.
    const clip = makeClip(join(dir, 'long.mp4'), { seconds: 20, fps: 10, gop: 20, width: 64, height: 48 });

    expect(await keyframeRate(clip, { sampleSeconds: 5 })).toBeCloseTo(0.6, 1);
  });

  it('is null for audio without video', async () => {
    const tone = makeTone(join(dir, 'tone.wav'), 2);

    expect(await keyframeRate(tone)).toBeNull();
  });
});
