/**
 * Covers: lib/billing/settlement-service.ts (a job's owed refund),
 * lib/billing/send-charge-service.ts (a failed send's owed refund), the
 * billing sweep's schedule (lib/billing/sweep-service.ts).
 *
 * The refund asked of the billing service while the invocation dies before
 * its answer is recorded (the named fault points job-refund:asked and
 * send-refund:asked, lib/faults): the refund stays owed, the billing sweep's
 * own schedule asks for it again under the same reference, and the ledger is
 * refunded exactly once. Each point also runs disarmed: one ask settles it.
 *
 *  - A job: a Process click ended after its charge was recorded, before the
 *    start (job-start:charged); once the round's lease has run out (the test
 *    writes the charge time back, as waiting would) the sweep gives the round
 *    back, and that refund is the one cut off.
 *  - A job whose run fails (its photo's one AI call is refused): the worker
 *    that ends the run in error gives the charge back, and that refund is the
 *    one cut off.
 *  - A claims platform send the platform refuses: the send fails with its
 *    refund owed, and the request's own refund is the one cut off. The
 *    refund's handler does not catch the end of the invocation (a crash runs
 *    no catch block): the request ends there, never answering the refusal.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REFUND_PATH } from '../../lib/integrations/billing-contract';
import { getOwedSendRefund } from '../../lib/billing/send-refund-store';
import { getJob } from '../../lib/jobs/job-store';
import { getSubmission } from '../../lib/sends/submission-store';
import { Client, eventually, jobInStatus } from '../support/api';
import { audioJobAtConfirmation } from '../support/confirmation-jobs';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway } from '../support/fake-gateway';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { faultTable } from '../support/fault-table';
import { leaseRunsOut } from '../support/process-death';
import { shortRecordings } from '../support/recording-jobs';
import { claimsPlatform, claimsPlatformTeam, openSubmissionId } from '../support/sends';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';
import { texturedJpeg } from '../support/inventory';

jest.setTimeout(300_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

const SECONDS = 2;
let audio: Buffer;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'refund-faults-'));
  audio = shortRecordings(mediaDir, SECONDS).audio;
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

const table = faultTable('Refunds, asked while the invocation ended');

/** The team's refund calls at the billing service. */
const refundAsks = async (teamId: number) =>
  (await fakeBilling.requests(teamId)).filter((r) => r.path === REFUND_PATH).length;

/** The spends of the team, once every one has had back all it took. */
const refundedWhole = (teamId: number, prefix: string) =>
  eventually(
    async () => {
      const all = (await fakeBilling.spends(teamId)).filter((s) => s.reference.startsWith(prefix));
      return all.length > 0 && all.every((s) => s.refunded === s.amount) ? all : null;
    },
    200_000,
    1000,
  );

// Armed first: jest runs five at a time, and the armed cases wait for the same ticks of the billing sweep.
it.concurrent.each([true, false])(
  "job-refund:asked, armed %s: the sweep gives an unstarted round back once, whatever became of the first ask's answer",
  (armed) =>
    table.cell('job refund (job-refund:asked)', 'dies after the ask, before its record', armed, async () => {
      const { teamId, client, job } = await audioJobAtConfirmation({
        bytes: audio,
        seconds: SECONDS,
        filePrefix: 'refund',
      });
      // The way in: a click that charged the round and died before the start.
      armFaultPoint('job-start:charged', job.id);
      if (armed) armFaultPoint('job-refund:asked', job.id);
      expect((await client.post(`/api/jobs/${job.id}/process`)).status).toBeGreaterThanOrEqual(500);
      expect(await getJob(job.id)).toMatchObject({ billing_charged: true, billing_round_started: false });
      await leaseRunsOut(job.id);

      const spends = await refundedWhole(teamId, `job:${job.id}:`);
      // Refunded exactly once, and the job knows it.
      expect(spends).toEqual([{ reference: `job:${job.id}:1`, amount: 1, refunded: 1, refunds: [`job:${job.id}:1`] }]);
      await eventually(async () => (await getJob(job.id))?.refund_state === 'done', 150_000, 1000);
      expect(await getJob(job.id)).toMatchObject({ billing_refunded: true, refund_state: 'done', refunds_owed: [] });
      expect(await fakeBilling.balance(teamId)).toBe(10);
      // Armed: the first ask's answer was lost with its invocation, so a later sweep asked again (the service answered
      // that repeat with the first answer). Disarmed, the first ask settled it.
      if (armed) expect(faultPointTripped('job-refund:asked', job.id)).toBe(true);
      const asks = await refundAsks(teamId);
      if (armed) expect(asks).toBeGreaterThanOrEqual(2);
      else expect(asks).toBe(1);
    }),
);

