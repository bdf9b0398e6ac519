/**
 * The shared rate window (lib/db/rate-window.ts) as it talks to DynamoDB: one
 * conditional update per call on the minute's row, a failed condition read as
 * "budget spent" with the seconds left in the minute, rows that TTL removes
 * after their window, and no write at all when the limit is off.
 */
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { takeRateSlot } from '../../../lib/db/rate-window';
import { useIsolatedSettings } from '../../support/unit-settings';

const TABLE = 'unit-rate-table';
const ddb = mockClient(DynamoDBDocumentClient);

/** 2025-01-01T00:00:00Z, a minute boundary. */
const MINUTE_START_S = 1735689600;
const at = (secondsIntoMinute: number) => new Date((MINUTE_START_S + secondsIntoMinute) * 1000);

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

useIsolatedSettings({ TABLE_NAME: TABLE });
beforeEach(() => ddb.reset());

const sentUpdate = () => {
  const calls = ddb.commandCalls(UpdateCommand);
  expect(calls).toHaveLength(1);
  return calls[0].args[0].input;
};

describe('takeRateSlot', () => {
  it.each([0, -5])('allows every call without a write when the limit is %d (limit off)', async (limitPerMinute) => {
    await expect(takeRateSlot({ scope: 'login', key: '203.0.113.1', limitPerMinute })).resolves.toEqual({
      allowed: true,
      retryAfterSeconds: 0,
    });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('adds a hit to the row of the current minute, only while it holds fewer than the limit', async () => {
    ddb.on(UpdateCommand).resolves({});
    const slot = await takeRateSlot({ scope: 'login', key: '203.0.113.1', limitPerMinute: 10, now: at(12.5) });
    expect(slot).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect(sentUpdate()).toEqual({
      TableName: TABLE,
      Key: { pk: 'RATE#login#203.0.113.1', sk: `WINDOW#${MINUTE_START_S}` },
      UpdateExpression: 'ADD hits :one SET expires_at = :expires, entity = :entity',
      ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
      ExpressionAttributeValues: {
        ':one': 1,
        ':limit': 10,
        // TTL (epoch seconds) a minute after the window ends.
        ':expires': MINUTE_START_S + 120,
        ':entity': 'RateWindow',
      },
    });
  });

  it('starts a new row at the next minute boundary', async () => {
    ddb.on(UpdateCommand).resolves({});
    await takeRateSlot({ scope: 'login', key: 'k', limitPerMinute: 1, now: at(60) });
    const input = sentUpdate();
    expect(input.Key).toEqual({ pk: 'RATE#login#k', sk: `WINDOW#${MINUTE_START_S + 60}` });
    expect(input.ExpressionAttributeValues?.[':expires']).toBe(MINUTE_START_S + 180);
  });

  it.each([
    [0, 60],
    [12.5, 48],
    [59, 1],
    [59.9, 1],
  ])('refuses a spent budget at %ss into the minute, retry after %ss (the rest of the minute)', async (into, retry) => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(takeRateSlot({ scope: 'login', key: 'k', limitPerMinute: 3, now: at(into) })).resolves.toEqual({
      allowed: false,
      retryAfterSeconds: retry,
    });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('rethrows any other error', async () => {
    ddb.on(UpdateCommand).rejects(new Error('ProvisionedThroughputExceededException'));
    await expect(takeRateSlot({ scope: 'login', key: 'k', limitPerMinute: 3 })).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
  });

  it('stores a key longer than 200 characters as its SHA-256, so long keys stay bounded and distinct', async () => {
    ddb.on(UpdateCommand).resolves({});
    const short = 'a'.repeat(200);
    await takeRateSlot({ scope: 's', key: short, limitPerMinute: 1, now: at(0) });
    await takeRateSlot({ scope: 's', key: `${'b'.repeat(300)}1`, limitPerMinute: 1, now: at(0) });
    await takeRateSlot({ scope: 's', key: `${'b'.repeat(300)}2`, limitPerMinute: 1, now: at(0) });
    const pks = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.Key?.pk as string);
    expect(pks[0]).toBe(`RATE#s#${short}`);
    expect(pks[1]).toMatch(/^RATE#s#sha256:[0-9a-f]{64}$/);
    expect(pks[2]).toMatch(/^RATE#s#sha256:[0-9a-f]{64}$/);
    expect(pks[1]).not.toBe(pks[2]);
  });

  it('refuses a fractional limit and a scope that could run into the key', async () => {
    await expect(takeRateSlot({ scope: 's', key: 'k', limitPerMinute: 2.5 })).rejects.toThrow(/whole number/);
    await expect(takeRateSlot({ scope: 's', key: 'k', limitPerMinute: Number.NaN })).rejects.toThrow(/whole number/);
    await expect(takeRateSlot({ scope: 'a#b', key: 'k', limitPerMinute: 1 })).rejects.toThrow(/'#'/);
    expect(ddb.calls()).toHaveLength(0);
  });
});
