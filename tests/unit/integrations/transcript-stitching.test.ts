/** Covers: lib/integrations/transcript-stitching.ts (pieces of long audio, stitching, segments). */
import {
  segmentWords,
  stitchPieces,
  type TranscriptPiece,
  type TranscriptWord,
} from '../../../lib/integrations/transcript-stitching';

const w = (word: string, start: number, end: number, confidence = 0.9): TranscriptWord => ({
  word,
  start,
  end,
  confidence,
});

describe('stitchPieces', () => {
  it('is empty without pieces', () => {
    expect(stitchPieces([])).toEqual({ text: '', words: [], duration: 0 });
  });

  it('keeps a single piece as the provider answered it, shifted by its offset', () => {
    const piece: TranscriptPiece = {
      offset: 0,
      duration: 5,
      text: 'A $5 lamp.',
      words: [w('A', 0.5, 0.7), w('$5', 0.8, 1.1), w('lamp.', 1.2, 1.6)],
    };
    expect(stitchPieces([piece])).toEqual({ text: 'A $5 lamp.', words: piece.words, duration: 5 });
  });

  it('puts back-to-back pieces on the recording clock, in time order whatever the input order', () => {
    const first: TranscriptPiece = {
      offset: 0,
      duration: 600,
      text: 'A sofa.',
      words: [w('A', 1, 1.2), w('sofa.', 1.3, 1.9)],
    };
    const second: TranscriptPiece = {
      offset: 600,
      duration: 120.25,
      text: 'Two chairs.',
      words: [w('Two', 0.5, 0.8), w('chairs.', 0.9, 1.4)],
    };
    const stitched = stitchPieces([second, first]);
    expect(stitched.text).toBe('A sofa. Two chairs.');
    expect(stitched.words).toEqual([
      w('A', 1, 1.2),
      w('sofa.', 1.3, 1.9),
      w('Two', 600.5, 600.8),
      w('chairs.', 600.9, 601.4),
    ]);
    expect(stitched.duration).toBe(720.25);
  });

  it('keeps a word heard in an overlap once, by the side of the overlap middle its own middle falls on', () => {
    // Overlap 8..10 s, middle 9 s.
    const first: TranscriptPiece = {
      offset: 0,
      duration: 10,
      text: 'the oak table and a',
      words: [w('the', 7, 7.3), w('oak', 7.4, 7.8), w('table', 8.5, 8.9), w('and', 9.05, 9.3), w('a', 9.8, 10)],
    };
    const second: TranscriptPiece = {
      offset: 8,
      duration: 10,
      text: 'table and a lamp',
      // On the recording's clock: table 8.5-8.9 (middle 8.7) stays with the first piece; and, a, lamp come from this one.
      words: [w('table', 0.5, 0.9), w('and', 1.05, 1.3), w('a', 1.8, 2), w('lamp', 2.2, 2.6)],
    };
    const stitched = stitchPieces([first, second]);
    expect(stitched.words.map((x) => [x.word, x.start, x.end])).toEqual([
      ['the', 7, 7.3],
      ['oak', 7.4, 7.8],
      ['table', 8.5, 8.9],
      ['and', 9.05, 9.3],
      ['a', 9.8, 10],
      ['lamp', 10.2, 10.6],
    ]);
    // Both pieces lost words, so each contributes the words it kept.
    expect(stitched.text).toBe('the oak table and a lamp');
    expect(stitched.duration).toBe(18);
  });

  it('keeps the text of a piece that lost no word and rebuilds the one that did', () => {
    const first: TranscriptPiece = {
      offset: 0,
      duration: 10,
      text: 'A mirror.',
      words: [w('A', 2, 2.2), w('mirror.', 2.3, 2.8)],
    };
    const second: TranscriptPiece = {
      offset: 8,
      duration: 5,
      text: 'noise Rug.',
      words: [w('noise', 0.2, 0.4), w('Rug.', 2, 2.5)],
    };
    expect(stitchPieces([first, second]).text).toBe('A mirror. Rug.');
  });

  it('takes the text of a piece that has text but no words, and skips silent pieces', () => {
    const stitched = stitchPieces([
      { offset: 0, duration: 10, text: '  ', words: [] },
      { offset: 10, duration: 10, text: ' Hello there ', words: [] },
      { offset: 20, duration: 10, text: '', words: [w('lamp', 1, 1.5)] },
    ]);
    expect(stitched).toEqual({ text: 'Hello there lamp', words: [w('lamp', 21, 21.5)], duration: 30 });
  });

  it('lets a word running past its piece end extend the duration, and rounds to the millisecond', () => {
    const stitched = stitchPieces([{ offset: 0.1, duration: 1, text: 'long', words: [w('long', 0.2, 1.3000004)] }]);
    expect(stitched.words[0]).toEqual(w('long', 0.3, 1.4));
    expect(stitched.duration).toBe(1.4);
  });
});

describe('segmentWords', () => {
  it('has no segment without words', () => {
    expect(segmentWords([])).toEqual([]);
  });

  it('ends a segment after a sentence end, closing quotes and brackets included', () => {
    const words = [
      w('A', 0, 0.2),
      w('sofa.', 0.3, 0.8),
      w('Is', 0.9, 1),
      w('that', 1.1, 1.3),
      w('a', 1.4, 1.5),
      w('lamp?', 1.6, 2),
      w('"Wow!"', 2.1, 2.4),
      w('(new.)', 2.5, 2.9),
      w('end…', 3, 3.2),
      w('more', 3.3, 3.5),
    ];
    expect(segmentWords(words).map((s) => s.text)).toEqual([
      'A sofa.',
      'Is that a lamp?',
      '"Wow!"',
      '(new.)',
      'end…',
      'more',
    ]);
  });

  it('starts a new segment after a pause longer than the limit, not at one equal to it', () => {
    const words = [w('sofa', 0, 0.5), w('lamp', 1.5, 2), w('chair', 3.01, 3.5)];
    const segments = segmentWords(words);
    expect(segments).toEqual([
      { start: 0, end: 2, text: 'sofa lamp', words: [words[0], words[1]] },
      { start: 3.01, end: 3.5, text: 'chair', words: [words[2]] },
    ]);
    expect(segmentWords(words, { maxPauseSeconds: 0.5 }).map((s) => s.text)).toEqual(['sofa', 'lamp', 'chair']);
  });

  it('splits a long unpunctuated run at the longest segment allowed', () => {
    const words = Array.from({ length: 70 }, (_, n) => w(`word${n}`, n, n + 0.9));
    const segments = segmentWords(words);
    expect(segments.map((s) => s.words.length)).toEqual([30, 30, 10]);
    expect(segments.every((s) => s.end - s.start <= 30)).toBe(true);
    expect(segments[1].start).toBe(30);
    expect(segmentWords(words, { maxSegmentSeconds: 10 }).length).toBe(7);
  });

  it('keeps a single word longer than the limit as its own segment', () => {
    const segments = segmentWords([w('a', 0, 1), w('loooong', 1.1, 40), w('b', 40.1, 40.5)], { maxSegmentSeconds: 30 });
    expect(segments.map((s) => s.text)).toEqual(['a', 'loooong', 'b']);
  });
});
