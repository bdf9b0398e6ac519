/** Covers: lib/db/lease-rules.ts (when a lease held in a row has run out) */
import { leaseHeld, leaseRanOut } from '../../../lib/db/lease-rules';

describe('leaseRanOut', () => {
  it('holds a lease through its last millisecond and lets it go after', () => {
    expect(leaseRanOut(1_000, 999)).toBe(false);
    expect(leaseRanOut(1_000, 1_000)).toBe(false);
    expect(leaseRanOut(1_000, 1_001)).toBe(true);
  });
});

describe('leaseHeld', () => {
  it('is held while it names a holder and has not run out', () => {
    expect(leaseHeld('a', 1_000, 1_000)).toBe(true);
    expect(leaseHeld('a', 1_000, 1_001)).toBe(false);
  });

  it('is free without a holder, and a holder without an end has run out', () => {
    expect(leaseHeld(null, 1_000, 0)).toBe(false);
    expect(leaseHeld(undefined, 1_000, 0)).toBe(false);
    expect(leaseHeld('a', null, 1)).toBe(false);
    expect(leaseHeld('a', undefined, 1)).toBe(false);
  });
});
