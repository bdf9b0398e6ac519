import { daysFrom, decodeJobCursor, encodeJobCursor, previousDay } from '../../../lib/admin/job-page-rules';
import { InvalidCursorError } from '../../../lib/db/pagination';

const TODAY = '2026-03-01';
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('job list days', () => {
  it('steps back a day across month and year ends', () => {
    expect(previousDay('2026-03-01')).toBe('2026-02-28');
    expect(previousDay('2024-03-01')).toBe('2024-02-29');
    expect(previousDay('2026-01-01')).toBe('2025-12-31');
  });

  it('lists the days a total counts, newest first, down to the oldest', () => {
    expect(daysFrom('2026-03-02', '2026-02-27')).toEqual(['2026-03-02', '2026-03-01', '2026-02-28', '2026-02-27']);
    expect(daysFrom('2026-03-02', '2026-03-02')).toEqual(['2026-03-02']);
    expect(daysFrom('2026-03-02', '2026-03-05')).toEqual(['2026-03-02']);
    expect(daysFrom('2026-01-01', '2025-01-01')).toHaveLength(366);
  });
});

describe('job list cursors', () => {
  it('start at the top of today without one, skipping the offset, and give back what they were made of', () => {
    expect(decodeJobCursor(undefined, TODAY)).toEqual({ day: TODAY, after: null, skip: 0 });
    expect(decodeJobCursor(undefined, TODAY, 40)).toEqual({ day: TODAY, after: null, skip: 40 });
    const position = { day: '2026-02-27', after: '2026-02-27T10:00:00.000Z#job-1', skip: 0 };
    expect(decodeJobCursor(encodeJobCursor(position), TODAY)).toEqual(position);
    // The offset of a request that passes a cursor is the cursor's business: the route refuses both at once.
    expect(decodeJobCursor(encodeJobCursor(position), TODAY, 40)).toEqual(position);
    const goOn = { day: '2026-01-11', after: null, skip: 312 };
    expect(decodeJobCursor(encodeJobCursor(goOn), TODAY)).toEqual(goOn);
    // Nothing left to skip is not written.
    expect(JSON.parse(Buffer.from(encodeJobCursor(position), 'base64url').toString())).toEqual({
      day: position.day,
      after: position.after,
    });
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['an array', cursorOf(['2026-02-27', null])],
    ['null', cursorOf(null)],
    ['an extra field', cursorOf({ day: '2026-02-27', after: null, pk: 'JOBS' })],
    ['no day', cursorOf({ after: null })],
    ['a day that rolls over', cursorOf({ day: '2026-02-30', after: null })],
    ['a month that is no month', cursorOf({ day: '2026-13-45', after: null })],
    ['a day after today', cursorOf({ day: '2026-03-02', after: null })],
    ['a position on another day', cursorOf({ day: '2026-02-27', after: '2026-02-26T10:00:00.000Z#x' })],
    ['a position that is no string', cursorOf({ day: '2026-02-27', after: 7 })],
    ['a position too long', cursorOf({ day: '2026-02-27', after: `2026-02-27T${'x'.repeat(300)}` })],
    ['a negative skip', cursorOf({ day: '2026-02-27', after: null, skip: -1 })],
    ['a skip that is no whole number', cursorOf({ day: '2026-02-27', after: null, skip: 1.5 })],
    ['a skip that is a string', cursorOf({ day: '2026-02-27', after: null, skip: '3' })],
    ['a skip past the safe integers', cursorOf({ day: '2026-02-27', after: null, skip: 2 ** 60 })],
  ])('refuse %s as a cursor this service did not issue', (_, cursor) => {
    expect(() => decodeJobCursor(cursor, TODAY)).toThrow(InvalidCursorError);
  });
});
