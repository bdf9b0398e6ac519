/**
 * Covers: lib/orchestrator/engine.ts (the fan-out's fault points),
 * lib/orchestrator/recovery.ts (the watchdog, on its own schedule).
 *
 * A photo job of 13 photos fans out 13 AI units, 12 at a time (the test
 * stack's OPENROUTER_PHOTO_CONCURRENCY), the 13th sent by the first unit
 * counted. Its Process click goes through the real route; a worker of the run
 * then ends at a named point of the engine (lib/faults), as a crash or a
 * timeout would end it:
 *  - engine:fanned-out: the stage recorded its fan-out, no unit sent yet;
 *  - engine:mid-fan-out: a unit was counted, the next unit not sent (part of
 *    the fan-out dispatched, the rest never);
 *  - engine:unit-done: a unit's work is recorded, the unit not counted (it
 *    holds its lease).
 * The run goes quiet; once it has been quiet for STUCK_JOB_MINUTES (the test
 * writes the heartbeat, and a dead unit's lease, back, as waiting would) the
 * watchdog's own schedule sends what was lost again. The job completes with
 * every unit counted once, every item once and the charge kept once. Each point
 * also runs disarmed: the job completes without the watchdog.
 */
import { settings } from '../../lib/config';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { getJob } from '../../lib/jobs/job-store';
import { readLiveLog } from '../../lib/jobs/log-store';
import { jobRunKind } from '../../lib/orchestrator/job-run-kind';
import { listUnits } from '../../lib/orchestrator/store';
import { Client, eventually, jobInStatus } from '../support/api';
import { setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { faultTable } from '../support/fault-table';
import { texturedJpeg } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';

jest.setTimeout(300_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const PHOTOS = 13;

/** Where the run stops, and how many units are counted when it does. */
const POINTS: { point: FaultPointName; countedAtStop: number }[] = [
  { point: 'engine:fanned-out', countedAtStop: 0 },
  { point: 'engine:mid-fan-out', countedAtStop: PHOTOS - 1 },
  { point: 'engine:unit-done', countedAtStop: PHOTOS - 1 },
];
// Armed first: jest runs five at a time, and the armed cases wait for the same tick of the watchdog.
const CASES = [true, false].flatMap((armed) => POINTS.map((p) => ({ ...p, armed })));

const table = faultTable('Engine fan-out, a worker ended at each fault point');

/** A funded team's photo job of PHOTOS photos, each its own group, each answered with one item. */
async function thirteenPhotoJob(tag: string) {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 100);
  const room = await newRoom(client, 'Garage');
  const names = Array.from({ length: PHOTOS }, (_, i) => `fan-out-${tag}-${i}.jpg`);
  await Promise.all(names.map((name, i) => gateway.script(name, [{ items: [modelItem(`Box ${i + 1}`)] }])));
  const bytes = await Promise.all(names.map((_, i) => texturedJpeg(i + 1)));
  const { jobId } = await photoJob(client, room.id, bytes, names);
  return { teamId, client, jobId };
}

it.concurrent.each(CASES)(
  '$point, armed $armed: the job completes with every unit counted once and its charge kept once',
  ({ point, countedAtStop, armed }) =>
    table.cell('photo job fan-out', point, armed, async () => {
      const { teamId, client, jobId } = await thirteenPhotoJob(`${point.split(':')[1]}-${armed}`);
      if (armed) armFaultPoint(point, jobId);
      expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);

      if (armed) {
        await eventually(async () => faultPointTripped(point, jobId), 60_000, 250);
        // The run stops where the worker ended: the fan-out recorded, this many units counted, nothing more coming.
        const stopped = await eventually(
          async () => {
            const job = await getJob(jobId);
            return job?.stage_state === 'fanout' && job.fanout_done === countedAtStop ? job : null;
          },
          60_000,
          250,
        );
        expect(stopped.fanout_total).toBe(PHOTOS);
        await new Promise((r) => setTimeout(r, 1000));
        expect(await getJob(jobId)).toMatchObject({ stage_state: 'fanout', fanout_done: countedAtStop });
        // What time does to a dead run: a unit that died holding its lease loses it, and the job goes quiet.
        const units = await listUnits(jobRunKind, stopped, stopped.stage_name as string);
        const pk = `JOBUNIT#${jobId}`;
        const past = new Date(Date.now() - 1000).toISOString();
        for (const unit of units.filter((u) => u.state === 'running'))
          await setFields(pk, `${stopped.run_id}#${stopped.stage_name}#${String(unit.index).padStart(6, '0')}`, {
            lease_until: past,
          });
        const quiet = new Date(Date.now() - (settings().STUCK_JOB_MINUTES + 1) * 60_000).toISOString();
        await setFields(`JOB#${jobId}`, 'JOB', { heartbeat_at: quiet });
      }

      const done = await jobInStatus(client, jobId, ['complete', 'error'], 180_000);
      expect(done).toMatchObject({ status: 'complete', items_found: PHOTOS });
      const job = await getJob(jobId);
      const units = await listUnits(jobRunKind, job as NonNullable<typeof job>, 'analyze');
      // Every unit counted once (the fan-in's count is the units done), every item once.
      expect(units.map((u) => [u.index, u.state, u.outcome])).toEqual(
        Array.from({ length: PHOTOS }, (_, i) => [i, 'done', 'ok']),
      );
      // Run twice only where a worker died holding it (its recorded answer was kept: the unit's work is not redone).
      const runTwice = units.filter((u) => u.attempts > 1).length;
      expect(runTwice).toBe(armed && point === 'engine:unit-done' ? 1 : 0);
      const items = (await client.get(`/api/inventory/${jobId}`)).body as any[];
      expect(items.map((i) => i.name).sort()).toEqual(Array.from({ length: PHOTOS }, (_, i) => `Box ${i + 1}`).sort());
      // Charged once, kept.
      const spends = await fakeBilling.spends(teamId);
      expect(spends).toHaveLength(1);
      expect(spends[0]).toMatchObject({ reference: `job:${jobId}:1`, refunded: 0 });
      // The watchdog sent what was lost again when armed; disarmed, it never had to.
      const watchdog = (await readLiveLog(jobId))
        .filter((l) => l.message.startsWith('Watchdog:'))
        .map((l) => l.message);
      if (armed) expect(watchdog).toEqual([expect.stringMatching(/unit\(s\) of .* were not finished; requeued/)]);
      else expect(watchdog).toEqual([]);
    }),
);
