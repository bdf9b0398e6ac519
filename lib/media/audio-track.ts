/**
 * The sound of a video or audio upload, made compact for speech-to-text:
 * mono 16 kHz Opus in Ogg at 24 kbit/s (about 11 MB an hour, so even a long
 * walkthrough's track fits in /tmp and in few provider requests). ffmpeg
 * reads the input (a presigned URL or a local file) and writes the track into
 * a directory the caller owns and removes. Long tracks are cut into pieces
 * within the provider's limits, each with its offset, so word timings can be
 * put back on the video's clock.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { planAudioPieces } from './extraction-rules';
import { inputGuards, resolveFfmpeg, runTool } from './ffmpeg';
import { probeMedia } from './probe';

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export interface AudioFile {
  path: string;
  durationSeconds: number;
  bytes: number;
}

export interface AudioPiece extends AudioFile {
  /** Where the piece starts on the track's (and the video's) clock. */
  offsetSeconds: number;
}

interface RunOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  ffmpeg?: string;
}

const ENCODE = ['-vn', '-sn', '-dn', '-map_metadata', '-1', '-ac', '1', '-ar', '16000'];
const OPUS = ['-c:a', 'libopus', '-b:a', '24k', '-application', 'voip', '-f', 'ogg'];

async function measured(path: string): Promise<AudioFile> {
  const [probe, info] = await Promise.all([probeMedia(path), stat(path)]);
  return { path, durationSeconds: probe.duration ?? 0, bytes: info.size };
}

/**
 * Writes the first audio stream of `input` to `<dir>/<name>` (default
 * audio.ogg). Resolves null when the input has no audio stream: a silent
 * video is not an error.
 */
export async function extractAudioTrack(
  o: { input: string; dir: string; name?: string } & RunOptions,
): Promise<AudioFile | null> {
  const probe = await probeMedia(o.input);
  if (!probe.hasAudio) return null;
  const path = join(o.dir, o.name ?? 'audio.ogg');
  const args = ['-hide_banner', '-nostdin', '-v', 'error', '-y', ...inputGuards(o.input), '-i', o.input];
  args.push('-map', '0:a:0', ...ENCODE, ...OPUS, path);
  await runTool(o.ffmpeg ?? resolveFfmpeg(), 'ffmpeg', args, {
    input: o.input,
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: o.signal,
  });
  return measured(path);
}

/**
 * The track as pieces of at most `maxSeconds` and about `maxBytes` each,
 * written next to it (piece_000.ogg, ...). A track within both limits is its
 * own single piece. Pieces are re-encoded from their exact offset so their
 * clocks start where the offsets say.
 */
export async function audioPieces(
  track: AudioFile,
  limits: { maxSeconds: number; maxBytes: number; overlapSeconds?: number } & RunOptions,
): Promise<AudioPiece[]> {
  const plan = planAudioPieces(track.durationSeconds, track.bytes, limits);
  if (plan.length <= 1) return plan.map((p) => ({ ...track, offsetSeconds: p.offsetSeconds }));
  const dir = join(track.path, '..');
  const pieces: AudioPiece[] = [];
  for (const [i, piece] of plan.entries()) {
    const path = join(dir, `piece_${String(i).padStart(3, '0')}.ogg`);
    const args = ['-hide_banner', '-nostdin', '-v', 'error', '-y', ...inputGuards(track.path)];
    args.push('-ss', String(piece.offsetSeconds), '-t', String(piece.durationSeconds), '-i', track.path);
    args.push('-map', '0:a:0', ...ENCODE, ...OPUS, path);
    await runTool(limits.ffmpeg ?? resolveFfmpeg(), 'ffmpeg', args, {
      input: track.path,
      timeoutMs: limits.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: limits.signal,
    });
    pieces.push({ ...(await measured(path)), offsetSeconds: piece.offsetSeconds });
  }
  return pieces;
}
