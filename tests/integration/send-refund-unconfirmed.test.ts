/**
 * A send's charge whose answer was lost, then the send failed (spec: Limits >
 * Credit prices and charging, rules 6 and 7: a failed send is refunded). The
 * real send charge and refund code and the real billing client run against
 * the run's fake billing service, which holds every attempt of the charge
 * unanswered and applies the spend only after the client gave up ('late'):
 * the refund must not be asked for before the charge is confirmed, or the
 * service answers 404 for a spend that lands a moment later and the team
 * pays for a failed send. The billing sweep's part for send refunds then
 * runs, and the ledger must net to nothing for the send's reference.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { chargeSend, refundSend, requestOwedSendRefund } from '../../lib/billing/send-charge-service';
import { getOwedSendRefund, owedSendRefundPut } from '../../lib/billing/send-refund-store';
import { settlePendingEntry } from '../../lib/billing/sweep-service';
import { settings } from '../../lib/config';
import { db } from '../../lib/db/client';
import { REFUND_PATH, SPEND_PATH } from '../../lib/integrations/billing-contract';
import { BillingServiceClient } from '../../lib/integrations/billing-service';
import { logger } from '../../lib/observability/logger';
import { createTeam } from '../../lib/teams/store';
import type { Team } from '../../lib/teams/team-record-rules';
import { fakeBilling } from '../support/fake-billing';

/** The real client from the run's settings with short attempts: its three attempts end within about 0.5 s. */
const deps = () => ({ client: BillingServiceClient.fromSettings(settings(), { timeoutMs: 150, backoffMs: 10 }) });
/** The charge lands this long after its first attempt arrived: well after the client gave up and the send failed. */
const LATE_MS = 1_500;

