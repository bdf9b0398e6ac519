/**
 * The balanced split of an oversized group: a group over the per-item photo
 * cap becomes the fewest blocks that fit under it, as even as they can be
 * (sizes differ by at most one, the larger blocks first), with the photos in
 * their order. A contents-list label with too many photos and a homeowner's
 * oversized group are split the same way.
 */

/**
 * Block sizes for `count` photos under `cap` per block: 31 under 5 →
 * [5, 5, 5, 4, 4, 4, 4]; 0 photos → []. Both must be whole numbers, the cap
 * at least 1.
 */
export function balancedBlockSizes(count: number, cap: number): number[] {
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`Photo count must be a whole number >= 0, not ${count}.`);
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`Block cap must be a whole number >= 1, not ${cap}.`);
  if (count === 0) return [];
  const blocks = Math.ceil(count / cap);
  const base = Math.floor(count / blocks);
  const larger = count % blocks;
  return Array.from({ length: blocks }, (_, i) => (i < larger ? base + 1 : base));
}

/** The items cut into balanced blocks of at most `cap` (see balancedBlockSizes), order kept. */
export function splitBalanced<T>(items: readonly T[], cap: number): T[][] {
  let start = 0;
  return balancedBlockSizes(items.length, cap).map((size) => {
    const block = items.slice(start, start + size);
    start += size;
    return block;
  });
}
