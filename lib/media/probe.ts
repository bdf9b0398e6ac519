/**
 * Measuring uploaded video and audio with ffprobe (spec: States, "video/audio
 * upload complete → duration probed for pricing"; Video pipeline 1). ffprobe
 * reads the object straight from S3 through a short-lived presigned GET URL
 * (it seeks with HTTP Range), so nothing is downloaded to the function first.
 *
 * Binaries and the input whitelists are shared with ffmpeg runs (ffmpeg.ts).
 */
import { execFile } from 'node:child_process';
import { inputGuards, isTransientProbeOutput, redact, resolveFfprobe } from './ffmpeg';

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

/** Runs ffprobe on a file path or an http(s) URL. The URL never appears in an error message (it carries a signature). */
export function probeMedia(
  input: string,
  options: { timeoutMs?: number; ffprobe?: string } = {},
): Promise<ProbeResult> {
  const args = ['-v', 'error', ...inputGuards(input)];
  args.push('-show_entries', 'format=duration:stream=codec_type,r_frame_rate,width,height', '-of', 'json', input);
  return new Promise((resolve, reject) => {
    execFile(
      options.ffprobe ?? resolveFfprobe(),
      args,
      { timeout: options.timeoutMs ?? PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const text = redact(String(stderr || ''), input);
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
