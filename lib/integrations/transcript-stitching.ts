/**
 * Pure rules for the transcript of long audio: putting the words of
 * separately transcribed pieces (cut by lib/media/extraction-rules.ts
 * planAudioPieces) back on the recording's clock, and grouping
 * words into segments (the job stores the full text plus per-segment word
 * timings). No I/O; times are seconds, rounded to the millisecond.
 */

export interface TranscriptWord {
  /** As displayed: the provider's punctuated form when it gives one. */
  word: string;
  start: number;
  end: number;
  confidence: number;
}

/** One piece's transcript, its word times relative to the piece's own start. */
export interface TranscriptPiece {
  /** Where the piece starts on the recording's clock. */
  offset: number;
  /** Length of the piece's audio. */
  duration: number;
  text: string;
  words: TranscriptWord[];
}

export interface StitchedTranscript {
  text: string;
  /** On the recording's clock, in time order. */
  words: TranscriptWord[];
  duration: number;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  words: TranscriptWord[];
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Ends a sentence: a final stop, question or exclamation mark, maybe followed by a closing quote or bracket. */
const SENTENCE_END = /[.!?…]["'”’)\]]*$/;

/** Where the recording passes from piece a to piece b: the middle of their overlap, or where b starts. */
function cutBetween(a: TranscriptPiece, b: TranscriptPiece): number {
  const aEnd = a.offset + a.duration;
  return b.offset < aEnd ? (b.offset + aEnd) / 2 : b.offset;
}

const joinWords = (words: TranscriptWord[]) => words.map((w) => w.word).join(' ');

/**
 * Puts separately transcribed pieces back together on the recording's clock:
 * each word is shifted by its piece's offset; where pieces overlap, a word
 * belongs to the piece on whose side of the overlap's middle its own middle
 * falls, so it is kept once. The text is each piece's own text when none of
 * its words was dropped (the provider's formatting is kept), else its kept
 * words; the pieces' texts are joined in time order.
 */
export function stitchPieces(pieces: TranscriptPiece[]): StitchedTranscript {
  const ordered = [...pieces].sort((a, b) => a.offset - b.offset);
  const words: TranscriptWord[] = [];
  const texts: string[] = [];
  let duration = 0;
  ordered.forEach((piece, n) => {
    const from = n > 0 ? cutBetween(ordered[n - 1], piece) : Number.NEGATIVE_INFINITY;
    const until = n < ordered.length - 1 ? cutBetween(piece, ordered[n + 1]) : Number.POSITIVE_INFINITY;
    const kept = piece.words
      .map((w) => ({ ...w, start: round(w.start + piece.offset), end: round(w.end + piece.offset) }))
      .filter((w) => {
        const middle = (w.start + w.end) / 2;
        return middle >= from && middle < until;
      });
    const whole = kept.length === piece.words.length;
    const text = whole && piece.text.trim() ? piece.text.trim() : joinWords(kept);
    if (text) texts.push(text);
    words.push(...kept);
    duration = Math.max(duration, piece.offset + piece.duration, ...kept.map((w) => w.end));
  });
  // Stable: words of one piece keep the provider's order.
  words.sort((a, b) => a.start - b.start);
  return { text: texts.join(' '), words, duration: round(duration) };
}

export interface SegmentOptions {
  /** A silence longer than this between two words starts a new segment. */
  maxPauseSeconds?: number;
  /** A segment never runs longer than this (a long unpunctuated monologue still splits). */
  maxSegmentSeconds?: number;
}

/**
 * Groups words (in time order) into segments: a segment ends after a word that
 * ends a sentence, before a pause longer than `maxPauseSeconds` (1 s), and
 * before a word that would make it longer than `maxSegmentSeconds` (30 s).
 */
export function segmentWords(words: TranscriptWord[], options: SegmentOptions = {}): TranscriptSegment[] {
  const maxPause = options.maxPauseSeconds ?? 1;
  const maxLength = options.maxSegmentSeconds ?? 30;
  const segments: TranscriptSegment[] = [];
  let current: TranscriptWord[] = [];
  const close = () => {
    if (current.length === 0) return;
    segments.push({
      start: current[0].start,
      end: current[current.length - 1].end,
      text: joinWords(current),
      words: current,
    });
    current = [];
  };
  for (const word of words) {
    const previous = current[current.length - 1];
    if (previous && (word.start - previous.end > maxPause || word.end - current[0].start > maxLength)) close();
    current.push(word);
    if (SENTENCE_END.test(word.word)) close();
  }
  close();
  return segments;
}
