/**
 * Reading many small pieces of one object with few requests: pieces close
 * together are fetched as one span (one Range GET) and cut apart afterwards.
 * A gap of up to `maxGap` bytes between neighbours is read and thrown away,
 * which costs less than another round trip.
 */

/** `length` bytes of an object from `offset`. */
export interface ByteRange {
  offset: number;
  length: number;
}

/** One Range GET: bytes [start, end) and which of the asked ranges (by position) it holds. */
export interface RangeSpan {
  start: number;
  end: number;
  members: number[];
}

/** Bytes of unwanted gap worth reading rather than starting another request. */
export const DEFAULT_MAX_GAP = 256 * 1024;

/** The spans that cover `ranges` (in any order, overlaps allowed), in offset order. */
export function spanRanges(ranges: readonly ByteRange[], maxGap: number = DEFAULT_MAX_GAP): RangeSpan[] {
  for (const r of ranges)
    if (!(Number.isInteger(r.offset) && r.offset >= 0 && Number.isInteger(r.length) && r.length > 0))
      throw new RangeError(`not a byte range: offset ${r.offset}, length ${r.length}`);
  const order = ranges.map((_, i) => i).sort((a, b) => ranges[a].offset - ranges[b].offset);
  const spans: RangeSpan[] = [];
  for (const i of order) {
    const { offset, length } = ranges[i];
    const last = spans.at(-1);
    if (last && offset - last.end <= maxGap) {
      last.end = Math.max(last.end, offset + length);
      last.members.push(i);
    } else {
      spans.push({ start: offset, end: offset + length, members: [i] });
    }
  }
  return spans;
}

/** Each asked range cut out of the spans' bytes, in the order the ranges were asked. */
export function cutRanges(
  ranges: readonly ByteRange[],
  spans: readonly RangeSpan[],
  bodies: readonly Buffer[],
): Buffer[] {
  const out: Buffer[] = new Array(ranges.length);
  spans.forEach((span, s) => {
    for (const i of span.members) {
      const from = ranges[i].offset - span.start;
      const piece = bodies[s].subarray(from, from + ranges[i].length);
      if (piece.length !== ranges[i].length)
        throw new RangeError(`the object ends before bytes ${ranges[i].offset}+${ranges[i].length}`);
      out[i] = piece;
    }
  });
  return out;
}
