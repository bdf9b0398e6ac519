/**
 * The lease primitive (lib/db/lease.ts) as it talks to DynamoDB: one
 * conditional write that takes a free or run-out lease (with the row's other
 * conditions and attributes), a failed condition read as "held", and a
 * release that only its holder's write gets through.
 */
import { DeleteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { leaseAbsent, leaseFree, leaseHeldBy, leaseIs, releaseLease, takeLease } from '../../../lib/db/lease';
import { useIsolatedSettings } from '../../support/unit-settings';

const TABLE = 'unit-lease-table';
const ddb = mockClient(DynamoDBDocumentClient);
const KEY = { pk: 'ROW#1', sk: 'LEASE' };
const LEASE = { holder: 'holder', until: 'lease_until_ms' };

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

useIsolatedSettings({ TABLE_NAME: TABLE });
beforeEach(() => ddb.reset());

describe('conditions', () => {
  it('finds a lease free with no holder, or run out before the clock', () => {
    expect(leaseFree(LEASE, 5, ':t')).toEqual({
      expression: 'attribute_not_exists(holder) OR lease_until_ms < :t',
      values: { ':t': 5 },
    });
  });

  it('finds no lease on a row that never had one, and takes over only the very lease read', () => {
    expect(leaseAbsent(LEASE)).toEqual({ expression: 'attribute_not_exists(holder)', values: {} });
    expect(leaseIs({ holder: 'lease.holder', until: 'lease.expires_at' }, 'dead', 42)).toEqual({
      expression: 'lease.holder = :leaseReadHolder AND lease.expires_at = :leaseReadUntil',
      values: { ':leaseReadHolder': 'dead', ':leaseReadUntil': 42 },
    });
  });

  it('finds a lease held by its holder whatever its end', () => {
    expect(leaseHeldBy(LEASE, 'me')).toEqual({ expression: 'holder = :leaseHolder', values: { ':leaseHolder': 'me' } });
  });
});

describe('takeLease', () => {
  it('writes the holder, its end and the other attributes only while the lease is free', async () => {
    ddb.on(UpdateCommand).resolves({});
    const taken = await takeLease({
      key: KEY,
      lease: LEASE,
      holder: 'me',
      untilMs: 2_000,
      nowMs: 1_000,
      set: { entity: 'Slot' },
    });
    expect(taken).toBe(true);
    expect(ddb.commandCalls(UpdateCommand)[0].args[0].input).toEqual({
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'SET #lease0 = :lease0, #lease1 = :lease1, #lease2 = :lease2',
      ConditionExpression: 'attribute_not_exists(holder) OR lease_until_ms < :now',
      ExpressionAttributeNames: { '#lease0': 'holder', '#lease1': 'lease_until_ms', '#lease2': 'entity' },
      ExpressionAttributeValues: { ':lease0': 'me', ':lease1': 2_000, ':lease2': 'Slot', ':now': 1_000 },
    });
  });

  it("adds the row's own condition before the lease's", async () => {
    ddb.on(UpdateCommand).resolves({});
    await takeLease({
      key: KEY,
      lease: LEASE,
      holder: 'me',
      untilMs: 2_000,
      nowMs: 1_000,
      also: { expression: '#status = :s', values: { ':s': 'open' }, names: { '#status': 'status' } },
    });
    const input = ddb.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('#status = :s AND (attribute_not_exists(holder) OR lease_until_ms < :now)');
    expect(input.ExpressionAttributeNames).toMatchObject({ '#status': 'status' });
    expect(input.ExpressionAttributeValues).toMatchObject({ ':s': 'open', ':now': 1_000 });
  });

  it('answers false while another holds it, and passes other errors on', async () => {
    ddb.on(UpdateCommand).rejectsOnce(conditionFailed()).rejectsOnce(new Error('throttled'));
    const take = () => takeLease({ key: KEY, lease: LEASE, holder: 'me', untilMs: 2_000, nowMs: 1_000 });
    await expect(take()).resolves.toBe(false);
    await expect(take()).rejects.toThrow('throttled');
  });
});

describe('releaseLease', () => {
  it("removes the lease's attributes only while its holder holds it", async () => {
    ddb.on(UpdateCommand).resolves({});
    await expect(releaseLease(KEY, LEASE, 'me')).resolves.toBe(true);
    expect(ddb.commandCalls(UpdateCommand)[0].args[0].input).toEqual({
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'REMOVE holder, lease_until_ms',
      ConditionExpression: 'holder = :leaseHolder',
      ExpressionAttributeValues: { ':leaseHolder': 'me' },
    });
  });

  it('deletes a row that is only the lease, and answers false once another took it over', async () => {
    ddb.on(DeleteCommand).rejects(conditionFailed());
    await expect(releaseLease(KEY, LEASE, 'me', { deleteRow: true })).resolves.toBe(false);
    expect(ddb.commandCalls(DeleteCommand)[0].args[0].input).toEqual({
      TableName: TABLE,
      Key: KEY,
      ConditionExpression: 'holder = :leaseHolder',
      ExpressionAttributeValues: { ':leaseHolder': 'me' },
    });
  });
});
