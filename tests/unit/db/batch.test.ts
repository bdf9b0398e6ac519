/**
 * Bulk reads and writes (lib/db/batch.ts) and DynamoDB's unprocessed items:
 * the leftovers alone are sent again, and a table that keeps leaving items
 * unprocessed fails the call after UNPROCESSED_RETRY.attempts instead of
 * looping until the function times out.
 */
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { deleteKeys, getRows, putRows, UNPROCESSED_RETRY, UnprocessedItems } from '../../../lib/db/batch';
import { useIsolatedSettings } from '../../support/unit-settings';

const TABLE = 'unit-batch-table';
const ddb = mockClient(DynamoDBDocumentClient);

useIsolatedSettings({ TABLE_NAME: TABLE });
beforeEach(() => ddb.reset());

const sentKeys = (call: number) =>
  (ddb.commandCalls(BatchWriteCommand)[call].args[0].input.RequestItems?.[TABLE] ?? []).map(
    (r) => (r.DeleteRequest?.Key as { sk: string } | undefined)?.sk,
  );

describe('batch writes', () => {
  it('sends chunks of 25 and then only the items left unprocessed', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => ({ pk: 'P', sk: `S${i}` }));
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({
        UnprocessedItems: { [TABLE]: [{ DeleteRequest: { Key: keys[3] } }, { DeleteRequest: { Key: keys[7] } }] },
      })
      .resolves({});
    await deleteKeys(keys);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(3);
    expect(sentKeys(0)).toHaveLength(25);
    expect(sentKeys(1)).toEqual(['S3', 'S7']);
    expect(sentKeys(2)).toEqual(keys.slice(25).map((k) => k.sk));
  });

  it('gives up with UnprocessedItems when the table keeps leaving items unprocessed', async () => {
    const row = { pk: 'P', sk: 'S' };
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: { [TABLE]: [{ PutRequest: { Item: row } }] } });
    const error = await putRows([row]).catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessedItems);
    expect(error).toMatchObject({ count: 1 });
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(UNPROCESSED_RETRY.attempts);
  });

  it('rethrows any other error at once', async () => {
    ddb.on(BatchWriteCommand).rejects(new Error('AccessDenied'));
    await expect(deleteKeys([{ pk: 'P', sk: 'S' }])).rejects.toThrow('AccessDenied');
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(1);
  });
});

const askedKeys = (call: number) => {
  const request = ddb.commandCalls(BatchGetCommand)[call].args[0].input.RequestItems?.[TABLE];
  return { sks: (request?.Keys ?? []).map((k) => (k as { sk: string }).sk), consistent: request?.ConsistentRead };
};

describe('batch reads', () => {
  it('asks 100 keys at a time, then only for the keys left unprocessed, and returns every row found', async () => {
    const keys = Array.from({ length: 130 }, (_, i) => ({ pk: 'P', sk: `S${i}` }));
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: keys.slice(0, 98) },
        UnprocessedKeys: { [TABLE]: { Keys: [keys[98], keys[99]] } },
      })
      .resolvesOnce({ Responses: { [TABLE]: [keys[98]] } }) // S99 does not exist
      .resolvesOnce({ Responses: { [TABLE]: keys.slice(100) } });
    const rows = await getRows(keys, { consistentRead: true });
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(3);
    expect(askedKeys(0)).toEqual({ sks: keys.slice(0, 100).map((k) => k.sk), consistent: true });
    expect(askedKeys(1)).toEqual({ sks: ['S98', 'S99'], consistent: true });
    expect(askedKeys(2).sks).toEqual(keys.slice(100).map((k) => k.sk));
    expect(rows.map((r) => r.sk).sort()).toEqual(
      keys
        .filter((k) => k.sk !== 'S99')
        .map((k) => k.sk)
        .sort(),
    );
  });

  it('gives up with UnprocessedItems when the table keeps leaving keys unprocessed', async () => {
    const key = { pk: 'P', sk: 'S' };
    ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [] }, UnprocessedKeys: { [TABLE]: { Keys: [key] } } });
    const error = await getRows([key]).catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessedItems);
    expect(error).toMatchObject({ count: 1 });
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(UNPROCESSED_RETRY.attempts);
  });

  it('sends nothing for no keys', async () => {
    expect(await getRows([])).toEqual([]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});
