/**
 * Synthesis arithmetic: the order items are numbered in (video time), and the
 * two pictures cut from an item's best frame: a close-up of its box, padded
 * and never smaller than a minimum, and a wider context view around it.
 * Rectangles are in pixels of the frame, in the shape sharp's extract takes.
 */
import { type CropBox, cropRect } from '../../media/resize';
import { clock } from './prompt-rules';

export interface PixelRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Padding around the box on each side, as a fraction of the box's width and height. */
export const CLOSE_UP_MARGIN = 0.15;
/** The close-up's smallest edge in pixels (a tiny box still shows what it is), or the frame's edge if smaller. */
export const CLOSE_UP_MIN_EDGE = 160;
/** The context view is the box grown this many times around its centre. */
export const CONTEXT_SCALE = 2.5;

/** Items in video-time order; items at the same time keep their order. */
export function orderByVideoTime<T extends { video_time: number }>(items: readonly T[]): T[] {
  return items
    .map((item, position) => ({ item, position }))
    .sort((a, b) => a.item.video_time - b.item.video_time || a.position - b.position)
    .map(({ item }) => item);
}

/**
 * A rectangle of at least the given size centred on (cx, cy), moved inside
 * the frame where it fits and cut to the frame where it does not.
 */
function fitInFrame(cx: number, cy: number, width: number, height: number, frameW: number, frameH: number): PixelRect {
  const w = Math.max(1, Math.min(frameW, Math.round(width)));
  const h = Math.max(1, Math.min(frameH, Math.round(height)));
  const left = Math.min(frameW - w, Math.max(0, Math.round(cx - w / 2)));
  const top = Math.min(frameH - h, Math.max(0, Math.round(cy - h / 2)));
  return { left, top, width: w, height: h };
}

function checkFrame(frameW: number, frameH: number): void {
  if (!Number.isInteger(frameW) || !Number.isInteger(frameH) || frameW < 1 || frameH < 1)
    throw new RangeError(`frame size must be whole positive pixels (got ${frameW} x ${frameH})`);
}

/** The close-up of a box: the box plus `margin` of its size on each side, at least `minEdge` per edge, inside the frame. */
export function closeUpRect(
  box: CropBox,
  frameW: number,
  frameH: number,
  options: { margin?: number; minEdge?: number } = {},
): PixelRect {
  checkFrame(frameW, frameH);
  const { margin = CLOSE_UP_MARGIN, minEdge = CLOSE_UP_MIN_EDGE } = options;
  const rect = cropRect(box, frameW, frameH);
  const cx = rect.left + rect.width / 2;
  const cy = rect.top + rect.height / 2;
  const width = Math.max(minEdge, rect.width * (1 + 2 * margin));
  const height = Math.max(minEdge, rect.height * (1 + 2 * margin));
  return fitInFrame(cx, cy, width, height, frameW, frameH);
}

/** The context view: the box grown `scale` times around its centre, inside the frame. */
export function contextRect(box: CropBox, frameW: number, frameH: number, scale: number = CONTEXT_SCALE): PixelRect {
  checkFrame(frameW, frameH);
  const rect = cropRect(box, frameW, frameH);
  return fitInFrame(
    rect.left + rect.width / 2,
    rect.top + rect.height / 2,
    rect.width * scale,
    rect.height * scale,
    frameW,
    frameH,
  );
}

/** The frame closest in time (the earlier on a tie); null when there is none. */
export function nearestFrame<F extends { time: number }>(frames: readonly F[], time: number): F | null {
  let best: F | null = null;
  for (const frame of frames) {
    if (
      !best ||
      Math.abs(frame.time - time) < Math.abs(best.time - time) ||
      (Math.abs(frame.time - time) === Math.abs(best.time - time) && frame.time < best.time)
    )
      best = frame;
  }
  return best;
}

/** A pixel rectangle of a frame as the fractional box cropJpeg takes (its rounding gives the same pixels back). */
export function asFractions(rect: PixelRect, frameW: number, frameH: number): CropBox {
  checkFrame(frameW, frameH);
  return { x: rect.left / frameW, y: rect.top / frameH, width: rect.width / frameW, height: rect.height / frameH };
}

/** An item's notes: the model's, then where in the video the item is. */
export function videoItemNotes(notes: string | null, videoTime: number): string {
  const where = `Seen at ${clock(videoTime)} in the video.`;
  return notes?.trim() ? `${notes.trim()}\n${where}` : where;
}

/**
 * Seconds of the recording the run is billed for: its length less the chunks
 * whose call failed (or was given up on). Chunks that needed no call (nothing
 * to see or hear) count as delivered.
 */
export function analyzedSeconds(
  durationSeconds: number,
  chunks: readonly { index: number; start: number; end: number }[],
  delivered: (chunkIndex: number) => boolean,
): number {
  const missed = chunks.filter((c) => !delivered(c.index)).reduce((sum, c) => sum + (c.end - c.start), 0);
  return Math.max(0, Math.round((durationSeconds - missed) * 1000) / 1000);
}
