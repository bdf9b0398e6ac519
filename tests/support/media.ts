/**
 * Real media made with ffmpeg at test time, and a local HTTP server that
 * serves files with Range support the way a presigned S3 GET does.
 *
 * Clips can carry their time in their pixels: with `stepLuma`, every second s
 * of the clip is a flat grey of video luma `16 + s × stepLuma` (16 is black in
 * video range), so a frame's brightness tells which second it shows
 * (secondShown).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { resolveFfprobe } from '../../lib/media/ffmpeg';

const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';

export const hasFfmpeg =
  spawnSync(ffmpeg, ['-version']).status === 0 && spawnSync(resolveFfprobe(), ['-version']).status === 0;

function run(args: string[]): void {
  execFileSync(ffmpeg, ['-v', 'error', '-y', ...args]);
}

/** The second a grey-step frame shows: its RGB grey back to video-range luma steps. */
export async function secondShown(jpeg: Buffer, stepLuma: number): Promise<number> {
  const { channels } = await sharp(jpeg).stats();
  return Math.round((channels[0].mean * 219) / 255 / stepLuma);
}

export interface ClipOptions {
  seconds: number;
  width?: number;
  height?: number;
  fps?: number;
  /** Keyframe interval in frames (no extra keyframes at scene cuts). */
  gop?: number;
  /** Adds a sine tone as the sound track. */
  tone?: boolean;
  /** Grey steps by second instead of the test pattern (see above). */
  stepLuma?: number;
}

function videoSource(o: ClipOptions, offsetSeconds = 0): string {
  const size = `${o.width ?? 320}x${o.height ?? 240}`;
  const rate = o.fps ?? 30;
  if (o.stepLuma === undefined) return `testsrc=duration=${o.seconds}:size=${size}:rate=${rate}`;
  return `color=c=black:size=${size}:rate=${rate}:duration=${o.seconds},format=yuv420p,geq=lum='16+(floor(T)+${offsetSeconds})*${o.stepLuma}':cb=128:cr=128`;
}

function h264(gop?: number): string[] {
  const args = ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'];
  if (gop) args.push('-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0');
  return args;
}

/** An H.264 MP4 clip (AAC tone when asked), index at the front. */
export function makeClip(path: string, o: ClipOptions): string {
  const args = ['-f', 'lavfi', '-i', videoSource(o)];
  if (o.tone) args.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${o.seconds}`, '-c:a', 'aac');
  run([...args, ...h264(o.gop), '-movflags', '+faststart', path]);
  return path;
}

/**
 * A variable-frame-rate clip as phones record them: 5 s at 24 fps then 5 s
 * at 60 fps in one stream, grey steps by second across the whole 10 s.
 */
export function makeVariableRateClip(path: string, stepLuma = 20): string {
  run([
    '-f',
    'lavfi',
    '-i',
    videoSource({ seconds: 5, fps: 24, stepLuma }),
    '-f',
    'lavfi',
    '-i',
    videoSource({ seconds: 5, fps: 60, stepLuma }, 5),
    '-filter_complex',
    '[0:v][1:v]concat=n=2:v=1:a=0[v]',
    '-map',
    '[v]',
    '-vsync',
    'vfr',
    ...h264(),
    '-movflags',
    '+faststart',
    path,
  ]);
  return path;
}

/** A WAV file with a sine tone. */
export function makeTone(path: string, seconds: number): string {
  run(['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-ac', '1', '-ar', '16000', path]);
  return path;
}

/** Distinct frame rates in a clip's video stream, from its frame timestamps (a VFR clip has more than one). */
export function frameRates(path: string): number[] {
  const out = execFileSync(resolveFfprobe(), [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=pts_time',
    '-of',
    'csv=p=0',
    path,
  ]).toString();
  const times = out
    .split('\n')
    .map(Number.parseFloat)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const rates = new Set<number>();
  for (let i = 1; i < times.length; i++) rates.add(Math.round(1 / (times[i] - times[i - 1])));
  return [...rates];
}

export interface FileServer {
  origin: string;
  /** URL path and Range header of every request, in order. */
  requests: { url: string; range: string | undefined }[];
  close(): Promise<void>;
}

/** Serves the files of `dir` by name over HTTP with single-range Range support. */
export async function serveFiles(dir: string): Promise<FileServer> {
  const requests: FileServer['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', range: req.headers.range });
    const file = join(dir, basename(decodeURIComponent((req.url ?? '').split('?')[0])));
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Accept-Ranges', 'bytes');
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range) {
      res.setHeader('Content-Length', size);
      createReadStream(file).pipe(res);
      return;
    }
    const first = Number(range[1]);
    const last = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (first >= size) {
      res.statusCode = 416;
      res.setHeader('Content-Range', `bytes */${size}`);
      res.end();
      return;
    }
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${first}-${last}/${size}`);
    res.setHeader('Content-Length', last - first + 1);
    createReadStream(file, { start: first, end: last }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
