/**
 * Marking a homeowner's rows for a submit round (lib/insured/draft-store.ts):
 * a hundred rows in one transaction, each conditioned on being nobody's yet,
 * with the job it goes to; a transaction cancelled by one row taken, removed
 * or edited meanwhile, or throttled, marks its rows one by one instead, so the
 * others are still taken and each answer says whether the row is in the round.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { markDraftRowsRound } from '../../../lib/insured/draft-store';
import { useIsolatedSettings } from '../../support/unit-settings';

const TABLE = 'unit-draft-table';
const ddb = mockClient(DynamoDBDocumentClient);

useIsolatedSettings({ TABLE_NAME: TABLE });
beforeEach(() => ddb.reset());

const row = (n: number) => ({ key: { pk: 'INSUREDLINK#l', sk: `ITEM#${n}` }, jobId: `job-${n % 2}` });
const canceled = (codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('markDraftRowsRound', () => {
  it('marks up to 100 rows in one transaction, each nobody’s yet, with its round and job', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await markDraftRowsRound([row(1), row(2)], 3)).toEqual([true, true]);
    const [call] = ddb.commandCalls(TransactWriteCommand);
    const updates = (call.args[0].input.TransactItems ?? []).map((t) => t.Update);
    expect(updates).toHaveLength(2);
    expect(updates[1]).toMatchObject({
      TableName: TABLE,
      Key: row(2).key,
      ConditionExpression: expect.stringContaining('attribute_not_exists(#round) OR #round = :none'),
      ExpressionAttributeValues: { ':round': 3, ':job': 'job-0', ':none': null },
    });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    await expect(
      markDraftRowsRound(
        Array.from({ length: 101 }, (_, n) => row(n)),
        3,
      ),
    ).rejects.toThrow(RangeError);
  });

  it.each([
    ['a row taken or removed meanwhile', ['None', 'ConditionalCheckFailed', 'None']],
    ['a throttled transaction', ['ThrottlingError', 'None', 'None']],
  ])('after %s, marks the rows one by one and answers for each', async (_, reasons) => {
    ddb.on(TransactWriteCommand).rejects(canceled(reasons));
    ddb
      .on(UpdateCommand)
      .resolvesOnce({})
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }))
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    // Row 2 was taken by an earlier round; row 3 is already in this one (a resumed round).
    ddb.on(GetCommand, { Key: row(2).key }).resolves({ Item: { ...row(2).key, round: 2 } });
    ddb.on(GetCommand, { Key: row(3).key }).resolves({ Item: { ...row(3).key, round: 3 } });
    expect(await markDraftRowsRound([row(1), row(2), row(3)], 3)).toEqual([true, false, true]);
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.Key)).toEqual([
      row(1).key,
      row(2).key,
      row(3).key,
    ]);
  });

  it('rethrows a cancellation for anything else', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['ValidationError']));
    await expect(markDraftRowsRound([row(1)], 1)).rejects.toThrow('Transaction cancelled');
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
