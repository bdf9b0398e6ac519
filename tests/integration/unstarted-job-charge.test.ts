/**
 * A job round charged and never started (spec: Limits > Credit prices and
 * charging, rules 3-5; Errors, a failed refund is never raised): the Process
 * click's request dies between the spend and the start write (after the
 * charge is recorded, or between the spend's answer and its record), and no
 * click comes after it. The round is listed for the billing sweep from the
 * moment its spend is asked for; once its lease has run out the sweep gives
 * it back through the owed-refund record, exactly once, and the job waits for
 * a Process click as before, which charges a new round under a new reference
 * and starts.
 *
 * The click goes through the real route and is ended at its named fault
 * point (lib/faults), as a crash would end it; the sweep's work is its own
 * per-entry step on the entry it reads from the index. The ledger is the
 * run's fake billing service's.
 */
import { randomUUID } from 'node:crypto';
import { settlePendingEntry } from '../../lib/billing/sweep-service';
import { getJob } from '../../lib/jobs/job-store';
import { Client, jobInStatus } from '../support/api';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { texturedJpeg } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';
import { clickEndedAt, leaseRunsOut, sweepEntryOf } from '../support/process-death';

jest.setTimeout(120_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

/** A team with 10 credits and a one-photo job waiting to be processed, its photo answered with one item. */
async function jobWaitingForProcess() {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 10);
  const room = await newRoom(client, 'Hall');
  const photo = `unstarted-${randomUUID().slice(0, 8)}.jpg`;
  await gateway.script(photo, [{ items: [modelItem('Coat stand')] }]);
  const { jobId } = await photoJob(client, room.id, [await texturedJpeg(5)], [photo]);
  return { teamId, client, jobId };
}

it.concurrent.each([
  ['job-start:charged', 'after the charge is recorded', { billing_rounds: 1, billing_round_started: false }],
  ['job-start:spent', 'after the spend answered, before its record', { billing_rounds: 0, billing_spend_round: 1 }],
] as const)(
  'gives back a round whose request was ended at %s (%s) once its lease has run out, once; the next click charges a new round and starts',
  async (point, _when, left) => {
    const { teamId, client, jobId } = await jobWaitingForProcess();
    await clickEndedAt(client, jobId, point);
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 1, refunded: 0, refunds: [] },
    ]);
    expect(await getJob(jobId)).toMatchObject({ status: 'awaiting_grouping', ...left });

    // The sweep finds the round from its charge, and leaves it while a start could still come.
    const entry = await sweepEntryOf(jobId);
    expect(entry).toEqual({ kind: 'job', jobId });
    expect(await settlePendingEntry(entry!)).toBe('waiting');
    expect((await fakeBilling.spends(teamId))[0].refunded).toBe(0);

    // No click came: once the lease has run out, the sweep gives the round back (this call, or the stack's own billing
    // sweep if its schedule came first: the ledger below tells it happened once); a second sweep changes nothing.
    // Two sweeps at once (overlapping runs) give it back once.
    await leaseRunsOut(jobId);
    const twice = await Promise.all([settlePendingEntry(entry!), settlePendingEntry(entry!)]);
    for (const outcome of twice) expect(['settled', 'none']).toContain(outcome);
    expect(await settlePendingEntry(entry!)).toBe('none');
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 1, refunded: 1, refunds: [`job:${jobId}:1`] },
    ]);
    expect(await fakeBilling.balance(teamId)).toBe(10);
    expect(await getJob(jobId)).toMatchObject({
      status: 'awaiting_grouping',
      billing_refunded: true,
      refund_state: 'done',
    });
    expect(await sweepEntryOf(jobId)).toBeNull();

    // The user clicks Process: a new round under a new reference, charged once, and the run starts and completes.
    const processed = await client.post(`/api/jobs/${jobId}/process`);
    expect(processed.status).toBe(200);
    expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 1, refunded: 1, refunds: [`job:${jobId}:1`] },
      { reference: `job:${jobId}:2`, amount: 1, refunded: 0, refunds: [] },
    ]);
    expect(await fakeBilling.balance(teamId)).toBe(9);
    expect(await getJob(jobId)).toMatchObject({ billing_rounds: 2, billing_round_started: true });
  },
);

it.concurrent('asks a spend whose request was ended before its record again under the same reference at the next click within its lease: charged once', async () => {
  const { teamId, client, jobId } = await jobWaitingForProcess();
  await clickEndedAt(client, jobId, 'job-start:spent');
  expect(await getJob(jobId)).toMatchObject({
    billing_spend_round: 1,
    billing_spend_amount: 1,
    billing_charged: false,
  });
  expect(await sweepEntryOf(jobId)).toEqual({ kind: 'job', jobId });
  // The sweep leaves it while its request could still record it.
  expect(await settlePendingEntry({ kind: 'job', jobId })).toBe('waiting');

  const processed = await client.post(`/api/jobs/${jobId}/process`);
  expect(processed.status).toBe(200);
  expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billed_cost_usd: 1 });
  expect(await getJob(jobId)).toMatchObject({ billing_rounds: 1, billing_charged: true, billing_spend_round: null });
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${jobId}:1`, amount: 1, refunded: 0, refunds: [] },
  ]);
});
