/**
 * Cancel and the up-front charge (spec: States and transitions, the cancel
 * row: awaiting_confirmation, before any spend; Limits > Credit prices and
 * charging). A Cancel never discards a job whose billing is open: a spend in
 * flight (asked for, its answer not recorded yet), a charged round not given
 * back, a refund still owed; it answers 409 and writes nothing. A job whose
 * round was wholly given back owes and holds nothing, and is cancelled like
 * one never charged. A spend that starts after the job was discarded finds no
 * job and charges nothing.
 *
 * The Process click goes through the real route, ended at a named fault
 * point (lib/faults) where it must die at a step, as a crash would end it;
 * Cancel always goes through the real route. The ledger is the run's fake billing service's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chargeJobUpFront, loadJobPayer } from '../../lib/billing/charge-service';
import { billingClosed, recordSpendRequest } from '../../lib/billing/charge-store';
import { cancelBlock } from '../../lib/billing/settlement-rules';
import { settlePendingEntry } from '../../lib/billing/sweep-service';
import { NotFoundError } from '../../lib/errors';
import { deleteJobRows, getJob } from '../../lib/jobs/job-store';
import { type Client, eventually, jobInStatus } from '../support/api';
import { audioJobAtConfirmation } from '../support/confirmation-jobs';
import { objectExists, setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { shortRecordings, uploadedJob } from '../support/recording-jobs';
import { clickEndedAt, leaseRunsOut, sweepEntryOf } from '../support/process-death';

jest.setTimeout(120_000);

const SPEND = '/api/v1/credits/spend';
const REFUND = '/api/v1/credits/refund';

/** Two seconds of voice note: one block, 1 credit at the test service's prices. */
const SECONDS = 2;
let audio: Buffer;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'cancel-charge-'));
  audio = shortRecordings(mediaDir, SECONDS).audio;
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

const jobAtConfirmation = () => audioJobAtConfirmation({ bytes: audio, seconds: SECONDS, filePrefix: 'cancel' });

const cancel = (client: Client, jobId: string) => client.post(`/api/jobs/${jobId}/cancel`);

it('refuses (409) a Cancel while the Process click is waiting on its spend; the spend stays on the job, which runs', async () => {
  const { teamId, client, job } = await jobAtConfirmation();
  // The spend is applied and its answer never comes: the click waits out the attempt (6 s) before it asks again
  // under the same reference and gets the first answer. Refunds are down meanwhile: a spend whose job was
  // discarded would stay taken.
  await fakeBilling.failNext('lost', 1, teamId, SPEND);
  await fakeBilling.failNext('500', 1000, teamId, REFUND);
  const processing = client.post(`/api/jobs/${job.id}/process`);
  try {
    // The spend is asked for: its request is on the job, the call is at the service.
    await eventually(async () => (await fakeBilling.requests(teamId)).some((r) => r.path === SPEND), 10_000, 50);
    expect(await getJob(job.id)).toMatchObject({ status: 'awaiting_confirmation', billing_spend_round: 1 });

    const cancelled = await cancel(client, job.id);
    const afterCancel = await getJob(job.id);
    const processed = await processing;
    if (processed.status === 200) await jobInStatus(client, job.id);
    const after = await getJob(job.id);
    expect({
      cancel: cancelled.status,
      detail: cancelled.body?.detail,
      jobAfterCancel: afterCancel && {
        status: afterCancel.status,
        billing_spend_round: afterCancel.billing_spend_round,
      },
      process: processed.status,
      ledger: await fakeBilling.spends(teamId),
      job: after && {
        status: after.status,
        billing_charged: after.billing_charged,
        billing_rounds: after.billing_rounds,
      },
    }).toEqual({
      cancel: 409,
      detail: expect.stringMatching(/being charged/),
      jobAfterCancel: { status: 'awaiting_confirmation', billing_spend_round: 1 },
      process: 200,
      ledger: [{ reference: `job:${job.id}:1`, amount: 1, refunded: 0, refunds: [] }],
      job: { status: 'complete', billing_charged: true, billing_rounds: 1 },
    });
    expect(await objectExists(job.media_key as string)).toBe(true);
  } finally {
    await processing.catch(() => null);
    await fakeBilling.recover(teamId);
  }
});

