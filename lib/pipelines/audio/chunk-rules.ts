/**
 * Cutting a voice note's transcript into the chunks the model reads, one call
 * each. A word belongs to the chunk its start falls in, so no word is ever
 * cut; chunks where nothing was said make no call.
 */
import { chunkRanges, type TimedWord, transcriptWords, wordsText } from '../video/chunk-rules';

/**
 * Seconds of speech per chunk. Speech runs about 150 words a minute, so two
 * minutes is some 300 words, a few hundred tokens: a cheap, quick text call
 * that still holds a speaker's whole description of an item (what it is,
 * then its brand, age and price) in one piece far more often than 30-second
 * video chunks would. A 10-minute note makes 5 calls, all in flight at once
 * under the default per-job concurrency.
 */
export const AUDIO_CHUNK_SECONDS = 120;

export interface AudioChunk {
  /** The chunk's place on the time line (chunks k and k + 1 are adjacent). */
  index: number;
  start: number;
  end: number;
  words: TimedWord[];
  text: string;
}

/**
 * The chunks of a transcript: ranges of `chunkSeconds` over the recording
 * (up to its last word when the provider's clock runs past the probed
 * duration), each with the words starting in it. Chunks without words are
 * left out but keep their index.
 */
export function audioChunks(
  segments: readonly { words: readonly TimedWord[] }[],
  durationSeconds: number,
  chunkSeconds: number = AUDIO_CHUNK_SECONDS,
): AudioChunk[] {
  const words = transcriptWords(segments).filter(
    (w) => w.word.trim() && Number.isFinite(w.start) && Number.isFinite(w.end) && w.start >= 0,
  );
  if (!words.length) return [];
  const last = words[words.length - 1];
  const known = Number.isFinite(durationSeconds) ? durationSeconds : 0;
  // A recording of one word at 0 s with no length still makes one chunk.
  const ranges = chunkRanges(Math.max(known, last.start, last.end) || chunkSeconds, chunkSeconds);
  const byChunk: TimedWord[][] = ranges.map(() => []);
  for (const word of words) {
    // Every word lies in [0, last range's end]: the position is the range it starts in.
    byChunk[Math.min(ranges.length - 1, Math.floor(word.start / chunkSeconds + 1e-9))].push(word);
  }
  return ranges.flatMap((range, i) =>
    byChunk[i].length ? [{ ...range, words: byChunk[i], text: wordsText(byChunk[i]) }] : [],
  );
}
