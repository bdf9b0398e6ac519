/**
 * How frame extraction fans out: the video's time line cut into units that
 * separate workers extract side by side, each seeking into the upload and
 * writing its frames straight to the bucket.
 *
 * Frames sit on one global grid, frame k at k / fps seconds, and each unit
 * owns a contiguous run of frame indexes. A unit starts on a grid point, so
 * ffmpeg's fps filter (which counts from the seek point) lands on the same
 * grid, and the unit reads exactly up to the next unit's first frame:
 * neighbouring units never write the same frame twice or leave one out
 * between them. Frame names (lib/media/extraction-rules.ts) carry the frame's
 * time, so a unit that runs again overwrites its own frames and nothing else.
 */

/**
 * Seconds of video per extraction unit. A worker lives at most 15 minutes;
 * the slowest case, decoding every frame of a 4K HEVC phone clip on one
 * Lambda core, runs at about real time, so a 2-minute unit takes a few
 * minutes at worst and usually seconds. Shorter units would mostly add
 * per-unit start-up (a presigned GET, ffmpeg reading the container index,
 * the seek); a 2-hour video makes 60 units, a 10-minute one 5.
 */
export const EXTRACTION_UNIT_SECONDS = 120;

/**
 * Frames per unit at most: a unit's frame records are one database row
 * (400 KB at most), so at a high FRAME_EXTRACTION_FPS units get shorter.
 */
export const MAX_UNIT_FRAMES = 1200;

/** Float noise guard: 60.000000001 s at 1 fps is still 60 frames. */
const EPSILON = 1e-9;

export interface ExtractionUnit {
  index: number;
  /** Where the unit seeks to, in seconds: the time of its first frame. */
  start: number;
  /** Where it stops: the next unit's start, or the video's end for the last unit. */
  end: number;
  /** end - start: seconds of video the unit reads (the last unit's is shorter). */
  duration: number;
  /** Global index (k of k / fps) of the unit's first frame. */
  firstFrame: number;
  /**
   * Frames of the grid in the unit, what a regular decode writes (the stream
   * may end a frame early on the last unit). A keyframe-only decode writes the
   * keyframes of [start, end) instead.
   */
  frameCount: number;
}

/** Frames on the grid inside [0, duration): k / fps for k = 0, 1, … */
export function totalFrames(durationSeconds: number, fps: number): number {
  if (!Number.isFinite(fps) || fps <= 0) throw new RangeError(`fps must be positive (got ${fps})`);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return 0;
  return Math.max(0, Math.ceil(durationSeconds * fps - EPSILON));
}

/**
 * The units of a video of `durationSeconds` at `fps`: about `unitSeconds` each
 * (rounded to whole frames, at least one frame, at most MAX_UNIT_FRAMES), the
 * last one shorter.
 */
export function extractionUnits(
  durationSeconds: number,
  fps: number,
  unitSeconds: number = EXTRACTION_UNIT_SECONDS,
): ExtractionUnit[] {
  if (!Number.isFinite(unitSeconds) || unitSeconds <= 0)
    throw new RangeError(`unitSeconds must be positive (got ${unitSeconds})`);
  const frames = totalFrames(durationSeconds, fps);
  const framesPerUnit = Math.max(1, Math.min(MAX_UNIT_FRAMES, Math.round(unitSeconds * fps)));
  const units: ExtractionUnit[] = [];
  for (let firstFrame = 0; firstFrame < frames; firstFrame += framesPerUnit) {
    const frameCount = Math.min(framesPerUnit, frames - firstFrame);
    const start = firstFrame / fps;
    const end = Math.min(durationSeconds, (firstFrame + frameCount) / fps);
    units.push({ index: units.length, start, end, duration: end - start, firstFrame, frameCount });
  }
  return units;
}
