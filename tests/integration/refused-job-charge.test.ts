/**
 * A Process click refused by the billing service, then a top-up (spec: States
 * and transitions, the process/402 row; Limits > Credit prices and charging;
 * Errors, the 402 body). The billing service remembers a refusal under its
 * spend reference and answers a repeat of it with the same 402 however the
 * balance moves, as a ledger with idempotency keys does: so the refused
 * round's reference is never asked again, and the click after the top-up
 * charges the next round under a new reference and runs.
 *
 * The clicks go through the real route, one of them ended at a named fault
 * point (lib/faults) as a crash would end it; the sweep's work is its own
 * per-entry step. The ledger is the run's fake billing service's.
 */
import { randomUUID } from 'node:crypto';
import { unstartedRoundLeaseMs } from '../../lib/billing/settlement-rules';
import { settlePendingEntry } from '../../lib/billing/sweep-service';
import { getJob } from '../../lib/jobs/job-store';
import { Client, jobInStatus } from '../support/api';
import { setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { texturedJpeg } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';
import { clickEndedAt } from '../support/process-death';

jest.setTimeout(120_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

/** A team with no credits and a one-photo job (1 credit) waiting to be processed, its photo answered with one item. */
async function jobShortOfCredits() {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 0);
  const room = await newRoom(client, 'Study');
  const photo = `refused-${randomUUID().slice(0, 8)}.jpg`;
  await gateway.script(photo, [{ items: [modelItem('Desk lamp')] }]);
  const { jobId } = await photoJob(client, room.id, [await texturedJpeg(7)], [photo]);
  return { teamId, client, jobId };
}

/** The click is refused with the spec's 402 body, and the job stays as it was, uncharged. */
async function refusedClick(client: Client, jobId: string) {
  const refused = await client.post(`/api/jobs/${jobId}/process`);
  expect(refused.status).toBe(402);
  expect(refused.body).toEqual({
    error: 'insufficient_credits',
    credits_balance: 0,
    required_amount: 1,
    buy_url: expect.any(String),
  });
  expect(await getJob(jobId)).toMatchObject({ status: 'awaiting_grouping', billing_charged: false });
}

it('a click refused for want of credits, then a top-up: the next click is charged once under a new reference and runs', async () => {
  const { teamId, client, jobId } = await jobShortOfCredits();
  await refusedClick(client, jobId);

  await fakeBilling.setBalance(teamId, 5);
  const processed = await client.post(`/api/jobs/${jobId}/process`);
  expect(processed.status).toBe(200);
  expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });

  // One spend kept, under the round after the refused one; the refused reference took nothing.
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:2`, amount: 1, refunded: 0, refunds: [] },
  ]);
  expect(await fakeBilling.balance(teamId)).toBe(4);
  expect(await getJob(jobId)).toMatchObject({ billing_charged: true, billing_rounds: 2, billing_round_started: true });
});

it('two refused clicks, then a top-up: each refusal takes its own round, and the click after charges the next', async () => {
  const { teamId, client, jobId } = await jobShortOfCredits();
  await refusedClick(client, jobId);
  await refusedClick(client, jobId);

  await fakeBilling.setBalance(teamId, 1);
  expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
  expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:3`, amount: 1, refunded: 0, refunds: [] },
  ]);
  expect(await fakeBilling.balance(teamId)).toBe(0);
});

it('after a refusal, a click that dies between the spend and its record is given back by the sweep under its own reference; the next click charges the round after', async () => {
  const { teamId, client, jobId } = await jobShortOfCredits();
  await refusedClick(client, jobId);
  await fakeBilling.setBalance(teamId, 5);

  await clickEndedAt(client, jobId, 'job-start:spent');
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:2`, amount: 1, refunded: 0, refunds: [] },
  ]);
  expect(await getJob(jobId)).toMatchObject({ status: 'awaiting_grouping', billing_spend_round: 2 });

  // No click came: once the spend's lease has run out, the sweep gives back what it took, once.
  await setFields(`JOB#${jobId}`, 'JOB', {
    billing_charged_at: new Date(Date.now() - unstartedRoundLeaseMs() - 1000).toISOString(),
  });
  // This call, or the stack's own billing sweep if its schedule came first: the ledger below tells it happened once.
  expect(['settled', 'none']).toContain(await settlePendingEntry({ kind: 'job', jobId }));
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:2`, amount: 1, refunded: 1, refunds: [`job:${jobId}:2`] },
  ]);
  expect(await fakeBilling.balance(teamId)).toBe(5);
  expect(await getJob(jobId)).toMatchObject({ billing_rounds: 2, billing_spend_round: null, refund_state: 'done' });

  expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
  expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:2`, amount: 1, refunded: 1, refunds: [`job:${jobId}:2`] },
    { reference: `job:${jobId}:3`, amount: 1, refunded: 0, refunds: [] },
  ]);
  expect(await fakeBilling.balance(teamId)).toBe(4);
});

it('read the rest refused for want of credits, then a top-up: the pass is charged once under a new reference and runs', async () => {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 1);
  const room = await newRoom(client, 'Wardrobe');
  const photo = `refused-pass-${randomUUID().slice(0, 8)}.jpg`;
  await gateway.script(photo, [
    { items: [modelItem('Hat'), modelItem('Scarf'), modelItem('Glove')], cutShort: true },
    { items: [modelItem('Belt')] },
  ]);
  const { jobId } = await photoJob(client, room.id, [await texturedJpeg(9)], [photo]);
  expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
  expect(await jobInStatus(client, jobId, ['complete'])).toMatchObject({ photos_with_more_items: 1 });

  const refused = await client.post(`/api/jobs/${jobId}/read-the-rest`);
  expect(refused.status).toBe(402);
  expect(refused.body).toEqual({
    error: 'insufficient_credits',
    credits_balance: 0,
    required_amount: 1,
    buy_url: expect.any(String),
  });

  await fakeBilling.setBalance(teamId, 3);
  expect((await client.post(`/api/jobs/${jobId}/read-the-rest`)).status).toBe(200);
  expect(await jobInStatus(client, jobId, ['complete'])).toMatchObject({ billed_cost_usd: 2 });
  // The run's round, then the pass under the round after the refused one; the refused reference took nothing.
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:1`, amount: 1, refunded: 0, refunds: [] },
    { reference: `job:${jobId}:3`, amount: 1, refunded: 0, refunds: [] },
  ]);
  expect(await fakeBilling.balance(teamId)).toBe(2);
  expect(await getJob(jobId)).toMatchObject({ billing_rounds: 3, pass_charge_round: 3, last_pass_error: null });
});
