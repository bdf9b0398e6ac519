/**
 * Running ffmpeg and ffprobe on an upload, shared by frame extraction, the
 * audio track and the keyframe-rate probe. The same safety rules as probing
 * (probe.ts): the input is a presigned S3 URL or one local file, only the
 * protocols reading it need are allowed, only the demuxers of accepted upload
 * types may open it (a playlist naming other files or URLs is refused), and
 * the URL never appears in an error message because it carries a signature.
 *
 * Binary resolution, at run time: FFMPEG_PATH → the ffmpeg-static binary
 * (optional dependency) → `ffmpeg` on PATH; FFPROBE_PATH → an `ffprobe` next
 * to that ffmpeg → `ffprobe` on PATH.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Demuxers of the accepted upload types (lib/uploads/rules.ts ALLOWED_EXTENSIONS):
 * mp4/mov/m4v/3gp/m4a, avi, mkv/webm, mts, mp3, wav, aac, ogg/oga/opus, flac, amr
 * (ogg is also the audio track we write ourselves). Playlist and reference
 * formats (hls, concat, sdp, ...) would make the tool open further URLs or
 * files named by the upload, so they are refused.
 */
const MEDIA_FORMATS = ['mov', 'avi', 'matroska', 'mpegts', 'mp3', 'wav', 'aac', 'ogg', 'flac', 'amr', 'amrnb', 'amrwb'];

/** Seconds without progress on an HTTP read before ffmpeg gives up (microseconds on the command line). */
const HTTP_READ_TIMEOUT_US = 30_000_000;

export class MediaToolError extends Error {
  override readonly name = 'MediaToolError';
  constructor(
    message: string,
    /** Worth another try (network, timeout, missing binary); false when the tool read the input and refused it. */
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

export function resolveFfprobe(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FFPROBE_PATH) return env.FFPROBE_PATH;
  for (const ffmpeg of [env.FFMPEG_PATH, ffmpegStaticPath()]) {
    if (!ffmpeg) continue;
    const sibling = join(dirname(ffmpeg), process.platform === 'win32' ? 'ffprobe.exe' : 'ffprobe');
    if (existsSync(sibling)) return sibling;
  }
  return 'ffprobe';
}

function ffmpegStaticPath(): string | null {
  try {
    const path = require('ffmpeg-static') as unknown;
    return typeof path === 'string' ? path : null;
  } catch {
    return null;
  }
}

export function resolveFfmpeg(env: NodeJS.ProcessEnv = process.env): string {
  return env.FFMPEG_PATH || ffmpegStaticPath() || 'ffmpeg';
}

function isUrl(input: string): boolean {
  return /^https?:\/\//i.test(input);
}

/** Input options that go right before `-i input`: what the input may open and how long a network read may stall. */
export function inputGuards(input: string): string[] {
  const protocols = isUrl(input) ? 'https,http,tls,tcp' : 'file';
  const args = ['-protocol_whitelist', protocols, '-format_whitelist', MEDIA_FORMATS.join(',')];
  if (isUrl(input)) args.push('-rw_timeout', String(HTTP_READ_TIMEOUT_US));
  return args;
}

/** Removes the input (a presigned URL) from tool output. */
export function redact(text: string, input: string): string {
  return text.split(input).join('<media>').trim();
}

/** The error for a tool that ended badly, from how it ended and the tail of what it printed. */
export function toolFailure(
  tool: string,
  ended: { code?: number | string | null; killed?: boolean; timedOut?: boolean },
  stderr: string,
): MediaToolError {
  if (ended.code === 'ENOENT') return new MediaToolError(`${tool} is not installed`, true);
  if (ended.timedOut) return new MediaToolError(`${tool} timed out`, true);
  const text = stderr.trim();
  if (ended.killed || !text) return new MediaToolError(`${tool} exited with ${String(ended.code)}`, true);
  return new MediaToolError(text.slice(-300), isTransientProbeOutput(text));
}

/** Runs a tool that answers on stdout (ffprobe, a file-to-file ffmpeg run) and resolves with what it printed. */
export function runTool(
  binary: string,
  tool: string,
  args: string[],
  options: { input: string; timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      { timeout: options.timeoutMs, maxBuffer: 16 * 1024 * 1024, signal: options.signal, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        if (options.signal?.aborted) return reject(options.signal.reason);
        const code = (err as NodeJS.ErrnoException).code;
        reject(
          toolFailure(
            tool,
            { code, killed: err.killed, timedOut: err.killed && !options.signal?.aborted },
            redact(String(stderr || ''), options.input),
          ),
        );
      },
    );
  });
}
