/** Video chunks: ranges, which frames each holds, density selection and the transcript slice. */
import {
  type CandidateFrame,
  chunkContains,
  chunkIndexAt,
  chunkRanges,
  frameBudget,
  framesByChunk,
  framesShareBuckets,
  selectFrames,
  sliceTranscript,
  type TimedWord,
  transcriptWords,
  unmeasuredRivals,
  wordsText,
} from '../../../../lib/pipelines/video/chunk-rules';

const frame = (time: number, sharpness = 1, name = `f${time}`): CandidateFrame => ({ name, time, sharpness });
const word = (w: string, start: number, end = start + 0.3): TimedWord => ({ word: w, start, end });
const limits = { framesPerMinute: 60, maxFramesPerCall: 60 };

describe('chunkRanges', () => {
  it('cuts the duration into chunks of the chunk length, the last one shorter', () => {
    expect(chunkRanges(75, 30)).toEqual([
      { index: 0, start: 0, end: 30 },
      { index: 1, start: 30, end: 60 },
      { index: 2, start: 60, end: 75 },
    ]);
    expect(chunkRanges(60, 30)).toHaveLength(2);
    expect(chunkRanges(60.0000000001, 30)).toHaveLength(2);
    expect(chunkRanges(10, 30)).toEqual([{ index: 0, start: 0, end: 10 }]);
  });

  it('has no chunk for an empty or unknown duration and refuses a non-positive chunk length', () => {
    expect(chunkRanges(0, 30)).toEqual([]);
    expect(chunkRanges(Number.NaN, 30)).toEqual([]);
    expect(() => chunkRanges(60, 0)).toThrow(RangeError);
    expect(() => chunkRanges(60, Number.NaN)).toThrow(RangeError);
  });
});

describe('which chunk holds a time', () => {
  const chunks = chunkRanges(75, 30);

  it('puts a boundary time in the later chunk and the very end in the last chunk', () => {
    expect(chunkIndexAt(chunks, 0)).toBe(0);
    expect(chunkIndexAt(chunks, 29.999)).toBe(0);
    expect(chunkIndexAt(chunks, 30)).toBe(1);
    expect(chunkIndexAt(chunks, 60)).toBe(2);
    expect(chunkIndexAt(chunks, 75)).toBe(2);
  });

  it('has no chunk before the start or past the end', () => {
    expect(chunkIndexAt(chunks, -1)).toBeNull();
    expect(chunkIndexAt(chunks, 75.5)).toBeNull();
    expect(chunkIndexAt([], 3)).toBeNull();
  });

  it('closes only the last chunk at its end', () => {
    expect(chunkContains({ index: 0, start: 0, end: 30 }, 30, false)).toBe(false);
    expect(chunkContains({ index: 0, start: 0, end: 30 }, 30, true)).toBe(true);
  });

  it('is not fooled by float noise on a fine grid', () => {
    const fine = chunkRanges(1, 0.1);
    expect(fine).toHaveLength(10);
    expect(chunkIndexAt(fine, 0.3)).toBe(3);
  });
});

describe('framesByChunk', () => {
  it('gives every frame to exactly one chunk, in time order, and leaves out frames past the end', () => {
    const frames = [frame(31), frame(0), frame(29), frame(30), frame(74), frame(75), frame(80)];
    const byChunk = framesByChunk(chunkRanges(75, 30), frames);
    expect(byChunk.map((fs) => fs.map((f) => f.time))).toEqual([
      [0, 29],
      [30, 31],
      [74, 75],
    ]);
  });
});

describe('frame selection by density', () => {
  it('sends at most min(per-call cap, frames per minute x chunk minutes), at least one', () => {
    expect(frameBudget({ index: 0, start: 0, end: 30 }, limits)).toBe(30);
    expect(frameBudget({ index: 0, start: 0, end: 30 }, { framesPerMinute: 60, maxFramesPerCall: 12 })).toBe(12);
    expect(frameBudget({ index: 0, start: 0, end: 30 }, { framesPerMinute: 10, maxFramesPerCall: 60 })).toBe(5);
    expect(frameBudget({ index: 3, start: 90, end: 90.4 }, limits)).toBe(1);
  });

  it('keeps every frame of a 1 fps chunk at the default density', () => {
    const frames = Array.from({ length: 30 }, (_, i) => frame(30 + i));
    expect(selectFrames({ index: 1, start: 30, end: 60 }, frames, limits)).toEqual(frames);
  });

  it('picks the sharpest frame of each time bucket, in time order', () => {
    // 20 frames per minute over 30 s: 10 buckets of 3 s.
    const frames = Array.from({ length: 30 }, (_, i) => frame(i, (i * 7) % 10));
    const picked = selectFrames({ index: 0, start: 0, end: 30 }, frames, { framesPerMinute: 20, maxFramesPerCall: 60 });
    expect(picked).toHaveLength(10);
    picked.forEach((f, bucket) => {
      const inBucket = frames.filter((c) => c.time >= bucket * 3 && c.time < bucket * 3 + 3);
      expect(f.sharpness).toBe(Math.max(...inBucket.map((c) => c.sharpness ?? -1)));
      expect(inBucket).toContain(f);
    });
  });

  it('gives a tie to the earlier frame, whatever the input order', () => {
    const frames = [frame(2, 5, 'late'), frame(1, 5, 'early'), frame(0, 1)];
    expect(selectFrames({ index: 0, start: 0, end: 3 }, frames, { framesPerMinute: 20, maxFramesPerCall: 60 })).toEqual(
      [frame(1, 5, 'early')],
    );
  });

  it('sends nothing for empty buckets and at most the per-call cap', () => {
    const sparse = [frame(0.5, 1), frame(20, 1)];
    expect(selectFrames({ index: 0, start: 0, end: 30 }, sparse, limits).map((f) => f.time)).toEqual([0.5, 20]);
    const dense = Array.from({ length: 300 }, (_, i) => frame(i / 10, i % 3));
    expect(
      selectFrames({ index: 0, start: 0, end: 30 }, dense, { framesPerMinute: 600, maxFramesPerCall: 8 }),
    ).toHaveLength(8);
    expect(selectFrames({ index: 0, start: 0, end: 30 }, [], limits)).toEqual([]);
  });

  it('keeps the last chunk-end frame in the last bucket and copes with a zero-length chunk', () => {
    expect(selectFrames({ index: 2, start: 60, end: 75 }, [frame(75, 3)], limits)).toEqual([frame(75, 3)]);
    expect(selectFrames({ index: 0, start: 5, end: 5 }, [frame(5, 1), frame(5, 2, 'b')], limits)).toEqual([
      frame(5, 2, 'b'),
    ]);
  });
});

