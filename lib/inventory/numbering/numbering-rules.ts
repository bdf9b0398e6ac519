/**
 * Item numbers of a claim (spec: Processing rules 3; Inventory, manual add
 * with insert-between numbering). Pure: what number a placed item takes,
 * which items move up to make room, in which order, and when the claim's
 * numbering lease may be taken over. The clock comes in as an argument.
 */

/** The sort key the job and room item indexes order by: the number, zero-padded. */
export const paddedItemNumber = (n: number) => String(n).padStart(8, '0');

/** Where a placed item goes: after the claim's last number, right after a number, or at a number (a restore). */
export type Placement = { kind: 'end' } | { kind: 'after'; number: number } | { kind: 'at'; number: number };

export const MISSING_POSITION = (n: number) => `Item #${n} does not exist in this claim.`;

/**
 * The number a placed item takes, given the claim's current maximum and
 * whether the number asked after exists; null when an insert names a number
 * the claim does not have (0 means at the start and always exists).
 */
export function placedNumber(placement: Placement, max: number, afterExists: boolean): number | null {
  if (placement.kind === 'end') return max + 1;
  if (placement.kind === 'at') return placement.number;
  if (placement.number !== 0 && !afterExists) return null;
  return placement.number + 1;
}

/**
 * The items that move up by one so `at` is free: every item numbered `at` or
 * more, highest first (so no two items ever share a number while they move),
 * or none when `at` is free already (a gap left by a delete is filled).
 */
export function itemsToShift<T extends { item_number: number }>(items: T[], at: number): T[] {
  const later = items.filter((i) => i.item_number >= at);
  if (!later.some((i) => i.item_number === at)) return [];
  return [...later].sort((a, b) => b.item_number - a.item_number);
}

/** The claim's maximum once `at` is taken and `shifted` moved up by one. */
export function maximumAfter(max: number, at: number, shifted: { item_number: number }[]): number {
  const top = shifted.reduce((m, i) => Math.max(m, i.item_number + 1), 0);
  return Math.max(max, at, top);
}

/** Splits a list into consecutive chunks of at most `size` (one transaction each). */
export function chunked<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export interface LeaseState {
  holder: string;
  /** Epoch milliseconds after which another caller may take the lease over. */
  expires_at: number;
}

/**
 * How long to wait before reading the item indexes: they catch up with the
 * table shortly after a write, so a renumber waits until `settleMs` after
 * the last numbering writer let go, and reads every item written before it.
 */
export function settleWaitMs(lastWriteMs: number | null | undefined, nowMs: number, settleMs: number): number {
  if (!lastWriteMs) return 0;
  return Math.max(0, lastWriteMs + settleMs - nowMs);
}

/**
 * Numbers for a pipeline batch written again after its numbers were handed
 * out: an item already written keeps the number it carries now (a renumber
 * may have moved it), the others take their place in the fresh range.
 */
export function batchNumbers(ids: string[], existing: Map<string, number>, first: number): number[] {
  return ids.map((id, i) => existing.get(id) ?? first + i);
}
