/**
 * Frame extraction for the video pipeline: one ffmpeg run per time range.
 * ffmpeg seeks on the input (`-ss` before `-i`, so a presigned URL is read
 * with HTTP Range requests from the range's start), decodes `-t` seconds and
 * writes JPEGs to a pipe; each image is handed to `onFrame` as it arrives, so
 * nothing lands on disk. `onFrame` may be async (an upload): while a few
 * frames wait for it, reading from ffmpeg pauses, which keeps memory bounded
 * whatever the length of the range.
 *
 * Every frame carries its true time on the video's clock: the range start
 * plus the timestamp ffmpeg's showinfo filter reports for it. With regular
 * decode that is the fps grid (start + i/fps); with keyframe-only decode it is
 * the keyframe's own timestamp.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { frameFilters, frameGraph, keyframeRateFromPackets, showinfoTime, toMillis } from './extraction-rules';
import { inputGuards, MediaToolError, redact, resolveFfmpeg, resolveFfprobe, runTool, toolFailure } from './ffmpeg';
import { JpegSplitter } from './jpeg-stream';

/** Frames handed to `onFrame` and not yet finished before ffmpeg's output is paused. */
const MAX_FRAMES_IN_FLIGHT = 3;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** How much of the start of a video its keyframe rate is measured on. */
const KEYFRAME_SAMPLE_SECONDS = 30;
/** Lines of ffmpeg's log kept for an error message. */
const LOG_TAIL_LINES = 12;

export interface ExtractedFrame {
  /** Position among the frames of this run, from 0. */
  index: number;
  /** Seconds on the video's clock, to the millisecond. */
  timeSeconds: number;
  jpeg: Buffer;
  /** The same frame at the preview size, when a preview was asked for. */
  preview?: Buffer;
}

export interface FrameExtraction {
  /** A presigned GET URL or a local file path. */
  input: string;
  startSeconds?: number;
  /** Exclusive end of the range; omitted = to the end of the video. */
  endSeconds?: number;
  /** Frames per second on the regular grid (and the spacing keyframes are thinned to). */
  fps: number;
  /** Cap on the longer side in pixels, never upscaled; 0 keeps full size. */
  longEdge: number;
  /** ffmpeg's JPEG quality scale, 2 (best) to 31. */
  jpegQuality: number;
  /** Decode keyframes only and take each at its own time. */
  keyframesOnly?: boolean;
  /**
   * Also write each frame at this smaller size (long edge, never upscaled),
   * from the same decode: a second JPEG output on the child's fd 3.
   */
  preview?: { longEdge: number; jpegQuality: number };
  onFrame: (frame: ExtractedFrame) => void | Promise<void>;
  timeoutMs?: number;
  signal?: AbortSignal;
  ffmpeg?: string;
}

function ffmpegArgs(o: FrameExtraction, start: number): string[] {
  const args = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info', ...inputGuards(o.input)];
  if (o.keyframesOnly) args.push('-skip_frame', 'nokey');
  // One decoding thread: a video's units run side by side, so threads of their own would only contend for the same
  // cores (five 2-minute units of 720p on two cores: 9.2 s with one thread each, 10.8 s with ffmpeg's default).
  args.push('-threads', '1');
  args.push('-ss', String(start));
  if (o.endSeconds !== undefined) args.push('-t', String(toMillis(o.endSeconds - start)));
  args.push('-i', o.input);
  const filters = { fps: o.fps, longEdge: o.longEdge, keyframesOnly: o.keyframesOnly === true };
  // Every frame the filters pass is written once, with no duplication or dropping by the muxer.
  const jpegOut = (quality: number, pipe: string) => [
    '-vsync',
    'passthrough',
    '-c:v',
    'mjpeg',
    '-q:v',
    String(quality),
    '-f',
    'image2pipe',
    pipe,
  ];
  if (!o.preview) {
    args.push('-map', '0:v:0', '-an', '-sn', '-dn', '-vf', frameFilters(filters));
    return [...args, ...jpegOut(o.jpegQuality, 'pipe:1')];
  }
  args.push('-filter_complex', frameGraph({ ...filters, previewLongEdge: o.preview.longEdge }));
  args.push('-map', '[frame]', ...jpegOut(o.jpegQuality, 'pipe:1'));
  return [...args, '-map', '[preview]', ...jpegOut(o.preview.jpegQuality, 'pipe:3')];
}