it.concurrent.each([true, false])(
  "job-refund:asked, armed %s: a failed run's refund, cut off in the worker that failed it, is settled once",
  (armed) =>
    table.cell(
      'job refund after a failed run (job-refund:asked)',
      'dies after the ask, before its record',
      armed,
      async () => {
        const member = newTeamMember();
        const teamId = member.current_team_id as number;
        const client = await Client.signIn(member);
        await fakeBilling.setBalance(teamId, 10);
        const room = await newRoom(client, 'Den');
        // The photo's one AI call fails: the run ends in error and the worker that ends it gives the charge back.
        const name = `refund-fails-${randomUUID().slice(0, 8)}.jpg`;
        await gateway.script(name, [{ items: [], fail: '400' }]);
        const { jobId } = await photoJob(client, room.id, [await texturedJpeg(5)], [name]);
        if (armed) armFaultPoint('job-refund:asked', jobId);
        expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
        expect(await jobInStatus(client, jobId)).toMatchObject({ status: 'error' });

        const spends = await refundedWhole(teamId, `job:${jobId}:`);
        expect(spends).toEqual([{ reference: `job:${jobId}:1`, amount: 1, refunded: 1, refunds: [`job:${jobId}:1`] }]);
        await eventually(async () => (await getJob(jobId))?.refund_state === 'done', 150_000, 1000);
        expect(await getJob(jobId)).toMatchObject({ billing_refunded: true, refund_state: 'done', refunds_owed: [] });
        expect(await fakeBilling.balance(teamId)).toBe(10);
        if (armed) expect(faultPointTripped('job-refund:asked', jobId)).toBe(true);
        const asks = await refundAsks(teamId);
        if (armed) expect(asks).toBeGreaterThanOrEqual(2);
        else expect(asks).toBe(1);
      },
    ),
);

it.concurrent.each([true, false])(
  "send-refund:asked, armed %s: a refused send's refund is settled once, whatever became of the first ask's answer",
  (armed) =>
    table.cell('send refund (send-refund:asked)', 'dies after the ask, before its record', armed, async () => {
      const t = await claimsPlatformTeam(['Globe', 'Atlas'], 100);
      const teamId = t.member.current_team_id as number;
      if (armed) armFaultPoint('send-refund:asked', t.identity.team.id);
      // The platform refuses the send: it fails, and the request gives its charge back.
      await claimsPlatform().failNext('503', { match: t.token, count: 3 });
      const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
      // Armed, the request ended at the point as a crash would, not answering the refusal's 502 (500: the route's
      // answer to an invocation that threw). The send's failure was recorded with its refund owed before the ask.
      expect(res.status).toBe(armed ? 500 : 502);
      const send = await getSubmission(await openSubmissionId(t.claimId));
      expect(send).toMatchObject({ status: 'failed' });

      const spends = await refundedWhole(teamId, `as-send:${t.claimId}`);
      expect(spends.map((s) => [s.amount, s.refunded, s.refunds.length])).toEqual([[2, 2, 1]]);
      expect(await fakeBilling.balance(teamId)).toBe(100);
      if (armed) expect(faultPointTripped('send-refund:asked', t.identity.team.id)).toBe(true);
      // Armed: the owed refund outlived the request, and the billing sweep asked again; disarmed, the request settled it.
      await eventually(async () => (await refundAsks(teamId)) >= (armed ? 2 : 1), 150_000, 1000);
      // Nothing is owed any more, and it took one ask disarmed.
      await eventually(async () => (await getOwedSendRefund(send?.charge_key as string)) === null, 150_000, 1000);
      if (!armed) expect(await refundAsks(teamId)).toBe(1);
    }),
);
