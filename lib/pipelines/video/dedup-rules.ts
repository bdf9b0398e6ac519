/**
 * Cross-chunk dedup: an item filmed (or named) across a chunk boundary comes
 * back from both chunks' calls. Two items of ADJACENT chunks with the same
 * name (case, spacing and punctuation aside) merge when both lie within the
 * window of the boundary between them. Items farther apart, and two items of
 * the same chunk (which the model listed apart on purpose), never merge.
 *
 * At each boundary an item merges with at most one item across it (the
 * closest in time first), so a group is a run of items from consecutive
 * chunks, one per chunk. A group keeps the fields of its most confident item
 * (the one listed first on a tie), including its time, frame and box, with the
 * largest quantity any of them gave.
 */

export interface DedupItem {
  name: string;
  quantity: number;
  confidence: number;
}

export interface Located<T> {
  item: T;
  /** The index of the chunk whose answer held the item. */
  chunk: number;
  /** Seconds into the recording. */
  time: number;
}

/** "55-inch  TV!" and "55 inch tv" are one name. */
export function dedupKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The items after merging across boundaries, in their input order (a group
 * sits where its kept item was). `boundaries[k]` is the time between chunk k
 * and chunk k + 1 (chunk k's end).
 */
export function mergeAcrossChunks<T extends DedupItem>(
  items: readonly Located<T>[],
  boundaries: readonly number[],
  windowSeconds: number,
): Located<T>[] {
  const parent = items.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : root(parent[i]));
  const keys = items.map((l) => dedupKey(l.item.name));

  boundaries.forEach((boundary, k) => {
    const near = (i: number) => Math.abs(items[i].time - boundary) <= windowSeconds + 1e-9;
    const pairs: [number, number][] = [];
    items.forEach((a, i) => {
      if (a.chunk !== k || !near(i)) return;
      items.forEach((b, j) => {
        if (b.chunk === k + 1 && near(j) && keys[i] && keys[i] === keys[j]) pairs.push([i, j]);
      });
    });
    // Closest in time first; input order breaks ties.
    pairs.sort(
      ([a1, b1], [a2, b2]) => Math.abs(items[a1].time - items[b1].time) - Math.abs(items[a2].time - items[b2].time),
    );
    const used = new Set<number>();
    for (const [i, j] of pairs) {
      if (used.has(i) || used.has(j)) continue;
      used.add(i).add(j);
      parent[root(j)] = root(i);
    }
  });

  const groups = new Map<number, number[]>();
  items.forEach((_, i) => {
    const r = root(i);
    groups.set(r, [...(groups.get(r) ?? []), i]);
  });
  const kept = new Map<number, Located<T>>();
  for (const members of groups.values()) {
    // Members are in input order, so the first most confident one is the earlier on a tie.
    const best = members.reduce((b, i) => (items[i].item.confidence > items[b].item.confidence ? i : b));
    const quantity = Math.max(...members.map((i) => items[i].item.quantity));
    kept.set(best, { ...items[best], item: { ...items[best].item, quantity } });
  }
  return items.flatMap((_, i) => kept.get(i) ?? []);
}
