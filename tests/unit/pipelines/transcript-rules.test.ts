/** What of a transcript the job row carries: everything while it fits, then less, saying so. */
import type { TranscriptSegment } from '../../../lib/integrations/transcript-stitching';
import { type StoredTranscript, transcriptForJob } from '../../../lib/pipelines/transcript-rules';

function transcript(segments: number, wordsPerSegment = 4): StoredTranscript {
  const list: TranscriptSegment[] = Array.from({ length: segments }, (_, s) => {
    const words = Array.from({ length: wordsPerSegment }, (_, w) => ({
      word: `word${s}-${w}`,
      start: s * 10 + w,
      end: s * 10 + w + 0.5,
      confidence: 0.9,
    }));
    return { start: words[0].start, end: words[words.length - 1].end, text: words.map((w) => w.word).join(' '), words };
  });
  return { text: list.map((s) => s.text).join(' '), duration: segments * 10, segments: list };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('transcriptForJob', () => {
  it('carries the whole transcript with word timings when it fits', () => {
    const t = transcript(3);
    expect(transcriptForJob(t)).toEqual({ text: t.text, segments: t.segments, word_timings: true, truncated: false });
  });

  it('leaves the words out of the segments when only that fits', () => {
    const t = transcript(40, 10);
    const budget = bytes({ text: t.text, segments: t.segments }) - 1;
    const row = transcriptForJob(t, budget);
    expect(row.word_timings).toBe(false);
    expect(row.truncated).toBe(false);
    expect(row.text).toBe(t.text);
    expect(row.segments).toEqual(t.segments.map(({ start, end, text }) => ({ start, end, text })));
    expect(bytes(row)).toBeLessThanOrEqual(budget);
  });

  it('keeps only the text, cut at a word within the budget, when even the segments do not fit', () => {
    const t = transcript(40, 10);
    const row = transcriptForJob(t, 2_000);
    expect(row).toMatchObject({ segments: [], word_timings: false, truncated: true });
    expect(row.text.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(row.text.slice(0, -1), 'utf8')).toBeLessThanOrEqual(2_000);
    expect(t.text.startsWith(row.text.slice(0, -1))).toBe(true);
    expect(t.text[row.text.length - 1]).toBe(' ');
  });

  it('keeps the whole text when only the segments are over the budget', () => {
    const t: StoredTranscript = { ...transcript(40, 10), text: 'A sofa and a lamp.' };
    const row = transcriptForJob(t, 2_000);
    expect(row).toEqual({ text: 'A sofa and a lamp.', segments: [], word_timings: false, truncated: true });
  });

  it('never cuts inside a character, and cuts a text without spaces at the byte budget', () => {
    const t: StoredTranscript = { text: 'é'.repeat(5000), duration: 1, segments: [] };
    const row = transcriptForJob(t, 1001);
    expect(row.text).toBe(`${'é'.repeat(500)}…`);
    expect(row.truncated).toBe(true);
  });
});
