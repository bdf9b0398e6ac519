/**
 * Covers: lib/job-actions/service.ts (cancelJob), lib/billing/settlement-rules.ts
 * (cancelBlock), the billing sweep's schedule (lib/billing/sweep-service.ts).
 *
 * Cancel around a Process click that died at its charge, through the real
 * routes, the click ended at the job start's named fault points (lib/faults)
 * as a crash or a timeout would end it:
 *  - after the spend answered, before its answer was recorded (the spend is in
 *    flight as far as the job knows): Cancel is refused while it is open; once
 *    its lease has run out (the test writes the asked-at time back, as waiting
 *    would) the billing sweep's own schedule gives the spend back, and Cancel
 *    then discards the job;
 *  - after the charge was recorded, before the start: Cancel is refused while
 *    the round is charged and not started; the sweep gives the round back, and
 *    a job whose round was refunded is cancelled like one never charged.
 * The ledger nets to nothing. Each point also runs disarmed: the click charges
 * and starts the run, which Cancel may no longer discard, charged once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { getJob } from '../../lib/jobs/job-store';
import { eventually, jobInStatus } from '../support/api';
import { audioJobAtConfirmation } from '../support/confirmation-jobs';
import { objectExists } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { faultTable } from '../support/fault-table';
import { leaseRunsOut } from '../support/process-death';
import { shortRecordings } from '../support/recording-jobs';

jest.setTimeout(240_000);

/** Two seconds of voice note: one block, 1 credit at the test service's prices. */
const SECONDS = 2;
let audio: Buffer;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'cancel-faults-'));
  audio = shortRecordings(mediaDir, SECONDS).audio;
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

const table = faultTable('Cancel after a Process click ended at each fault point');

const jobAtConfirmation = () => audioJobAtConfirmation({ bytes: audio, seconds: SECONDS, filePrefix: 'cancel' });

const POINTS: { point: FaultPointName; refused: RegExp; open: Record<string, unknown> }[] = [
  // The spend is at the service, its answer not on the job: a spend in flight.
  { point: 'job-start:spent', refused: /being charged/, open: { billing_spend_round: 1 } },
  // The round is charged and recorded, the run not started.
  {
    point: 'job-start:charged',
    refused: /charged for a run that has not started/,
    open: { billing_charged: true, billing_round_started: false },
  },
];
// Armed first: jest runs five at a time, and the armed cases wait for the same tick of the billing sweep.
const CASES = [true, false].flatMap((armed) => POINTS.map((p) => ({ ...p, armed })));

it.concurrent.each(CASES)(
  '$point, armed $armed: Cancel is refused while the charge is open, then discards the job once the sweep gave it back',
  ({ point, refused, open, armed }) =>
    table.cell('Cancel', point, armed, async () => {
      const { teamId, client, job } = await jobAtConfirmation();
      const cancel = () => client.post(`/api/jobs/${job.id}/cancel`);
      if (armed) armFaultPoint(point, job.id);
      const processed = await client.post(`/api/jobs/${job.id}/process`);

      if (!armed) {
        // The control: the click charged and started the run; it is no longer a job Cancel discards.
        expect(processed.status).toBe(200);
        const whileRunning = await cancel();
        expect(whileRunning.status).toBe(409);
        expect(await jobInStatus(client, job.id)).toMatchObject({ status: 'complete' });
        expect(await fakeBilling.spends(teamId)).toEqual([
          { reference: `job:${job.id}:1`, amount: 1, refunded: 0, refunds: [] },
        ]);
        return;
      }

      expect(processed.status).toBeGreaterThanOrEqual(500);
      expect(faultPointTripped(point, job.id)).toBe(true);
      // The spend landed at the service; the job still waits for confirmation with its charge open.
      expect(await fakeBilling.spends(teamId)).toEqual([
        { reference: `job:${job.id}:1`, amount: 1, refunded: 0, refunds: [] },
      ]);
      const dead = await getJob(job.id);
      expect(dead).toMatchObject({ status: 'awaiting_confirmation', ...open });
      const whileOpen = await cancel();
      expect(whileOpen.status).toBe(409);
      expect(whileOpen.body.detail).toMatch(refused);
      // Nothing was written by the refused Cancel: the job and its file stay for the sweep.
      expect(await getJob(job.id)).toEqual(dead);
      expect(await objectExists(job.media_key as string)).toBe(true);

      // The round's lease runs out; the billing sweep, on its own schedule, gives the spend back.
      await leaseRunsOut(job.id);
      const spends = await eventually(
        async () => {
          const all = await fakeBilling.spends(teamId);
          return all[0]?.refunded === 1 ? all : null;
        },
        150_000,
        1000,
      );
      expect(spends).toEqual([{ reference: `job:${job.id}:1`, amount: 1, refunded: 1, refunds: [`job:${job.id}:1`] }]);
      // Once the refund is recorded on the job, Cancel discards it and its file.
      const cancelled = await eventually(
        async () => {
          const res = await cancel();
          return res.status === 200 ? res : null;
        },
        30_000,
        500,
      );
      expect(cancelled.body).toEqual({ cancelled: true, id: job.id });
      expect(await getJob(job.id)).toBeNull();
      expect(await objectExists(job.media_key as string)).toBe(false);
      expect(await fakeBilling.balance(teamId)).toBe(10);
    }),
);
