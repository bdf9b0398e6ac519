/** Cross-chunk dedup: same-named items of adjacent chunks near their boundary merge; nothing else does. */
import { dedupKey, type Located, mergeAcrossChunks } from '../../../../lib/pipelines/video/dedup-rules';

interface Item {
  name: string;
  quantity: number;
  confidence: number;
  frame: string;
}

const at = (chunk: number, time: number, name: string, extra: Partial<Item> = {}): Located<Item> => ({
  chunk,
  time,
  item: { name, quantity: 1, confidence: 0.5, frame: `f${time}`, ...extra },
});

// Chunks of 30 s: boundaries at 30, 60, 90.
const boundaries = [30, 60, 90];
const names = (items: Located<Item>[]) => items.map((l) => `${l.item.name}@${l.time}`);

describe('dedupKey', () => {
  it('ignores case, spacing, punctuation and accents', () => {
    expect(dedupKey('55-inch  TV!')).toBe(dedupKey('55 inch tv'));
    expect(dedupKey(' Café  Table ')).toBe('cafe table');
    expect(dedupKey('Sofa')).not.toBe(dedupKey('Sofa bed'));
  });
});

describe('mergeAcrossChunks', () => {
  it('merges same-named items of adjacent chunks within the window of their boundary', () => {
    const merged = mergeAcrossChunks(
      [at(0, 28, 'Sofa', { confidence: 0.7, quantity: 1 }), at(1, 31.5, 'sofa.', { confidence: 0.9, quantity: 2 })],
      boundaries,
      3,
    );
    expect(merged).toEqual([
      { chunk: 1, time: 31.5, item: { name: 'sofa.', quantity: 2, confidence: 0.9, frame: 'f31.5' } },
    ]);
  });

  it("keeps the more confident item's fields, frame and time, with the largest quantity", () => {
    const merged = mergeAcrossChunks(
      [at(0, 29, 'Chair', { confidence: 0.9, quantity: 1 }), at(1, 30.5, 'Chair', { confidence: 0.6, quantity: 4 })],
      boundaries,
      3,
    );
    expect(merged).toEqual([
      { chunk: 0, time: 29, item: { name: 'Chair', quantity: 4, confidence: 0.9, frame: 'f29' } },
    ]);
  });

  it('keeps the first listed on a confidence tie', () => {
    const merged = mergeAcrossChunks([at(0, 29, 'Lamp'), at(1, 31, 'Lamp')], boundaries, 3);
    expect(names(merged)).toEqual(['Lamp@29']);
  });

  it('counts the window edge as inside it', () => {
    expect(mergeAcrossChunks([at(0, 27, 'Lamp'), at(1, 33, 'Lamp')], boundaries, 3)).toHaveLength(1);
  });

  it('never merges when either item is farther from the boundary than the window', () => {
    expect(mergeAcrossChunks([at(0, 26.9, 'Lamp'), at(1, 31, 'Lamp')], boundaries, 3)).toHaveLength(2);
    expect(mergeAcrossChunks([at(0, 29, 'Lamp'), at(1, 33.1, 'Lamp')], boundaries, 3)).toHaveLength(2);
  });

  it('never merges items of chunks that are not adjacent, or near another boundary', () => {
    // Chunk 0 and chunk 2 (a short chunk 1 between them).
    expect(mergeAcrossChunks([at(0, 29, 'Lamp'), at(2, 31, 'Lamp')], [30, 30.5], 3)).toHaveLength(2);
    // Both near boundary 60, but the first belongs to chunk 0.
    expect(mergeAcrossChunks([at(0, 29.5, 'Lamp'), at(2, 61, 'Lamp')], boundaries, 40)).toHaveLength(2);
  });

  it('never merges two items of the same chunk, even near a boundary', () => {
    expect(mergeAcrossChunks([at(0, 28, 'Chair'), at(0, 29, 'Chair')], boundaries, 3)).toHaveLength(2);
  });

  it('never merges different names', () => {
    expect(mergeAcrossChunks([at(0, 29, 'Sofa'), at(1, 31, 'Sofa bed')], boundaries, 3)).toHaveLength(2);
    expect(mergeAcrossChunks([at(0, 29, '!!'), at(1, 31, '??')], boundaries, 3)).toHaveLength(2);
  });

  it('pairs each item with at most one across a boundary, the closest in time first', () => {
    const merged = mergeAcrossChunks(
      [
        at(0, 27.5, 'Chair', { frame: 'far' }),
        at(0, 29.5, 'Chair', { frame: 'near' }),
        at(1, 30.5, 'Chair', { confidence: 0.4 }),
      ],
      boundaries,
      3,
    );
    // 29.5 pairs with 30.5 (and keeps its fields, more confident); 27.5 stays: two chairs.
    expect(merged.map((l) => l.item.frame)).toEqual(['far', 'near']);
  });

  it('chains through a chunk shorter than the window, one item per chunk', () => {
    const merged = mergeAcrossChunks(
      [
        at(0, 29, 'Rug', { confidence: 0.5 }),
        at(1, 30.5, 'Rug', { confidence: 0.8, quantity: 2 }),
        at(2, 31.5, 'Rug', { quantity: 3 }),
      ],
      [30, 31],
      3,
    );
    expect(merged).toEqual([
      { chunk: 1, time: 30.5, item: { name: 'Rug', quantity: 3, confidence: 0.8, frame: 'f30.5' } },
    ]);
  });

  it('keeps the input order of what is left', () => {
    const merged = mergeAcrossChunks(
      [at(0, 5, 'TV'), at(0, 29, 'Lamp'), at(1, 31, 'Lamp', { confidence: 0.9 }), at(1, 45, 'Desk')],
      boundaries,
      3,
    );
    expect(names(merged)).toEqual(['TV@5', 'Lamp@31', 'Desk@45']);
    expect(mergeAcrossChunks([], boundaries, 3)).toEqual([]);
  });
});
