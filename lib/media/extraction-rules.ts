/**
 * Pure decisions of media extraction: frame names, the ffmpeg filter chain
 * for frames, reading ffmpeg/ffprobe output, the keyframe-decode choice and
 * how long audio is cut into pieces a speech-to-text provider accepts.
 */

/** Rounds to whole milliseconds, the precision frame times are kept at. */
export function toMillis(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/**
 * A frame's object name from its time on the video's clock: `frame_000123.400.jpg`
 * (seconds zero-padded to six digits, three decimals). Fixed width, so names
 * sort in time order, and two extraction units of one video never collide.
 */
export function frameName(timeSeconds: number): string {
  const millis = Math.round(timeSeconds * 1000);
  if (!Number.isFinite(millis) || millis < 0 || millis >= 1e9)
    throw new RangeError(`frame time out of range: ${timeSeconds}`);
  const whole = Math.floor(millis / 1000);
  return `frame_${String(whole).padStart(6, '0')}.${String(millis % 1000).padStart(3, '0')}.jpg`;
}

const FRAME_NAME = /^frame_(\d{6})\.(\d{3})\.jpg$/;

/** The time a frame name carries, or null for anything that is not a frame name (path segments included). */
export function frameTime(name: string): number | null {
  const match = FRAME_NAME.exec(name);
  return match ? Number(match[1]) + Number(match[2]) / 1000 : null;
}

/**
 * Keyframe-only decode pays when keyframes come at least `minRatio` times as
 * often as the frames we want; a ratio of 0 turns it off.
 */
export function useKeyframeDecode(keyframesPerSecond: number | null, fps: number, minRatio: number): boolean {
  if (!(minRatio > 0) || keyframesPerSecond === null || !(fps > 0)) return false;
  return keyframesPerSecond >= minRatio * fps;
}

/**
 * Keyframes per second from ffprobe's `packet=pts_time,flags` CSV lines
 * (`0.000000,K_`), counted over the first `sampleSeconds` of the stream.
 * Packets come in decode order, so the span is taken from the smallest and
 * largest timestamps plus one average packet interval. Null when there is no
 * span to measure (no packets, or a single one).
 */
export function keyframeRateFromPackets(csv: string, sampleSeconds: number): number | null {
  const packets: { pts: number; key: boolean }[] = [];
  for (const line of csv.split('\n')) {
    const [ptsText, flags] = line.trim().split(',');
    const pts = Number.parseFloat(ptsText);
    if (Number.isFinite(pts)) packets.push({ pts, key: (flags ?? '').includes('K') });
  }
  if (packets.length === 0) return null;
  const first = Math.min(...packets.map((p) => p.pts));
  const inWindow = packets.filter((p) => p.pts < first + sampleSeconds);
  const last = Math.max(...inWindow.map((p) => p.pts));
  const interval = inWindow.length > 1 ? (last - first) / (inWindow.length - 1) : 0;
  const span = Math.min(sampleSeconds, last - first + interval);
  const keyframes = inWindow.filter((p) => p.key).length;
  if (!(span > 0)) return null;
  return Math.round((keyframes / span) * 1000) / 1000;
}

/**
 * The video filter chain for frame extraction; each frame that leaves it is
 * reported by showinfo, which is where its true time is read.
 * - Regular decode: the fps filter samples the (possibly variable-rate)
 *   stream on a fixed 1/fps grid starting at the range's start.
 * - Keyframe-only decode: every decoded frame is a keyframe at its own time;
 *   keyframes closer together than the frame interval are thinned out.
 * - The long edge is capped and never upscaled (0 keeps full size).
 */
export function frameFilters(options: { fps: number; longEdge: number; keyframesOnly: boolean }): string {
  const filters: string[] = [];
  if (options.keyframesOnly) {
    const gap = toMillis(0.98 / options.fps);
    filters.push(`select='isnan(prev_selected_t)+gte(t-prev_selected_t,${gap})'`);
  } else {
    // round=up: grid slot k keeps the last frame at or before k / fps, so a frame named k shows time k (the default,
    // round=near, keeps the one just before the next half-slot: half an interval late).
    filters.push(`fps=fps=${options.fps}:start_time=0:round=up`);
  }
  if (options.longEdge > 0) filters.push(capLongEdge(options.longEdge));
  filters.push('showinfo');
  return filters.join(',');
}

/** Caps the longer side at `edge` pixels, keeping the aspect ratio; never upscales. */
function capLongEdge(edge: number): string {
  const e = Math.round(edge);
  return `scale=w='min(iw,${e})':h='min(ih,${e})':force_original_aspect_ratio=decrease`;
}

/**
 * The filter graph when every frame also gets a smaller preview (what the
 * model is sent): the frames as frameFilters makes them, split in two, the
 * second copy capped at `previewLongEdge`. Outputs [frame] and [preview], one
 * image each per frame, in the same order.
 */
export function frameGraph(options: {
  fps: number;
  longEdge: number;
  keyframesOnly: boolean;
  previewLongEdge: number;
}): string {
  if (!(options.previewLongEdge > 0)) throw new RangeError('previewLongEdge must be positive');
  return `[0:v:0]${frameFilters(options)},split=2[frame][small];[small]${capLongEdge(options.previewLongEdge)}[preview]`;
}

const SHOWINFO_FRAME = /Parsed_showinfo.*\bn:\s*(\d+)\s+pts:\s*-?\d+\s+pts_time:(-?[\d.]+(?:e[-+]?\d+)?)/;

/** The pts_time of a showinfo frame line (seconds from the range's start), or null for any other log line. */
export function showinfoTime(line: string): number | null {
  const match = SHOWINFO_FRAME.exec(line);
  return match ? Number.parseFloat(match[2]) : null;
}

export interface AudioPiecePlan {
  offsetSeconds: number;
  durationSeconds: number;
}

/**
 * Cuts audio of `durationSeconds` and `bytes` into pieces of at most
 * `maxSeconds` each, short enough that a piece at the track's average bitrate
 * stays under `maxBytes` with a 10% margin for variable bitrate (never under a
 * second). With `overlapSeconds`, each later piece starts that long before the
 * previous one ends, so a word cut at a boundary is heard whole by one of the
 * two (the transcript stitching keeps it once); the overlap is held under half
 * a piece so the pieces always advance.
 */
export function planAudioPieces(
  durationSeconds: number,
  bytes: number,
  limits: { maxSeconds: number; maxBytes: number; overlapSeconds?: number },
): AudioPiecePlan[] {
  if (!(Number.isFinite(durationSeconds) && durationSeconds > 0 && limits.maxSeconds > 0)) return [];
  if (durationSeconds <= limits.maxSeconds && bytes <= limits.maxBytes) {
    return [{ offsetSeconds: 0, durationSeconds: toMillis(durationSeconds) }];
  }
  const bytesPerSecond = bytes / durationSeconds;
  const byBytes = bytesPerSecond > 0 ? Math.floor((limits.maxBytes * 0.9) / bytesPerSecond) : Number.POSITIVE_INFINITY;
  const pieceSeconds = Math.max(1, Math.min(limits.maxSeconds, byBytes));
  const overlap = Math.min(Math.max(0, limits.overlapSeconds || 0), pieceSeconds / 2);
  const pieces: AudioPiecePlan[] = [];
  let end = 0;
  for (let offset = 0; end < durationSeconds; offset += pieceSeconds - overlap) {
    end = Math.min(offset + pieceSeconds, durationSeconds);
    pieces.push({ offsetSeconds: toMillis(offset), durationSeconds: toMillis(end - offset) });
  }
  return pieces;
}
