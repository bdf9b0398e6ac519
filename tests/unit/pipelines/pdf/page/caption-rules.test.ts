import { leadingQuantity, normalizePrintedDate } from '../../../../../lib/pipelines/pdf/page/caption-rules';

describe('leadingQuantity', () => {
  it.each([
    ['2 x Chairs', 2],
    ['2x', 2],
    ['2 X', 2],
    ['  12x Dining chairs', 12],
    ['3× plates', 3],
    ['4 x: mugs', 4],
    ['10000 x nails', 10000],
  ])('%j → %j', (text, n) => {
    expect(leadingQuantity(text)).toBe(n);
  });

  it.each(['Chairs x 2', '2x4 stud', '2xl shirt', '2 boxes', '0 x Chairs', '10001 x nails', 'x 2', ''])(
    '%j → null',
    (text) => {
      expect(leadingQuantity(text)).toBeNull();
    },
  );
});

describe('normalizePrintedDate', () => {
  it.each([
    ['03/14/2024', '2024-03-14T00:00:00'],
    ['3/4/2024', '2024-03-04T00:00:00'],
    ['Taken 03/14/2024 2:05 PM', '2024-03-14T14:05:00'],
    ['03/14/2024 2:05:09 pm', '2024-03-14T14:05:09'],
    ['03/14/2024 12:30 AM', '2024-03-14T00:30:00'],
    ['03/14/2024 12:30 PM', '2024-03-14T12:30:00'],
    ['03/14/2024 9:15a.m.', '2024-03-14T09:15:00'],
    ['03/14/2024, 17:45', '2024-03-14T17:45:00'],
    ['03/14/2024 at 7:45 PM', '2024-03-14T19:45:00'],
    ['2024-03-14', '2024-03-14T00:00:00'],
    ['Date: 2024-03-14 17:45', '2024-03-14T17:45:00'],
    ['2024-03-14T17:45:30', '2024-03-14T17:45:30'],
    ['March 14, 2024', '2024-03-14T00:00:00'],
    ['purchased march 14 2024 3:00 PM', '2024-03-14T15:00:00'],
    ['Mar. 1st, 2024', '2024-03-01T00:00:00'],
    ['Sept 30, 2023 08:00', '2023-09-30T08:00:00'],
    ['May 2, 2020', '2020-05-02T00:00:00'],
    ['Feb 29, 2024', '2024-02-29T00:00:00'],
    ['12/31/1999 11:59:59 PM', '1999-12-31T23:59:59'],
  ])('%j → %j', (text, expected) => {
    expect(normalizePrintedDate(text)).toBe(expected);
  });

  it('reads slashed dates month first', () => {
    expect(normalizePrintedDate('04/05/2024')).toBe('2024-04-05T00:00:00');
    // Day first does not exist month first.
    expect(normalizePrintedDate('14/03/2024')).toBeNull();
  });

  it('keeps the date and drops a time that is not one', () => {
    expect(normalizePrintedDate('03/14/2024 5 PM')).toBe('2024-03-14T00:00:00');
  });

  it('falls through to another form when the first date read is not a real one', () => {
    expect(normalizePrintedDate('02/30/2024 or 2024-03-01')).toBe('2024-03-01T00:00:00');
    expect(normalizePrintedDate('2024-02-30, March 2, 2024')).toBe('2024-03-02T00:00:00');
  });

  it.each([
    'no date here',
    '',
    '13/01/2024',
    '02/29/2023',
    '2024-13-01',
    '2024-00-10',
    '03/14/2024 25:00',
    '03/14/2024 13:00 PM',
    '03/14/2024 0:30 AM',
    '03/14/2024 10:60',
    '03/14/2024 10:59:60',
    'March 32, 2024',
    'Feb 30 2024',
    '1/2/24',
    '103/14/2024',
    '2024-03-145',
    'Marching 14, 2024',
  ])('%j → null', (text) => {
    expect(normalizePrintedDate(text)).toBeNull();
  });
});