describe('frames left unmeasured by extraction', () => {
  const unmeasured = (time: number) => ({ name: `f${time}`, time, sharpness: null });

  it('measures at extraction only when frames of a full chunk share its time buckets', () => {
    const base = { fps: 1, keyframesOnly: false, chunkSeconds: 30, limits };
    expect(framesShareBuckets(base)).toBe(false);
    expect(framesShareBuckets({ ...base, fps: 2 })).toBe(true);
    expect(framesShareBuckets({ ...base, limits: { framesPerMinute: 20, maxFramesPerCall: 60 } })).toBe(true);
    expect(framesShareBuckets({ ...base, limits: { framesPerMinute: 60, maxFramesPerCall: 10 } })).toBe(true);
    expect(framesShareBuckets({ ...base, fps: 0.5 })).toBe(false);
    expect(framesShareBuckets({ ...base, keyframesOnly: true })).toBe(true);
  });

  it('names the unmeasured frames that share a bucket, and only those', () => {
    // 10.5 s at 60 a minute: 10 buckets of 1.05 s, so the frames at 0 s and 1 s share the first.
    const frames = Array.from({ length: 11 }, (_, i) => unmeasured(i));
    expect(unmeasuredRivals({ index: 0, start: 0, end: 10.5 }, frames, limits).map((f) => f.time)).toEqual([0, 1]);
    expect(unmeasuredRivals({ index: 0, start: 0, end: 11 }, frames, limits)).toEqual([]);
    const mixed = [frame(0, 4), unmeasured(0.5), unmeasured(5)];
    expect(unmeasuredRivals({ index: 0, start: 0, end: 10 }, mixed, limits).map((f) => f.time)).toEqual([0.5]);
  });

  it('picks a measured frame over an unmeasured one, and the earlier of two unmeasured', () => {
    expect(selectFrames({ index: 0, start: 0, end: 1 }, [unmeasured(0), frame(0.5, 0)], limits)).toEqual([
      frame(0.5, 0),
    ]);
    expect(selectFrames({ index: 0, start: 0, end: 1 }, [unmeasured(0.5), unmeasured(0)], limits)).toEqual([
      unmeasured(0),
    ]);
  });
});

describe('transcript slicing', () => {
  const segments = [
    { words: [word('We', 28.5), word('have', 29.1), word('a', 29.8)] },
    { words: [word('Samsung', 30.0), word('TV.', 30.6)] },
    { words: [word(' ', 31), word('Sofa', 75)] },
  ];

  it('keeps the words that start inside the chunk and rebuilds their text', () => {
    expect(sliceTranscript(segments, { index: 0, start: 0, end: 30 }, false)).toEqual({
      text: 'We have a',
      words: [word('We', 28.5), word('have', 29.1), word('a', 29.8)],
    });
    expect(sliceTranscript(segments, { index: 1, start: 30, end: 60 }, false).text).toBe('Samsung TV.');
  });

  it('gives a word at the very end to the last chunk', () => {
    expect(sliceTranscript(segments, { index: 2, start: 60, end: 75 }, true).text).toBe('Sofa');
    expect(sliceTranscript(segments, { index: 2, start: 60, end: 75 }, false).text).toBe('');
  });

  it('orders words across segments by time and skips blank words in the text', () => {
    const unordered = [{ words: [word('two', 2)] }, { words: [word('one', 1)] }];
    expect(transcriptWords(unordered).map((w) => w.word)).toEqual(['one', 'two']);
    expect(wordsText([word(' a ', 0), word('', 1), word('b', 2)])).toBe('a b');
    expect(sliceTranscript([], { index: 0, start: 0, end: 30 }, true)).toEqual({ text: '', words: [] });
  });
});
