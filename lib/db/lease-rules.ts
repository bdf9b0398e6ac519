/**
 * When a lease held in a row has run out. A lease runs until an epoch
 * millisecond and is held through that millisecond; a holder that dies
 * without letting go frees it once it has run out. The clock comes in as an
 * argument.
 */

/** Whether a lease running until `untilMs` has run out at `nowMs`. */
export const leaseRanOut = (untilMs: number, nowMs: number): boolean => untilMs < nowMs;

/** Whether a row's lease is held at `nowMs`: it names a holder and has not run out (no end counts as run out). */
export const leaseHeld = (holder: string | null | undefined, untilMs: number | null | undefined, nowMs: number) =>
  Boolean(holder) && !leaseRanOut(untilMs ?? 0, nowMs);
