/**
 * What of a recording's transcript the job row carries. The whole transcript
 * (text, segments, every word's timing) is kept as a document in the bucket,
 * where an hours-long recording fits; the job row, which DynamoDB caps at
 * 400 KB with everything else on it, carries the text and the segments with
 * their word timings while they fit a budget, and otherwise the segments
 * without words (and the text cut at the budget), saying so.
 */
import type { TranscriptSegment } from '../integrations/transcript-stitching';

/** Bytes of JSON the transcript may take on the job row. */
const JOB_TRANSCRIPT_MAX_BYTES = 120_000;

/** The transcript document kept in the bucket. */
export interface StoredTranscript {
  text: string;
  /** Seconds of audio transcribed. */
  duration: number;
  segments: TranscriptSegment[];
}

/** The transcript as the job row carries it. */
export interface JobTranscript {
  text: string;
  segments: (TranscriptSegment | Omit<TranscriptSegment, 'words'>)[];
  /** False when the row's segments leave out their words (the bucket's document has them). */
  word_timings: boolean;
  /** True when the row's text is cut short. */
  truncated: boolean;
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Cuts text to at most `maxBytes` of UTF-8, never inside a character, and at a word boundary when there is one. */
function cutText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let cut = Buffer.from(text, 'utf8')
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  const space = cut.lastIndexOf(' ');
  if (space > 0) cut = cut.slice(0, space);
  return `${cut}…`;
}

export function transcriptForJob(transcript: StoredTranscript, maxBytes = JOB_TRANSCRIPT_MAX_BYTES): JobTranscript {
  const whole: JobTranscript = {
    text: transcript.text,
    segments: transcript.segments,
    word_timings: true,
    truncated: false,
  };
  if (bytesOf(whole) <= maxBytes) return whole;
  const segments = transcript.segments.map(({ start, end, text }) => ({ start, end, text }));
  const withoutWords: JobTranscript = { text: transcript.text, segments, word_timings: false, truncated: false };
  if (bytesOf(withoutWords) <= maxBytes) return withoutWords;
  // Still too long (hours of speech): the text alone, cut to the budget.
  return { text: cutText(transcript.text, maxBytes), segments: [], word_timings: false, truncated: true };
}
