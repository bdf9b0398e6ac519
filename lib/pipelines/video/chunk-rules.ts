/**
 * Video analysis chunks: time ranges of the chunk length over the whole
 * video, the frames each one holds, which of them reach the model (by
 * density, the sharpest per time bucket) and the transcript words it covers.
 *
 * A time belongs to the chunk whose [start, end) contains it; the last chunk
 * also takes its end, so a frame or word at the very end still has a chunk.
 */

/** Float noise guard: 0.3 s / 0.1 s is 3 buckets in, not 2.999…. */
const EPSILON = 1e-9;

export interface ChunkRange {
  index: number;
  start: number;
  end: number;
}

export interface CandidateFrame {
  name: string;
  /** Seconds into the video. */
  time: number;
  /**
   * Higher is sharper (measured on the frame's pixels); null when it was not
   * measured because no bucket was expected to hold two frames (see
   * framesShareBuckets and unmeasuredRivals).
   */
  sharpness: number | null;
}

export interface TimedWord {
  /** The word as displayed (with its punctuation when the provider gives it). */
  word: string;
  start: number;
  end: number;
}

export interface TranscriptSlice {
  text: string;
  words: TimedWord[];
}

/** Chunks of `chunkSeconds` over [0, duration]; the last one shorter. None for an empty or unknown duration. */
export function chunkRanges(durationSeconds: number, chunkSeconds: number): ChunkRange[] {
  if (!Number.isFinite(chunkSeconds) || chunkSeconds <= 0)
    throw new RangeError(`chunkSeconds must be positive (got ${chunkSeconds})`);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return [];
  const count = Math.max(1, Math.ceil(durationSeconds / chunkSeconds - EPSILON));
  return Array.from({ length: count }, (_, index) => ({
    index,
    start: index * chunkSeconds,
    end: Math.min(durationSeconds, (index + 1) * chunkSeconds),
  }));
}

/** Whether `time` lies in the chunk: [start, end), or [start, end] for the last chunk. */
export function chunkContains(chunk: ChunkRange, time: number, isLast: boolean): boolean {
  return time >= chunk.start - EPSILON && (time < chunk.end - EPSILON || (isLast && time <= chunk.end + EPSILON));
}

/** The index of the chunk holding `time`; null before the start or past the end. */
export function chunkIndexAt(chunks: readonly ChunkRange[], time: number): number | null {
  const found = chunks.findIndex((chunk, i) => chunkContains(chunk, time, i === chunks.length - 1));
  return found === -1 ? null : chunks[found].index;
}

/** Each chunk's frames in time order (frames outside the video are left out). */
export function framesByChunk<F extends CandidateFrame>(chunks: readonly ChunkRange[], frames: readonly F[]): F[][] {
  const byChunk: F[][] = chunks.map(() => []);
  const sorted = [...frames].sort((a, b) => a.time - b.time);
  for (const frame of sorted) {
    const position = chunks.findIndex((chunk, i) => chunkContains(chunk, frame.time, i === chunks.length - 1));
    if (position !== -1) byChunk[position].push(frame);
  }
  return byChunk;
}

export interface DensityLimits {
  /** FRAMES_PER_MINUTE */
  framesPerMinute: number;
  /** MAX_FRAMES_PER_CALL */
  maxFramesPerCall: number;
}

/** Frames one call about this chunk may carry: min(per-call cap, density × chunk minutes), at least 1. */
export function frameBudget(chunk: ChunkRange, limits: DensityLimits): number {
  const byDensity = Math.floor((limits.framesPerMinute * (chunk.end - chunk.start)) / 60 + EPSILON);
  return Math.max(1, Math.min(Math.floor(limits.maxFramesPerCall), byDensity));
}

/** The chunk's frames in its `frameBudget` equal time buckets (bucket → frames in time order). */
function bucketFrames<F extends CandidateFrame>(chunk: ChunkRange, frames: readonly F[], limits: DensityLimits) {
  const buckets = frameBudget(chunk, limits);
  const width = (chunk.end - chunk.start) / buckets;
  const byBucket = new Map<number, F[]>();
  for (const frame of [...frames].sort((a, b) => a.time - b.time)) {
    const raw = width > 0 ? Math.floor((frame.time - chunk.start) / width + EPSILON) : 0;
    const bucket = Math.min(buckets - 1, Math.max(0, raw));
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), frame]);
  }
  return byBucket;
}

/**
 * The frames sent for a chunk: its range cut into `frameBudget` equal time
 * buckets, the sharpest frame of each bucket (a tie goes to the earlier
 * frame); empty buckets send nothing. In time order.
 */
export function selectFrames<F extends CandidateFrame>(
  chunk: ChunkRange,
  frames: readonly F[],
  limits: DensityLimits,
): F[] {
  return [...bucketFrames(chunk, frames, limits).entries()]
    .sort(([a], [b]) => a - b)
    .map(([, rivals]) =>
      rivals.reduce((best, frame) => ((frame.sharpness ?? -1) > (best.sharpness ?? -1) ? frame : best)),
    );
}

/** Frames whose sharpness is needed to pick their bucket's frame (they share it) and was not measured. */
export function unmeasuredRivals<F extends CandidateFrame>(
  chunk: ChunkRange,
  frames: readonly F[],
  limits: DensityLimits,
): F[] {
  return [...bucketFrames(chunk, frames, limits).values()].flatMap((rivals) =>
    rivals.length > 1 ? rivals.filter((f) => f.sharpness === null) : [],
  );
}

/**
 * Whether frames extracted on the regular grid will share the time buckets
 * of a full chunk, so extraction should measure every frame's sharpness
 * (spread over its parallel units). Keyframe-only decode places frames
 * irregularly: always measured. Otherwise a bucket of a full chunk spans
 * chunkSeconds / frameBudget seconds and holds about fps × that many frames.
 * A partial last chunk can still put two frames in a bucket: the chunk stage
 * measures those few (unmeasuredRivals).
 */
export function framesShareBuckets(o: {
  fps: number;
  keyframesOnly: boolean;
  chunkSeconds: number;
  limits: DensityLimits;
}): boolean {
  if (o.keyframesOnly) return true;
  const width = o.chunkSeconds / frameBudget({ index: 0, start: 0, end: o.chunkSeconds }, o.limits);
  return o.fps * width > 1 + EPSILON;
}

/** All words of a transcript's segments, in time order. */
export function transcriptWords(segments: readonly { words: readonly TimedWord[] }[]): TimedWord[] {
  return segments.flatMap((segment) => segment.words).sort((a, b) => a.start - b.start);
}

/** Words joined back into text. */
export function wordsText(words: readonly TimedWord[]): string {
  return words
    .map((w) => w.word.trim())
    .filter(Boolean)
    .join(' ');
}

/** The words that start inside the chunk (a word is never split between chunks) and their text. */
export function sliceTranscript(
  segments: readonly { words: readonly TimedWord[] }[],
  chunk: ChunkRange,
  isLast: boolean,
): TranscriptSlice {
  const words = transcriptWords(segments).filter((w) => chunkContains(chunk, w.start, isLast));
  return { text: wordsText(words), words };
}
