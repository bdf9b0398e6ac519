import { computedCapacity, itemSize, reportedCapacity, valueSize } from '../../bench/ops/dynamodb-capacity';

const text = (bytes: number) => ({ S: 'x'.repeat(bytes) });

describe('item sizes', () => {
  it('counts attribute names and values by DynamoDB’s rules', () => {
    expect(valueSize({ S: 'héllo' })).toBe(6);
    expect(valueSize({ N: '123.45' })).toBe(4);
    expect(valueSize({ BOOL: true })).toBe(1);
    expect(valueSize({ NULL: true })).toBe(1);
    expect(valueSize({ B: Buffer.from('abcd').toString('base64') })).toBe(4);
    expect(valueSize({ L: [{ S: 'ab' }, { N: '1' }] })).toBe(3 + (2 + 1) + (2 + 1));
    expect(valueSize({ M: { k: { S: 'ab' } } })).toBe(3 + 1 + 2 + 1);
    expect(itemSize({ pk: { S: 'abc' }, n: { N: '7' } })).toBe(2 + 3 + 1 + 2);
  });
});

describe('computedCapacity', () => {
  it('charges a put one write unit per started KB', () => {
    expect(computedCapacity('PutItem', { Item: { pk: text(100) } }, {}).write).toBe(1);
    expect(computedCapacity('PutItem', { Item: { d: text(2500) } }, {}).write).toBe(3);
  });

  it('charges reads per 4 KB, half for eventually consistent ones, half a unit at least', () => {
    expect(computedCapacity('GetItem', {}, { Item: { d: text(5000) } }).read).toBe(1);
    expect(computedCapacity('GetItem', { ConsistentRead: true }, { Item: { d: text(5000) } }).read).toBe(2);
    expect(computedCapacity('GetItem', {}, {}).read).toBe(0.5);
  });

  it('charges a query on the total size of what it returned', () => {
    const items = [{ d: text(2500) }, { d: text(2500) }];
    expect(computedCapacity('Query', {}, { Items: items }).read).toBe(1);
    expect(computedCapacity('Query', { ConsistentRead: true }, { Items: items }).read).toBe(2);
  });

  it('charges batch gets per item', () => {
    const answer = { Responses: { t: [{ d: text(100) }, { d: text(100) }] } };
    expect(computedCapacity('BatchGetItem', { RequestItems: { t: {} } }, answer).read).toBe(1);
  });

  it('doubles transactions: two units per KB of each item, two for an item whose size is not in the request', () => {
    const request = {
      TransactItems: [
        { Put: { Item: { d: text(2500) } } },
        { Put: { Item: { d: text(100) } } },
        { Update: { Key: { pk: { S: 'a' } } } },
        { ConditionCheck: { Key: { pk: { S: 'b' } } } },
      ],
    };
    expect(computedCapacity('TransactWriteItems', request, {}).write).toBe(6 + 2 + 2 + 2);
    const gets = { Responses: [{ Item: { d: text(5000) } }, {}] };
    expect(computedCapacity('TransactGetItems', {}, gets).read).toBe(4 + 2);
  });

  it('charges the processed requests of a batch write, not the unprocessed ones', () => {
    const put = (n: number) => ({ PutRequest: { Item: { d: text(n) } } });
    const request = { RequestItems: { t: [put(1500), put(100), { DeleteRequest: { Key: { pk: { S: 'a' } } } }] } };
    expect(computedCapacity('BatchWriteItem', request, {}).write).toBe(2 + 1 + 1);
    expect(computedCapacity('BatchWriteItem', request, { UnprocessedItems: { t: [put(1500)] } }).write).toBe(2);
  });
});

describe('reportedCapacity', () => {
  it('reads the units of one entry as reads or writes by the operation, GSI units apart', () => {
    const consumed = {
      CapacityUnits: 6,
      Table: { CapacityUnits: 3 },
      GlobalSecondaryIndexes: { g: { CapacityUnits: 3 } },
    };
    expect(reportedCapacity('PutItem', consumed)).toEqual({ read: 0, write: 6, gsiRead: 0, gsiWrite: 3 });
    expect(reportedCapacity('Query', { CapacityUnits: 0.5 })).toEqual({ read: 0.5, write: 0, gsiRead: 0, gsiWrite: 0 });
  });

  it('adds up one entry per table and takes a read/write split when the entry has one', () => {
    expect(reportedCapacity('BatchWriteItem', [{ CapacityUnits: 2 }, { CapacityUnits: 4 }])?.write).toBe(6);
    expect(
      reportedCapacity('TransactWriteItems', [{ CapacityUnits: 6, ReadCapacityUnits: 2, WriteCapacityUnits: 4 }]),
    ).toEqual({ read: 2, write: 4, gsiRead: 0, gsiWrite: 0 });
  });

  it('is null when the answer reports nothing', () => {
    expect(reportedCapacity('GetItem', undefined)).toBeNull();
    expect(reportedCapacity('BatchGetItem', [])).toBeNull();
  });
});