/** The click charges a round and dies before the start: the round is charged, not started, its lease holding. */
async function roundChargedNotStarted() {
  const at = await jobAtConfirmation();
  await clickEndedAt(at.client, at.job.id, 'job-start:charged');
  expect(await getJob(at.job.id)).toMatchObject({
    status: 'awaiting_confirmation',
    billing_charged: true,
    billing_round_started: false,
  });
  const entry = await sweepEntryOf(at.job.id);
  expect(entry).toEqual({ kind: 'job', jobId: at.job.id });
  return { ...at, entry: entry! };
}

it('cancels a job whose charged round the billing sweep gave back whole, like one never charged', async () => {
  const { teamId, client, job, entry } = await roundChargedNotStarted();
  // No click came: the lease runs out and the sweep gives the round back; the job owes and holds nothing.
  await leaseRunsOut(job.id);
  // This call, or the stack's own billing sweep if its schedule came first: the ledger below tells it happened once.
  expect(['settled', 'none']).toContain(await settlePendingEntry(entry));
  expect(await getJob(job.id)).toMatchObject({
    status: 'awaiting_confirmation',
    billing_charged: true,
    billing_refunded: true,
    refund_state: 'done',
  });
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${job.id}:1`, amount: 1, refunded: 1, refunds: [`job:${job.id}:1`] },
  ]);

  const cancelled = await cancel(client, job.id);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({ cancelled: true, id: job.id });
  expect(await getJob(job.id)).toBeNull();
  expect(await objectExists(job.media_key as string)).toBe(false);
  expect(await fakeBilling.balance(teamId)).toBe(10);
});

it('refuses (409) to cancel a job while its round is charged or its refund is owed, and writes nothing', async () => {
  const { teamId, client, job, entry } = await roundChargedNotStarted();
  // A start may still use the round while its lease holds.
  const whileCharged = await cancel(client, job.id);
  expect(whileCharged.status).toBe(409);
  expect(whileCharged.body.detail).toMatch(/charged for a run that has not started/);

  // The lease runs out and the sweep gives the round back while refunds are down: the refund stays owed.
  await leaseRunsOut(job.id);
  await fakeBilling.failNext('500', 1000, teamId, REFUND);
  expect(await settlePendingEntry(entry)).toBe('pending');
  const owed = await getJob(job.id);
  expect(owed).toMatchObject({ refund_state: 'pending', billing_round_abandoned: true });
  const whileOwed = await cancel(client, job.id);
  expect(whileOwed.status).toBe(409);
  expect(whileOwed.body.detail).toMatch(/given back/);
  // Nothing was written: the job, its file and its entry on the index stay for the sweep.
  expect(await getJob(job.id)).toEqual(owed);
  expect(await objectExists(job.media_key as string)).toBe(true);
  expect(await sweepEntryOf(job.id)).toEqual(entry);

  // Billing is back: the sweep gives the round back and the job can go.
  await fakeBilling.recover(teamId);
  expect(['settled', 'none']).toContain(await settlePendingEntry(entry));
  expect((await cancel(client, job.id)).status).toBe(200);
  expect(await fakeBilling.spends(teamId)).toEqual([
    { reference: `job:${job.id}:1`, amount: 1, refunded: 1, refunds: [`job:${job.id}:1`] },
  ]);
});

it('charges nothing for a Process click that read the job before a Cancel discarded it', async () => {
  const { teamId, client, identity, job } = await jobAtConfirmation();
  // The click has read the job (its copy is `job`); the Cancel lands before its charge.
  expect((await cancel(client, job.id)).status).toBe(200);
  await expect(chargeJobUpFront({ ...(await loadJobPayer(identity, job)), job, credits: 1 })).rejects.toBeInstanceOf(
    NotFoundError,
  );
  // Later still, between its read and its spend request: the request finds no job and writes none.
  expect(await recordSpendRequest(job.id, { previous: 0, round: 1, amount: 1 })).toBeNull();
  expect(await getJob(job.id)).toBeNull();
  expect((await fakeBilling.requests(teamId)).filter((r) => r.path === SPEND)).toEqual([]);
  expect(await fakeBilling.spends(teamId)).toEqual([]);
});

describe("the cancel's delete decides, not its read", () => {
  const cancelDelete = (jobId: string) =>
    deleteJobRows({ id: jobId }, { expectStatus: 'awaiting_confirmation', condition: billingClosed() });

  it('keeps a job whose spend was asked for after the cancel read it', async () => {
    const job = await uploadedJob('audio', Buffer.from('voice note'), 'm4a');
    // The cancel has read the job: nothing of its billing is open.
    expect(cancelBlock((await getJob(job.id))!)).toBeNull();
    // A Process click asks for its spend before the cancel's delete.
    expect(await recordSpendRequest(job.id, { previous: 0, round: 1, amount: 1 })).not.toBeNull();
    expect(await cancelDelete(job.id)).toBe(false);
    expect(await getJob(job.id)).toMatchObject({ status: 'awaiting_confirmation', billing_spend_round: 1 });
  });

  const charged = { billing_charged: true, billing_rounds: 1, billing_txn_id: 'txn_1', billing_amount: 1 };
  const owed = [{ round: 1, spend_reference: 'ref', reference: 'ref', amount: null }];
  it.each([
    ['never charged', {}, null],
    [
      'a spend asked for, its answer not recorded',
      { billing_spend_round: 1, billing_spend_amount: 1 },
      'spend_in_flight',
    ],
    ['a spend request cleared (a flat refusal)', { billing_spend_round: null, billing_spend_amount: null }, null],
    [
      'a round charged, not started',
      { ...charged, billing_refunded: false, billing_round_started: false, billing_round_abandoned: false },
      'round_charged',
    ],
    [
      'a spend to confirm',
      {
        ...charged,
        billing_txn_id: null,
        billing_unconfirmed: true,
        billing_refunded: false,
        billing_round_abandoned: true,
      },
      'billing_owed',
    ],
    [
      'a round abandoned, its refund owed',
      {
        ...charged,
        billing_refunded: false,
        billing_round_abandoned: true,
        refunds_owed: owed,
        refund_state: 'pending',
      },
      'billing_owed',
    ],
    [
      'a round given back whole',
      { ...charged, billing_refunded: true, billing_round_abandoned: true, refunds_owed: [], refund_state: 'done' },
      null,
    ],
    [
      'a round abandoned, its refund dropped (the service held no such spend)',
      { ...charged, billing_refunded: false, billing_round_abandoned: true, refunds_owed: [], refund_state: 'done' },
      null,
    ],
    [
      'a spend to confirm the service then refused (uncharged)',
      { ...charged, billing_charged: false, billing_unconfirmed: false, refunds_owed: [] },
      null,
    ],
    ['billing fields written empty', { billing_unconfirmed: null, refunds_owed: null, billing_charged: null }, null],
  ] as const)('%s: the rule and the delete agree', async (_state, fields, block) => {
    const job = await uploadedJob('audio', Buffer.from('voice note'), 'm4a');
    if (Object.keys(fields).length) await setFields(`JOB#${job.id}`, 'JOB', fields);
    expect(cancelBlock((await getJob(job.id))!)).toBe(block);
    expect(await cancelDelete(job.id)).toBe(block === null);
    expect(await getJob(job.id)).toEqual(block === null ? null : expect.objectContaining({ id: job.id }));
  });
});
