/** Covers: lib/photos/split-rules.ts (the balanced split of an oversized group). */
import { balancedBlockSizes, splitBalanced } from '../../../lib/photos/split-rules';

describe('balancedBlockSizes', () => {
  it.each([
    [31, 5, [5, 5, 5, 4, 4, 4, 4]],
    [6, 5, [3, 3]],
    [7, 5, [4, 3]],
    [10, 5, [5, 5]],
    [11, 5, [4, 4, 3]],
    [5, 5, [5]],
    [1, 5, [1]],
    [3, 1, [1, 1, 1]],
    [0, 5, []],
  ])('splits %i under %i into %j', (count, cap, sizes) => {
    expect(balancedBlockSizes(count, cap)).toEqual(sizes);
  });

  it('uses the fewest blocks that fit, sizes within one of each other, larger first, summing to the count', () => {
    for (let cap = 1; cap <= 7; cap++) {
      for (let count = 1; count <= 60; count++) {
        const sizes = balancedBlockSizes(count, cap);
        expect(sizes).toHaveLength(Math.ceil(count / cap));
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(count);
        expect(Math.max(...sizes)).toBeLessThanOrEqual(cap);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
      }
    }
  });

  it.each([
    [-1, 5],
    [2.5, 5],
    [Number.NaN, 5],
    [4, 0],
    [4, 1.5],
    [4, Number.POSITIVE_INFINITY],
  ])('refuses count %j with cap %j', (count, cap) => {
    expect(() => balancedBlockSizes(count, cap)).toThrow(RangeError);
  });
});

describe('splitBalanced', () => {
  it('cuts the items into the balanced blocks, order kept', () => {
    const items = Array.from({ length: 31 }, (_, i) => `p${i}`);
    const blocks = splitBalanced(items, 5);
    expect(blocks.map((b) => b.length)).toEqual([5, 5, 5, 4, 4, 4, 4]);
    expect(blocks.flat()).toEqual(items);
    expect(blocks[1]).toEqual(['p5', 'p6', 'p7', 'p8', 'p9']);
  });

  it('keeps a group that fits as one block, and gives no block for no items', () => {
    const items = [{ id: 1 }, { id: 2 }];
    expect(splitBalanced(items, 5)).toEqual([items]);
    expect(splitBalanced([], 5)).toEqual([]);
  });
});
