/** Reading many pieces of one object: which Range GETs cover them, and cutting the pieces back out. */
import { cutRanges, DEFAULT_MAX_GAP, spanRanges } from '../../../lib/blob/range-rules';

describe('spanRanges', () => {
  it('reads pieces back to back in one request', () => {
    const ranges = [
      { offset: 0, length: 10 },
      { offset: 10, length: 5 },
      { offset: 15, length: 20 },
    ];
    expect(spanRanges(ranges)).toEqual([{ start: 0, end: 35, members: [0, 1, 2] }]);
  });

  it('reads across a small gap but starts a new request after a large one', () => {
    const ranges = [
      { offset: 0, length: 100 },
      { offset: 100 + DEFAULT_MAX_GAP, length: 50 },
      { offset: 151 + 2 * DEFAULT_MAX_GAP, length: 10 },
    ];
    expect(spanRanges(ranges)).toEqual([
      { start: 0, end: 150 + DEFAULT_MAX_GAP, members: [0, 1] },
      { start: 151 + 2 * DEFAULT_MAX_GAP, end: 161 + 2 * DEFAULT_MAX_GAP, members: [2] },
    ]);
    expect(spanRanges(ranges, 0)).toHaveLength(3);
  });

  it('takes pieces in any order and overlapping ones', () => {
    const ranges = [
      { offset: 500, length: 10 },
      { offset: 0, length: 20 },
      { offset: 5, length: 5 },
    ];
    expect(spanRanges(ranges, 100)).toEqual([
      { start: 0, end: 20, members: [1, 2] },
      { start: 500, end: 510, members: [0] },
    ]);
  });

  it('is empty for no pieces and refuses a piece that is not a byte range', () => {
    expect(spanRanges([])).toEqual([]);
    expect(() => spanRanges([{ offset: -1, length: 3 }])).toThrow(RangeError);
    expect(() => spanRanges([{ offset: 0, length: 0 }])).toThrow(RangeError);
    expect(() => spanRanges([{ offset: 1.5, length: 3 }])).toThrow(RangeError);
  });
});

describe('cutRanges', () => {
  const object = Buffer.from('abcdefghijklmnopqrstuvwxyz');
  const read = (start: number, end: number) => object.subarray(start, end);

  it('gives each piece its bytes, in the order asked', () => {
    const ranges = [
      { offset: 20, length: 3 },
      { offset: 0, length: 2 },
      { offset: 3, length: 4 },
    ];
    const spans = spanRanges(ranges, 10);
    const pieces = cutRanges(
      ranges,
      spans,
      spans.map((s) => read(s.start, s.end)),
    );
    expect(pieces.map((p) => p.toString())).toEqual(['uvw', 'ab', 'defg']);
  });

  it('throws when the object ends before a piece does', () => {
    const ranges = [{ offset: 24, length: 5 }];
    const spans = spanRanges(ranges);
    expect(() => cutRanges(ranges, spans, [read(24, 29)])).toThrow(/ends before bytes 24\+5/);
  });
});