beforeEach(() => {
  for (const level of ['info', 'warn', 'error'] as const) jest.spyOn(logger, level).mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

async function newTeam(balance: number): Promise<Team & { external_id: number }> {
  const externalId = randomInt(100_000, 2_000_000_000);
  const team = await createTeam({
    external_id: externalId,
    name: `Send refund ${externalId}`,
    team_token: null,
    estimation_platform_key: null,
  });
  await fakeBilling.setBalance(externalId, balance);
  return team as Team & { external_id: number };
}

/** A send-shaped charge of 3 credits whose every attempt is held and applied LATE_MS after the first arrived. */
async function lateCharge(team: Team & { external_id: number }) {
  const reference = `ce-send:${randomUUID()}`;
  await fakeBilling.failNext('late', 3, team.external_id, SPEND_PATH, { delayMs: LATE_MS });
  const charge = await chargeSend(
    {
      team,
      user: { id: randomUUID(), external_id: 'sender-1' },
      credits: 3,
      reference,
      description: 'Estimation platform send: 3 items (claim T-1)',
    },
    deps(),
  );
  return { reference, charge };
}

/** What the team's spends under `reference` net to on the ledger. */
async function netOf(teamId: number, reference: string): Promise<number> {
  const spends = (await fakeBilling.spends(teamId)).filter((s) => s.reference === reference);
  return spends.reduce((sum, s) => sum + s.amount - s.refunded, 0);
}

it('a failed send whose charge landed after its answer was lost is refunded: the ledger nets to nothing', async () => {
  const team = await newTeam(100);
  const { reference, charge } = await lateCharge(team);
  expect(charge).toMatchObject({ charged: true, unconfirmed: true, credits: 3, reference });
  expect(await fakeBilling.spends(team.external_id)).toEqual([]);

  // The send fails at once: its refund is asked for while the charge is still in flight.
  await refundSend({ team, reference, spend: charge.charged ? charge.spend : undefined }, deps());
  await fakeBilling.lateApplied(team.external_id);
  // The billing sweep's part for whatever is still owed under the reference.
  await settlePendingEntry({ kind: 'send-refund', reference }, deps());

  expect(await fakeBilling.spends(team.external_id)).toHaveLength(1);
  expect(await netOf(team.external_id, reference)).toBe(0);
  expect(await fakeBilling.balance(team.external_id)).toBe(100);
  expect(await getOwedSendRefund(reference)).toBeNull();
});

it('keeps the refund owed while the charge cannot be confirmed, and the sweep confirms then refunds it', async () => {
  const team = await newTeam(100);
  const { reference, charge } = await lateCharge(team);
  // Still not answering when the send fails: the confirmation is held too. The stack's own billing sweep may ask
  // for the owed row at the same moment, so more hangs are queued than both can use; the rest are dropped below.
  await fakeBilling.failNext('hang', 20, team.external_id, SPEND_PATH);
  const spend = charge.charged ? charge.spend : undefined;
  expect(await refundSend({ team, reference, spend }, deps())).toBe(false);
  expect(await getOwedSendRefund(reference)).toMatchObject({ reference, spend: { amount: 3 } });
  // Nothing was refunded before the charge was confirmed.
  expect((await fakeBilling.requests(team.external_id)).filter((r) => r.path === REFUND_PATH)).toEqual([]);

  await fakeBilling.recover(team.external_id);
  await fakeBilling.lateApplied(team.external_id);
  expect(await settlePendingEntry({ kind: 'send-refund', reference }, deps())).toBe('settled');
  expect(await netOf(team.external_id, reference)).toBe(0);
  expect(await getOwedSendRefund(reference)).toBeNull();
});

it('owes nothing when the charge, asked again, is refused: it is not on the ledger and never will be', async () => {
  const team = await newTeam(2);
  const { reference, charge } = await lateCharge(team);
  const spend = charge.charged ? charge.spend : undefined;
  expect(await refundSend({ team, reference, spend }, deps())).toBe(true);
  expect(await getOwedSendRefund(reference)).toBeNull();
  await fakeBilling.lateApplied(team.external_id);
  expect(await fakeBilling.spends(team.external_id)).toEqual([]);
  expect(await fakeBilling.balance(team.external_id)).toBe(2);
});

it("confirms an unconfirmed charge before giving back one item's part of it", async () => {
  const team = await newTeam(100);
  const { reference, charge } = await lateCharge(team);
  const spend = charge.charged ? charge.spend : undefined;
  const part = { refund_reference: `${reference}:item:${randomUUID()}`, amount: 1 };
  // An item of the send failed for good: its credit is owed together with the failure (one write), then asked for.
  await db().send(new PutCommand(owedSendRefundPut(team.id, reference, new Date(), part, spend)));
  await requestOwedSendRefund(team, { reference, part }, deps());
  await fakeBilling.lateApplied(team.external_id);
  await settlePendingEntry({ kind: 'send-refund', reference: part.refund_reference }, deps());

  expect(await fakeBilling.spends(team.external_id)).toEqual([
    { reference, amount: 3, refunded: 1, refunds: [part.refund_reference] },
  ]);
  expect(await getOwedSendRefund(part.refund_reference)).toBeNull();
});

it('drops a part refund the spend has nothing left for (409) instead of asking again forever', async () => {
  const team = await newTeam(100);
  const reference = `as-send:${randomUUID()}:0`;
  const charge = await chargeSend(
    { team, user: null, credits: 2, reference, description: 'Claims platform send: 2 items (claim T-2)' },
    deps(),
  );
  expect(charge).toMatchObject({ charged: true, unconfirmed: false });
  expect(await refundSend({ team, reference }, deps())).toBe(true);
  const part = { refund_reference: `${reference}:item:${randomUUID()}`, amount: 1 };
  await db().send(new PutCommand(owedSendRefundPut(team.id, reference, new Date(), part)));
  expect(await requestOwedSendRefund(team, { reference, part }, deps())).toBe(true);
  expect(await getOwedSendRefund(part.refund_reference)).toBeNull();
  expect(await netOf(team.external_id, reference)).toBe(0);
});
