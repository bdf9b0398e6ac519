/**
 * Measuring uploaded video and audio with ffprobe (spec: States, "video/audio
 * upload complete → duration probed for pricing"; Video pipeline 1). ffprobe
 * reads the object straight from S3 through a short-lived presigned GET URL
 * (it seeks with HTTP Range), so nothing is downloaded to the function first.
 *
 * Binary resolution, at run time: FFPROBE_PATH → an `ffprobe` next to the
 * ffmpeg-static binary (optional dependency; FFMPEG_PATH's directory is tried
 * too) → `ffprobe` on PATH.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PROBE_TIMEOUT_MS = 90_000;

export interface ProbeResult {
  /** Seconds, or null when the container states none. */
  duration: number | null;
  video: { width: number | null; height: number | null; fps: number | null } | null;
  hasAudio: boolean;
}

export class ProbeError extends Error {
  override readonly name = 'ProbeError';
  constructor(
    message: string,
    /** Worth another try (network, timeout, missing binary); false when ffprobe read the file and could not make sense of it. */
    readonly transient = false,
  ) {
    super(message);
  }
}

/** ffprobe complaints about reaching the file rather than about its contents. */
const TRANSIENT_STDERR =
  /Server returned|Connection (refused|reset|timed out)|timed out|Operation timed out|I\/O error|Failed to resolve|Network is unreachable|HTTP error|End of file while|Broken pipe/i;

export function isTransientProbeOutput(stderr: string): boolean {
  return TRANSIENT_STDERR.test(stderr);
}

function ffmpegStaticPath(): string | null {
  try {
    const path = require('ffmpeg-static') as unknown;
    return typeof path === 'string' ? path : null;
  } catch {
    return null;
  }
}

export function resolveFfprobe(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FFPROBE_PATH) return env.FFPROBE_PATH;
  for (const ffmpeg of [env.FFMPEG_PATH, ffmpegStaticPath()]) {
    if (!ffmpeg) continue;
    const sibling = join(dirname(ffmpeg), process.platform === 'win32' ? 'ffprobe.exe' : 'ffprobe');
    if (existsSync(sibling)) return sibling;
  }
  return 'ffprobe';
}

/** "30000/1001" → 29.97; null for 0/0 and nonsense. */
export function parseFrameRate(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const [num, den] = value.split('/').map(Number);
  const rate = den === undefined ? num : den ? num / den : NaN;
  return Number.isFinite(rate) && rate > 0 ? Math.round(rate * 1000) / 1000 : null;
}

/** Shapes ffprobe's JSON (format=duration, streams' codec_type, r_frame_rate, width, height). */
export function parseProbeOutput(stdout: string): ProbeResult {
  let data: {
    format?: { duration?: string };
    streams?: { codec_type?: string; r_frame_rate?: string; width?: number; height?: number }[];
  };
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new ProbeError('ffprobe printed no readable answer');
  }
  const duration = Number.parseFloat(data.format?.duration ?? '');
  const streams = data.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video');
  return {
    duration: Number.isFinite(duration) && duration >= 0 ? Math.round(duration * 1000) / 1000 : null,
    video: video
      ? { width: video.width ?? null, height: video.height ?? null, fps: parseFrameRate(video.r_frame_rate) }
      : null,
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
  };
}

/**
 * Demuxers of the accepted upload types (lib/uploads/rules.ts ALLOWED_EXTENSIONS):
 * mp4/mov/m4v/3gp/m4a, avi, mkv/webm, mts, mp3, wav, aac, ogg/oga/opus, flac, amr.
 * Playlist and reference formats (hls, concat, sdp, ...) would make ffprobe
 * open further URLs or files named by the upload, so they are refused.
 */
const PROBE_FORMATS = ['mov', 'avi', 'matroska', 'mpegts', 'mp3', 'wav', 'aac', 'ogg', 'flac', 'amr', 'amrnb', 'amrwb'];

/** Only what reading the input itself needs: a presigned S3 URL, or one local file. */
function probeProtocols(input: string): string[] {
  return /^https?:\/\//i.test(input) ? ['https', 'http', 'tls', 'tcp'] : ['file'];
}

/** Runs ffprobe on a file path or an http(s) URL. The URL never appears in an error message (it carries a signature). */
export function probeMedia(
  input: string,
  options: { timeoutMs?: number; ffprobe?: string } = {},
): Promise<ProbeResult> {
  const args = [
    '-v',
    'error',
    '-protocol_whitelist',
    probeProtocols(input).join(','),
    '-format_whitelist',
    PROBE_FORMATS.join(','),
  ];
  if (/^https?:\/\//i.test(input)) args.push('-rw_timeout', String(30_000_000));
  args.push('-show_entries', 'format=duration:stream=codec_type,r_frame_rate,width,height', '-of', 'json', input);
  const redact = (text: string) => text.split(input).join('<media>').trim();
  return new Promise((resolve, reject) => {
    execFile(
      options.ffprobe ?? resolveFfprobe(),
      args,
      { timeout: options.timeoutMs ?? PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const text = redact(String(stderr || ''));
          if (code === 'ENOENT') reject(new ProbeError('ffprobe is not installed', true));
          else if (err.killed || !text)
            reject(new ProbeError(err.killed ? 'ffprobe timed out' : `ffprobe exited with ${String(code)}`, true));
          else reject(new ProbeError(text.slice(0, 300), isTransientProbeOutput(text)));
          return;
        }
        try {
          resolve(parseProbeOutput(stdout));
        } catch (parseError) {
          reject(parseError);
        }
      },
    );
  });
}
