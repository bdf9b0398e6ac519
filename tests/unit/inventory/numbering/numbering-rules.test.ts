import {
  batchNumbers,
  chunked,
  itemsToShift,
  MISSING_POSITION,
  maximumAfter,
  paddedItemNumber,
  placedNumber,
  settleWaitMs,
} from '../../../../lib/inventory/numbering/numbering-rules';

const items = (...numbers: number[]) => numbers.map((item_number, i) => ({ id: `i${i}`, item_number }));

describe('paddedItemNumber', () => {
  it('pads to eight digits so the index sorts by number', () => {
    expect(paddedItemNumber(5)).toBe('00000005');
    expect(paddedItemNumber(12345678)).toBe('12345678');
  });
});

describe('placedNumber', () => {
  it('takes the next number at the end', () => {
    expect(placedNumber({ kind: 'end' }, 7, false)).toBe(8);
    expect(placedNumber({ kind: 'end' }, 0, false)).toBe(1);
  });

  it('takes the number right after an existing one, or 1 at the start', () => {
    expect(placedNumber({ kind: 'after', number: 4 }, 9, true)).toBe(5);
    expect(placedNumber({ kind: 'after', number: 0 }, 9, false)).toBe(1);
  });

  it('refuses an insert after a number the claim does not have', () => {
    expect(placedNumber({ kind: 'after', number: 42 }, 9, false)).toBeNull();
    expect(MISSING_POSITION(42)).toBe('Item #42 does not exist in this claim.');
  });

  it('puts a restored item at its own number', () => {
    expect(placedNumber({ kind: 'at', number: 3 }, 9, false)).toBe(3);
  });
});

describe('itemsToShift', () => {
  it('moves every item from the number on, highest first', () => {
    expect(itemsToShift(items(3, 5, 4, 6, 1), 4).map((i) => i.item_number)).toEqual([6, 5, 4]);
  });

  it('moves nothing when the number is free (a gap is filled)', () => {
    expect(itemsToShift(items(1, 2, 5, 6), 3)).toEqual([]);
    expect(itemsToShift([], 1)).toEqual([]);
  });
});

describe('maximumAfter', () => {
  it('counts the moved items and the placed one', () => {
    expect(maximumAfter(6, 4, items(6, 5, 4))).toBe(7);
    expect(maximumAfter(6, 7, [])).toBe(7);
    expect(maximumAfter(9, 3, [])).toBe(9);
  });
});

describe('chunked', () => {
  it('splits in order', () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 3)).toEqual([]);
  });
});

describe('settleWaitMs', () => {
  it('waits out the rest of the settle time after the last write', () => {
    expect(settleWaitMs(null, 1000, 500)).toBe(0);
    expect(settleWaitMs(undefined, 1000, 500)).toBe(0);
    expect(settleWaitMs(900, 1000, 500)).toBe(400);
    expect(settleWaitMs(100, 1000, 500)).toBe(0);
  });
});

describe('batchNumbers', () => {
  it('keeps the numbers of items written, the rest take their place in the fresh range', () => {
    expect(batchNumbers(['a', 'b', 'c'], new Map([['b', 17]]), 30)).toEqual([30, 17, 32]);
  });
});