/** Runs the extraction; resolves with the number of frames handed to `onFrame`. */
export function extractFrames(o: FrameExtraction): Promise<{ frames: number }> {
  const start = Math.max(0, o.startSeconds ?? 0);
  if (!(o.fps > 0)) return Promise.reject(new RangeError('fps must be positive'));
  if (o.endSeconds !== undefined && o.endSeconds <= start) return Promise.resolve({ frames: 0 });

  return new Promise((resolve, reject) => {
    const child = spawn(o.ffmpeg ?? resolveFfmpeg(), ffmpegArgs(o, start), {
      stdio: ['ignore', 'pipe', 'pipe', o.preview ? 'pipe' : 'ignore'],
    });
    const splitter = new JpegSplitter();
    const previewSplitter = new JpegSplitter();
    const times: number[] = [];
    const images: Buffer[] = [];
    const previews: Buffer[] = [];
    const stdout = child.stdout as Readable;
    const stderr = child.stderr as Readable;
    const previewPipe = o.preview ? (child.stdio[3] as Readable) : null;
    const logTail: string[] = [];
    let stderrRest = '';
    let next = 0;
    let handed = 0;
    let inFlight = 0;
    let chain = Promise.resolve();
    let failure: unknown = null;
    let timedOut = false;

    const fail = (error: unknown) => {
      if (failure) return;
      failure = error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      fail(new MediaToolError('ffmpeg timed out', true));
    }, o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const onAbort = () => fail(o.signal?.reason ?? new Error('frame extraction aborted'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    if (o.signal?.aborted) onAbort();

    // A frame is complete once its showinfo line (stderr), its JPEG (stdout) and its preview (fd 3) have arrived.
    const pause = () => {
      stdout.pause();
      previewPipe?.pause();
    };
    const resume = () => {
      stdout.resume();
      previewPipe?.resume();
    };
    const pair = () => {
      while (times.length && images.length && (!previewPipe || previews.length) && !failure) {
        const timeSeconds = toMillis(start + (times.shift() as number));
        const jpeg = images.shift() as Buffer;
        const preview = previewPipe ? (previews.shift() as Buffer) : undefined;
        // The fps grid may close with a tick on the range's end, which belongs to the next range.
        if (o.endSeconds !== undefined && timeSeconds >= o.endSeconds) continue;
        const frame = { index: next++, timeSeconds, jpeg, ...(preview ? { preview } : {}) };
        inFlight++;
        if (inFlight >= MAX_FRAMES_IN_FLIGHT) pause();
        chain = chain
          .then(() => (failure ? undefined : o.onFrame(frame)))
          .then(() => {
            handed++;
            inFlight--;
            if (inFlight < MAX_FRAMES_IN_FLIGHT) resume();
          }, fail);
      }
    };

    stdout.on('data', (chunk: Buffer) => {
      try {
        images.push(...splitter.push(chunk));
      } catch (error) {
        fail(new MediaToolError(error instanceof Error ? error.message : String(error)));
        return;
      }
      pair();
    });
    previewPipe?.on('data', (chunk: Buffer) => {
      try {
        previews.push(...previewSplitter.push(chunk));
      } catch (error) {
        fail(new MediaToolError(error instanceof Error ? error.message : String(error)));
        return;
      }
      pair();
    });
    stderr.setEncoding('utf8');
    stderr.on('data', (text: string) => {
      const lines = (stderrRest + text).split('\n');
      stderrRest = lines.pop() ?? '';
      for (const line of lines) {
        const time = showinfoTime(line);
        if (time !== null) times.push(time);
        else if (line.trim() && !line.includes('Parsed_showinfo')) {
          logTail.push(line);
          if (logTail.length > LOG_TAIL_LINES) logTail.shift();
        }
      }
      pair();
    });

    child.on('error', (error: NodeJS.ErrnoException) => fail(toolFailure('ffmpeg', { code: error.code }, '')));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      const time = showinfoTime(stderrRest);
      if (time !== null) times.push(time);
      pair();
      const tail = redact(logTail.join('\n'), o.input);
      if (!failure && code !== 0)
        fail(toolFailure('ffmpeg', { code: code ?? signal, killed: !!signal, timedOut }, tail));
      const leftOver = splitter.pendingBytes + previewSplitter.pendingBytes + images.length + previews.length;
      if (!failure && leftOver > 0) {
        fail(new MediaToolError('ffmpeg ended in the middle of a frame', true));
      }
      chain.then(() => (failure ? reject(failure) : resolve({ frames: handed })));
    });
  });
}

/**
 * Keyframes per second over the first seconds of the video stream, from the
 * packets' key flags (no decoding; over HTTP only the start of the object is
 * read). Null when the input has no video packets to measure.
 */
export async function keyframeRate(
  input: string,
  options: { sampleSeconds?: number; timeoutMs?: number; signal?: AbortSignal; ffprobe?: string } = {},
): Promise<number | null> {
  const sample = options.sampleSeconds ?? KEYFRAME_SAMPLE_SECONDS;
  const args = ['-v', 'error', ...inputGuards(input), '-select_streams', 'v:0', '-read_intervals', `%+${sample}`];
  args.push('-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', input);
  const csv = await runTool(options.ffprobe ?? resolveFfprobe(), 'ffprobe', args, {
    input,
    timeoutMs: options.timeoutMs ?? 90_000,
    signal: options.signal,
  });
  return keyframeRateFromPackets(csv, sample);
}
