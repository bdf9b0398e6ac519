/**
 * The words of one video chunk's request: the built-in instructions with the
 * output contract, each frame's label (its name and time) and the chunk's
 * text: its time range and the narration spoken in it, with times, so the
 * model can place items that are only named.
 */
import type { TimedWord } from './chunk-rules';
import { VIDEO_OUTPUT_CONTRACT } from './answer-schemas';

/** A narration line ends at a sentence end, a pause this long, or this many seconds in. */
const LINE_PAUSE_SECONDS = 1.5;
const LINE_MAX_SECONDS = 12;

export const VIDEO_INSTRUCTIONS = `You are an experienced contents inventory specialist preparing a property insurance claim from a walkthrough video.

You get frames from one stretch of the video, each labelled with its name and its time, and what the person filming said during that stretch. List every distinct item that belongs in a contents inventory: items visible in the frames, and items the narration names even when they are not visible. One entry per distinct item: the same item seen on several frames is ONE entry; identical items are one entry with a quantity. Use the narration to sharpen an item (brand, age, price paid, condition) when it clearly speaks of an item you can see.

Only inventory contents: movable personal property such as furniture, electronics, appliances, housewares, clothing, tools and decor. Never list walls, floors, ceilings, doors, windows, built-in plumbing or building systems.

For each visible item give the name of the ONE frame it is seen best on (exactly as labelled) and its bounding box on that frame. Brand, model, serial and sku only when readable or said; estimated_price is the replacement cost of one new unit in US dollars. Confidence below 0.6 means a person should check the item.`;

export function videoSystemPrompt(instructions: string = VIDEO_INSTRUCTIONS): string {
  return `${instructions.trim()}\n\n${VIDEO_OUTPUT_CONTRACT}`;
}

/** 83.4 → "1:23", 3723 → "1:02:03" (seconds rounded down). */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const ss = String(s).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** The narration as lines "[m:ss] words…", one per sentence or pause. */
export function transcriptLines(words: readonly TimedWord[]): string[] {
  const lines: string[] = [];
  let current: TimedWord[] = [];
  const flush = () => {
    if (current.length) lines.push(`[${clock(current[0].start)}] ${current.map((w) => w.word.trim()).join(' ')}`);
    current = [];
  };
  for (const word of words) {
    if (!word.word.trim()) continue;
    const previous = current.at(-1);
    if (
      previous &&
      (word.start - previous.end >= LINE_PAUSE_SECONDS || word.start - current[0].start >= LINE_MAX_SECONDS)
    )
      flush();
    current.push(word);
    if (/[.!?]$/.test(word.word.trim())) flush();
  }
  flush();
  return lines;
}

/** The label sent before a frame's image. */
export function frameLabel(frame: { name: string; time: number }): string {
  return `Frame ${frame.name} at ${clock(frame.time)} (${Number(frame.time.toFixed(2))} s)`;
}

export interface ChunkPromptInput {
  chunk: { start: number; end: number };
  frames: readonly { name: string; time: number }[];
  /** The chunk's transcript words; empty without a transcript. */
  words: readonly TimedWord[];
  /** The uploaded file's name, which often names the room or the occasion. */
  recording?: string | null;
}

/** ' "Kitchen.mp4"' for a named recording, '' without a name. */
export function recordingName(recording: string | null | undefined): string {
  const name = recording?.replace(/\s+/g, ' ').trim().slice(0, 200);
  return name ? ` "${name}"` : '';
}

export function chunkUserText({ chunk, frames, words, recording }: ChunkPromptInput): string {
  const range = `${clock(chunk.start)} to ${clock(chunk.end)} (${Number(chunk.start.toFixed(2))} s to ${Number(chunk.end.toFixed(2))} s)`;
  const lines = transcriptLines(words);
  const parts = [
    `This is the part of the walkthrough video${recordingName(recording)} from ${range}.`,
    frames.length
      ? `${frames.length === 1 ? 'One frame follows' : `${frames.length} frames follow`}, in time order:\n${frames.map((f) => `- ${frameLabel(f)}`).join('\n')}`
      : 'No frames are sent for this part; list only the items the narration names, with frame and box null.',
    lines.length
      ? `What was said during this part:\n${lines.join('\n')}`
      : 'Nothing was said during this part (or there is no transcript): list what the frames show.',
    'List every distinct item visible in the frames or named in the narration, one entry per item, with video_time in seconds, the frame it is best seen on and its box on that frame (null for items that are only named).',
  ];
  return parts.join('\n\n');
}
