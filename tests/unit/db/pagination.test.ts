/** Page cursors: only a key of the queried table or index, in the queried partition, is accepted. */
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../../lib/db/pagination';

const feed = { index: 'gsi1', pk: 'TEAM#team-a#ACTIVITY' };
const issued = {
  pk: 'ACTIVITY#1',
  sk: 'ACTIVITY',
  gsi1pk: 'TEAM#team-a#ACTIVITY',
  gsi1sk: '2025-01-01T00:00:00.000Z#1',
};
const cursorOf = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

const rejects = (cursor: string, scope = feed) => {
  expect(() => decodeCursor(cursor, scope)).toThrow(InvalidCursorError);
};

describe('decodeCursor', () => {
  it('gives back the key it encoded, and nothing for no cursor', () => {
    expect(decodeCursor(encodeCursor(issued)!, feed)).toEqual(issued);
    expect(decodeCursor(undefined, feed)).toBeUndefined();
    expect(decodeCursor('', feed)).toBeUndefined();
    expect(encodeCursor(undefined)).toBeNull();
  });

  it('accepts a table cursor for a table query', () => {
    const key = { pk: 'JOB#1', sk: 'PHOTO#000001' };
    expect(decodeCursor(encodeCursor(key)!, { pk: 'JOB#1' })).toEqual(key);
    rejects(encodeCursor(key)!, { pk: 'JOB#2' } as typeof feed);
  });

  it('refuses a key of the wrong shape', () => {
    rejects(cursorOf({ a: 1 }));
    rejects(cursorOf({}));
    rejects(cursorOf({ ...issued, extra: 'x' }));
    rejects(cursorOf({ pk: issued.pk, sk: issued.sk, gsi1pk: issued.gsi1pk }));
    rejects(cursorOf({ pk: issued.pk, sk: issued.sk, gsi2pk: issued.gsi1pk, gsi2sk: issued.gsi1sk }));
    rejects(cursorOf({ ...issued, gsi1sk: 7 }));
    rejects(cursorOf({ ...issued, sk: { S: 'ACTIVITY' } }));
    rejects(cursorOf({ ...issued, gsi1sk: '' }));
    rejects(cursorOf({ ...issued, gsi1sk: 'é'.repeat(513) })); // 1026 bytes: over DynamoDB's key size
    rejects(cursorOf([issued]));
  });

  it("refuses another partition's cursor", () => {
    rejects(cursorOf({ ...issued, gsi1pk: 'TEAM#team-b#ACTIVITY' }));
  });

  it('refuses what is not base64url JSON', () => {
    rejects(cursorOf('not json'));
    rejects(cursorOf('null'));
    rejects(cursorOf('"a string"'));
    rejects('%%%');
  });

  it('says the cursor is not one this service issued', () => {
    expect(() => decodeCursor(cursorOf({ a: 1 }), feed)).toThrow(/not a cursor this service issued/);
  });
});
