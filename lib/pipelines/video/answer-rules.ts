/**
 * Reading one video chunk's answer leniently: the photo fields as the photo
 * pipeline reads them, then the item's time, frame and box checked against
 * what the chunk sent (a frame the model invented keeps no box; a time
 * outside the chunk is pulled into it).
 */
import { readModelItem } from '../photo/answer-rules';
import { type FrameBox, frameBox, type VideoItem } from './answer-schemas';
import type { ChunkRange } from './chunk-rules';

/** What one chunk's call showed the model. */
export interface ChunkContext {
  chunk: ChunkRange;
  /** The frames sent, with their times. */
  frames: readonly { name: string; time: number }[];
}

/** A number from what models send: 12, "12", "$1,299", " 4 ". Null when unreadable. */
export function lenientNumber(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v.replace(/[$,\s]/g, '')) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** Seconds from 83, "83", "83s", "83.5 sec", "1:23" or "0:01:23". Null when unreadable or negative. */
export function lenientSeconds(v: unknown): number | null {
  if (typeof v === 'string') {
    const clock = /^\s*(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)\s*$/.exec(v);
    if (clock) return Number(clock[1] ?? 0) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
    const n = lenientNumber(v.replace(/\s*(s|sec|secs|seconds?)\s*$/i, ''));
    return n !== null && n >= 0 ? n : null;
  }
  const n = lenientNumber(v);
  return n !== null && n >= 0 ? n : null;
}

/**
 * A box from {x, y, width, height} (or w, h), or [x, y, width, height], as
 * fractions of the frame. Clipped to the frame; null when nothing of it is
 * left (pixel or percent values mostly are) or it is unreadable.
 */
export function lenientBox(v: unknown): FrameBox | null {
  let values: unknown[];
  if (Array.isArray(v)) values = v;
  else if (v && typeof v === 'object') {
    const r = v as Record<string, unknown>;
    values = [r.x, r.y, r.width ?? r.w, r.height ?? r.h];
  } else return null;
  if (values.length !== 4) return null;
  const nums = values.map(lenientNumber);
  if (nums.some((n) => n === null)) return null;
  const [x, y, width, height] = nums as number[];
  // Clip each axis only when it spills over, so an exact box keeps its exact numbers.
  const clip = (start: number, size: number): [number, number] =>
    start >= 0 && start + size <= 1
      ? [start, size]
      : [Math.max(0, start), Math.min(1, start + size) - Math.max(0, start)];
  const [left, boxWidth] = clip(x, width);
  const [top, boxHeight] = clip(y, height);
  const parsed = frameBox.safeParse({ x: left, y: top, width: boxWidth, height: boxHeight });
  return parsed.success ? parsed.data : null;
}

/**
 * One raw item of a chunk's answer, or null without a usable name. The frame
 * must be one the chunk sent (else frame and box are dropped); the time falls
 * back to the frame's, then to the chunk's start, and is kept inside the chunk.
 */
export function readVideoItem(raw: unknown, context: ChunkContext): VideoItem | null {
  const item = readModelItem(raw);
  if (!item) return null;
  const r = raw as Record<string, unknown>;
  const frameName = typeof r.frame === 'string' ? r.frame.trim() : '';
  const frame = context.frames.find((f) => f.name === frameName) ?? null;
  const box = frame ? lenientBox(r.box) : null;
  const said = lenientSeconds(r.video_time);
  const time = said ?? frame?.time ?? context.chunk.start;
  return {
    ...item,
    video_time: Math.min(context.chunk.end, Math.max(context.chunk.start, time)),
    frame: frame?.name ?? null,
    box,
  };
}
