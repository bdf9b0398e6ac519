/**
 * Bulk writes (lib/db/batch.ts) and DynamoDB's unprocessed items: the
 * leftovers alone are sent again, and a table that keeps leaving items
 * unprocessed fails the write after UNPROCESSED_RETRY.attempts instead of
 * looping until the function times out.
 */
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { deleteKeys, putRows, UNPROCESSED_RETRY, UnprocessedItems } from '../../lib/db/batch';
import { loadSettings, resetSettings } from '../../lib/config';

const TABLE = 'unit-batch-table';
const ddb = mockClient(DynamoDBDocumentClient);

beforeAll(() => resetSettings(loadSettings({ env: {}, overrides: { TABLE_NAME: TABLE }, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' })));
afterAll(() => resetSettings());
beforeEach(() => ddb.reset());

const sentKeys = (call: number) =>
  (ddb.commandCalls(BatchWriteCommand)[call].args[0].input.RequestItems?.[TABLE] ?? []).map((r) => (r.DeleteRequest?.Key as { sk: string }).sk);

describe('batch writes', () => {
  it('sends chunks of 25 and then only the items left unprocessed', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => ({ pk: 'P', sk: `S${i}` }));
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: [{ DeleteRequest: { Key: keys[3] } }, { DeleteRequest: { Key: keys[7] } }] } })
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
