/**
 * Billing matches the ledger (spec: Processing rule 6; Limits > Credit prices
 * and charging, rule 4; States, the refund rows; Errors, fail-open rules).
 * Every assertion reads the fake billing service's balance and ledger, not
 * only the job's fields: a photo job is charged up front for every group that
 * reaches the AI, and whatever it did not bill (a failed AI request) or did
 * not finish (a failed job) comes back, also when the billing service was down
 * at the time (the billing sweep settles it later, once).
 */
import { randomUUID } from 'node:crypto';
import { PHOTOS_BEING_SAVED } from '../../lib/job-actions/service';
import { GROUPING_STATUSES } from '../../lib/photos/grouping-rules';
import { releasePhotoWriteLock, takePhotoWriteLock } from '../../lib/photos/photo-write-store';
import { Client, eventually, jobInStatus } from '../support/api';
import { getRow, invokeFunction } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { texturedJpeg } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const tag = () => randomUUID().slice(0, 8);

async function fundedTeam(balance: number) {
  const member = newTeamMember();
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, room: await newRoom(client, 'Den'), teamId: member.current_team_id };
}

const jobRow = (jobId: string) => getRow(`JOB#${jobId}`, 'JOB');

describe('billing matches the ledger', () => {
  it('gives back the credit of a failed AI request: two groups charged up front, one billed, balance = start - 1', async () => {
    const { client, room, teamId } = await fundedTeam(30);
    const t = tag();
    const good = `ledger-good-${t}.jpg`;
    const bad = `ledger-bad-${t}.jpg`;
    await gateway.script(good, [{ items: [modelItem('Bookcase')] }]);
    await gateway.script(bad, [{ items: [], fail: '400' }]);
    const { jobId } = await photoJob(client, room.id, [await texturedJpeg(1), await texturedJpeg(9)], [good, bad]);
    expect((await client.get(`/api/jobs/${jobId}/quote`)).body).toMatchObject({ credits: 2 });
    expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
    expect(await fakeBilling.balance(teamId)).toBe(28);

    expect(await jobInStatus(client, jobId)).toMatchObject({
      status: 'complete',
      photo_request_count: 1,
      billed_cost_usd: 1,
      billing_charged: true,
      billing_refunded: false,
    });
    // The unbilled credit comes back right after completion; without it the ledger stays one credit short.
    await eventually(async () => (await fakeBilling.balance(teamId)) === 29, 20_000);
    expect(await jobRow(jobId)).toMatchObject({ refund_state: 'done', refunds_owed: [] });
    expect(await fakeBilling.balance(teamId)).toBe(29);
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 2, refunded: 1, refunds: [`job:${jobId}:1:adjust`] },
    ]);
  });

  it('keeps the refund of a failed job owed while the billing service is down, and the sweep settles it exactly once', async () => {
    const { client, room, teamId } = await fundedTeam(20);
    const t = tag();
    const a = `ledger-down-a-${t}.jpg`;
    const b = `ledger-down-b-${t}.jpg`;
    await gateway.script(a, [{ items: [], fail: '500' }]);
    await gateway.script(b, [{ items: [], fail: '500' }]);
    const { jobId } = await photoJob(client, room.id, [await texturedJpeg(3), await texturedJpeg(5)], [a, b]);
    expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
    expect(await fakeBilling.balance(teamId)).toBe(18);
    // The billing service goes down for this team before the AI calls give up (they are retried with backoff).
    await fakeBilling.failNext('500', 1000, teamId);

    expect(await jobInStatus(client, jobId)).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(/Every AI request/),
    });
    const owed = await eventually(async () => {
      const row = await jobRow(jobId);
      return row?.refund_state === 'pending' &&
        (await fakeBilling.requests(teamId)).some((r) => r.path === '/api/v1/credits/refund')
        ? row
        : null;
    }, 30_000);
    expect(owed).toMatchObject({
      billing_charged: true,
      billing_refunded: false,
      refunds_owed: [{ round: 1, reference: `job:${jobId}:1`, amount: null }],
      archpk: 'BILLING#PENDING',
    });
    expect(await fakeBilling.balance(teamId)).toBe(18);

    // Back up: the sweep refunds it, once, however often it runs.
    await fakeBilling.recover(teamId);
    await invokeFunction('billingSweep');
    await invokeFunction('billingSweep');
    const settled = await jobRow(jobId);
    expect(settled).toMatchObject({ billing_refunded: true, refund_state: 'done', refunds_owed: [] });
    expect(settled).not.toHaveProperty('archpk');
    expect(await fakeBilling.balance(teamId)).toBe(20);
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 2, refunded: 2, refunds: [`job:${jobId}:1`] },
    ]);
    // The local service's own billingSweep schedule may settle at the same moment as the sweeps invoked here:
    // every settlement asks with the one reference, and the service refunds a reference once (the ledger above).
    const refunds = (await fakeBilling.requests(teamId)).filter(
      (r) => r.path === '/api/v1/credits/refund' && r.answered === 200,
    );
    expect(refunds.length).toBeGreaterThanOrEqual(1);
    expect(new Set(refunds.map((r) => (r.body as { reference: string }).reference))).toEqual(
      new Set([`job:${jobId}:1`]),
    );
    expect((await client.get(`/api/jobs/${jobId}`)).body).toMatchObject({ billing_refunded: true });
  });

  it('charges and starts nothing while a large grouping edit still holds the photos, and processes once it is released', async () => {
    const { client, room, teamId } = await fundedTeam(10);
    const name = `ledger-locked-${tag()}.jpg`;
    await gateway.script(name, [{ items: [modelItem('Floor lamp')] }]);
    const { jobId } = await photoJob(client, room.id, [await texturedJpeg(4)], [name]);
    // The lock a regroup of more photos than one transaction holds while it commits its chunks.
    const token = randomUUID();
    expect(await takePhotoWriteLock(jobId, GROUPING_STATUSES, token)).toBe(true);
    const runFields = (row: Record<string, any> | null) => ({
      status: row?.status,
      billing_charged: row?.billing_charged ?? null,
      billing_rounds: row?.billing_rounds ?? null,
      run_id: row?.run_id ?? null,
      pipeline: row?.pipeline ?? null,
    });
    const before = runFields(await jobRow(jobId));
    expect(before.status).toBe('awaiting_grouping');

    const refused = await client.post(`/api/jobs/${jobId}/process`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: PHOTOS_BEING_SAVED });
    expect(await fakeBilling.balance(teamId)).toBe(10);
    expect(await fakeBilling.spends(teamId)).toEqual([]);
    expect(runFields(await jobRow(jobId))).toEqual(before);
    expect((await client.get(`/api/jobs/${jobId}`)).body).toMatchObject({
      status: 'awaiting_grouping',
      billing_charged: false,
    });

    await releasePhotoWriteLock(jobId, token);
    expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
    expect(await fakeBilling.balance(teamId)).toBe(9);
    expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'complete', billing_charged: true });
    expect(await fakeBilling.spends(teamId)).toEqual([
      { reference: `job:${jobId}:1`, amount: 1, refunded: 0, refunds: [] },
    ]);
  });
});
