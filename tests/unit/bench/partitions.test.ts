/**
 * Covers: tests/bench/ops/partitions.ts — the partitions a DynamoDB write
 * lands in (the table's and each index's) and their shapes with ids masked,
 * which the operations benchmark uses to name the partitions every job shares.
 */
import { partitionShape, writtenPartitions } from '../../bench/ops/partitions';

const S = (value: string) => ({ S: value });
const JOB = 'JOB#7f0c1a52-1d2e-4c3b-9a8f-0123456789ab';

describe('writtenPartitions', () => {
  it('reads the table key and the index keys of a put', () => {
    const item = { pk: S(JOB), sk: S('JOB'), activepk: S('ACTIVE'), activesk: S('x'), jobspk: S('JOBS#2026-11-29') };
    expect(writtenPartitions('PutItem', { Item: item })).toEqual([
      { attribute: 'pk', value: JOB },
      { attribute: 'activepk', value: 'ACTIVE' },
      { attribute: 'jobspk', value: 'JOBS#2026-11-29' },
    ]);
  });

  it('reads index keys an update sets (names and values through the expression maps) and removes', () => {
    const update = {
      Key: { pk: S(JOB), sk: S('JOB') },
      UpdateExpression: 'SET #s = :s, activepk = :a, #arch = :b REMOVE gsi2pk, other',
      ExpressionAttributeNames: { '#s': 'status', '#arch': 'archpk' },
      ExpressionAttributeValues: { ':s': S('running'), ':a': S('ACTIVE'), ':b': S('BILLING#PENDING') },
    };
    expect(writtenPartitions('UpdateItem', update)).toEqual([
      { attribute: 'pk', value: JOB },
      { attribute: 'activepk', value: 'ACTIVE' },
      { attribute: 'archpk', value: 'BILLING#PENDING' },
      { attribute: 'gsi2pk', value: '(removed)' },
    ]);
  });

  it('reads every write of a batch and of a transaction, and nothing of a read', () => {
    const batch = {
      RequestItems: { t: [{ PutRequest: { Item: { pk: S('A') } } }, { DeleteRequest: { Key: { pk: S('B') } } }] },
    };
    expect(writtenPartitions('BatchWriteItem', batch).map((p) => p.value)).toEqual(['A', 'B']);
    const transaction = {
      TransactItems: [
        { Put: { Item: { pk: S('A') } } },
        { Update: { Key: { pk: S('JOBTOTALS#3') }, UpdateExpression: 'ADD total :one' } },
        { ConditionCheck: { Key: { pk: S('C') } } },
        { Delete: { Key: { pk: S('D') } } },
      ],
    };
    expect(writtenPartitions('TransactWriteItems', transaction).map((p) => p.value)).toEqual(['A', 'JOBTOTALS#3', 'D']);
    expect(writtenPartitions('Query', { KeyConditionExpression: 'pk = :p' })).toEqual([]);
  });
});

describe('partitionShape', () => {
  it.each([
    [{ attribute: 'pk', value: JOB }, 'pk=JOB#<id>'],
    [{ attribute: 'jobspk', value: 'JOBS#2026-11-29' }, 'jobspk=JOBS#<day>'],
    [{ attribute: 'pk', value: 'JOBTOTALS#13' }, 'pk=JOBTOTALS#<n>'],
    [{ attribute: 'pk', value: 'STATS#team_01HZX3K9Q2ABCDEF#HOUR#2026-11-29T10' }, 'pk=STATS#<id>#HOUR#<hour>'],
    [{ attribute: 'pk', value: 'STATS#t1#MONTH#2026-11' }, 'pk=STATS#t1#MONTH#<month>'],
    [{ attribute: 'activesk', value: '2026-11-29T10:11:12.123Z#x' }, 'activesk=<time>#x'],
    [{ attribute: 'activepk', value: 'ACTIVE' }, 'activepk=ACTIVE'],
  ])('%j → %s', (partition, shape) => {
    expect(partitionShape(partition)).toBe(shape);
  });
});
