/**
 * Covers: lib/pipelines/capture/download-unit.ts (capture:downloaded),
 * lib/orchestrator/engine.ts (engine:fanned-out on the capture import's run),
 * the watchdog's schedule (lib/orchestrator/recovery.ts).
 *
 * A capture import into a claim (two photos of the Kitchen, a voice note of
 * the Garage), started over HTTP, its run ended at a named point (lib/faults)
 * as a crash or a timeout would end it:
 *  - engine:fanned-out: the expand stage recorded its fan-out (the download
 *    unit), and the unit was never sent. The run goes quiet; once it has been
 *    quiet for STUCK_JOB_MINUTES (the test writes the heartbeat back, as
 *    waiting would) the watchdog's own schedule sends the unit again;
 *  - capture:downloaded: the unit's downloads are in the bucket, their records
 *    not written, and the unit dies holding its lease (a crash retries
 *    nothing). Once the lease has run out and the run has gone quiet (the test
 *    writes both back, as waiting would) the watchdog sends the unit again,
 *    and it downloads again.
 * Then the batch is complete, each medium made into a job once (one photo job
 * of two photos, one voice-note job) and the voice note's Process click is
 * charged once. Each point also runs disarmed: each medium is downloaded once
 * and the watchdog never has to act.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { settings } from '../../lib/config';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { getImportBatch } from '../../lib/imports/store';
import { getJob } from '../../lib/jobs/job-store';
import { readLiveLog } from '../../lib/jobs/log-store';
import { jobRunKind } from '../../lib/orchestrator/job-run-kind';
import { listUnits } from '../../lib/orchestrator/store';
import { Client, eventually, jobInStatus } from '../support/api';
import { setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeCaptureSource } from '../support/fake-capture-source';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { faultTable } from '../support/fault-table';
import { shortRecordings } from '../support/recording-jobs';
import { newTeamMember } from '../support/tokens';
import { newRoom } from '../support/uploads';

jest.setTimeout(300_000);

const capture = fakeCaptureSource(process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string);
let audio: Buffer;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'capture-faults-'));
  audio = shortRecordings(mediaDir, 2).audio;
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

const jpeg = (seed: number) =>
  sharp({ create: { width: 120, height: 90, channels: 3, background: { r: seed * 30, g: 100, b: 150 } } })
    .jpeg()
    .toBuffer();

const POINTS: FaultPointName[] = ['engine:fanned-out', 'capture:downloaded'];
// Armed first: jest runs five at a time, and the armed cases wait for the same tick of the watchdog.
const CASES = [true, false].flatMap((armed) => POINTS.map((point) => ({ point, armed })));

const table = faultTable('Capture import, its run ended at each fault point');

it.concurrent.each(CASES)(
  '$point, armed $armed: the import completes with each medium made into a job once, then charged once',
  ({ point, armed }) =>
    table.cell('capture import', point, armed, async () => {
      const member = newTeamMember();
      const teamId = member.current_team_id as number;
      const client = await Client.signIn(member);
      await fakeBilling.setBalance(teamId, 10);
      const claimId = (await newRoom(client, 'Hall')).claim_id;
      const org = await capture.seedOrg({ teams: [{ name: 'Crew' }] });
      const connected = await client.post('/api/integrations/capture-source/connect', { api_token: org.tokens[0] });
      expect(connected.status).toBe(200);
      const assignment = await capture.seedAssignment({
        org_id: org.org_id,
        team_id: org.teams[0].id,
        reference: `CLM-${randomUUID().slice(0, 6)}`,
        title: '9 Elm Row',
        locations: [
          { name: 'Kitchen', groups: [] },
          { name: 'Garage', groups: [] },
        ],
      });
      const [kitchen, garage] = assignment.locations;
      const media = await capture.seedMedia(org.org_id, assignment.id, [
        { type: 'photo', location_id: kitchen.id, filename: 'kettle.jpg', bytes: await jpeg(1) },
        { type: 'photo', location_id: kitchen.id, filename: 'toaster.jpg', bytes: await jpeg(2) },
        { type: 'audio', location_id: garage.id, filename: 'note.m4a', bytes: audio },
      ]);

      // Armed for the claim: the import's run is a job of it.
      if (armed) armFaultPoint(point, claimId);
      const started = await client.post(`/api/integrations/connections/${connected.body.id}/import`, {
        assignment_id: assignment.id,
        target: { mode: 'existing_claim', claim_id: claimId },
      });
      expect(started.status).toBe(201);
      const batchId = started.body.id as string;
      const runnerId = async () => (await getImportBatch(batchId))?.read_job_id as string;

      if (armed) {
        await eventually(async () => faultPointTripped(point, claimId), 60_000, 250);
        if (point === 'engine:fanned-out') {
          // The fan-out is recorded and its unit never sent: nothing moves until the watchdog sees the run quiet.
          const runner = await eventually(async () => {
            const job = await getJob(await runnerId());
            return job?.stage_state === 'fanout' && job.fanout_done === 0 ? job : null;
          });
          await new Promise((r) => setTimeout(r, 1000));
          expect(await getJob(runner.id)).toMatchObject({ stage_state: 'fanout', fanout_done: 0 });
          const quiet = new Date(Date.now() - (settings().STUCK_JOB_MINUTES + 1) * 60_000).toISOString();
          await setFields(`JOB#${runner.id}`, 'JOB', { heartbeat_at: quiet });
        } else {
          // The unit died holding its lease and nothing retries it: the run stays put until time has passed.
          const runner = (await getJob(await runnerId())) as NonNullable<Awaited<ReturnType<typeof getJob>>>;
          const units = await eventually(async () => {
            const all = await listUnits(jobRunKind, runner, 'expand');
            return all.some((u) => u.state === 'running') ? all : null;
          });
          await new Promise((r) => setTimeout(r, 1000));
          expect(await getJob(runner.id)).toMatchObject({ stage_state: 'fanout', fanout_done: 0 });
          // What time does to a dead unit: its lease runs out, and the run goes quiet.
          const past = new Date(Date.now() - 1000).toISOString();
          for (const unit of units.filter((u) => u.state === 'running'))
            await setFields(`JOBUNIT#${runner.id}`, `${runner.run_id}#expand#${String(unit.index).padStart(6, '0')}`, {
              lease_until: past,
            });
          const quiet = new Date(Date.now() - (settings().STUCK_JOB_MINUTES + 1) * 60_000).toISOString();
          await setFields(`JOB#${runner.id}`, 'JOB', { heartbeat_at: quiet });
        }
      }
      const batch = await eventually(
        async () => {
          const res = await client.get(`/api/integrations/imports/${batchId}`);
          return res.body.status !== 'importing' ? res.body : null;
        },
        180_000,
        500,
      );
      expect(batch).toMatchObject({ status: 'complete', total: 3, imported: 3, failed: 0, runs: 1 });

      // Each medium became a job once: the Kitchen's two photos one photo job, the voice note its own job.
      const rooms = (await client.get(`/api/claims/${claimId}/rooms`)).body as any[];
      const jobsOf = async (name: string) =>
        (await client.get(`/api/rooms/${rooms.find((r) => r.name === name).id}/jobs`)).body as any[];
      const kitchenJobs = await jobsOf('Kitchen');
      expect(kitchenJobs).toHaveLength(1);
      const staged = (await client.get(`/api/jobs/${kitchenJobs[0].id}/staged-photos`)).body as any[];
      expect(staged.map((p) => p.original_filename).sort()).toEqual(['kettle.jpg', 'toaster.jpg']);
      const garageJobs = await jobsOf('Garage');
      expect(garageJobs.map((j) => [j.source_type, j.original_filename])).toEqual([['audio', 'note.m4a']]);
      expect(batch.jobs).toHaveLength(2);

      // What the fault cost: the unit downloaded again, or the watchdog sent the lost unit again; disarmed, neither.
      const downloads = await Promise.all(
        media.map(async (m) => (await capture.downloads({ media_id: m.id, kind: 'original' })).length),
      );
      const watchdog = (await readLiveLog(await runnerId())).filter((l) => l.message.startsWith('Watchdog:'));
      expect(downloads).toEqual(media.map(() => (armed && point === 'capture:downloaded' ? 2 : 1)));
      expect(watchdog).toHaveLength(armed ? 1 : 0);

      // The voice note's Process click (once its length is known) is charged once.
      const noteJob = garageJobs[0].id as string;
      await eventually(async () => (await getJob(noteJob))?.duration, 60_000, 500);
      expect((await client.post(`/api/jobs/${noteJob}/process`)).status).toBe(200);
      expect(await jobInStatus(client, noteJob)).toMatchObject({ status: 'complete' });
      expect(await fakeBilling.spends(teamId)).toEqual([
        { reference: `job:${noteJob}:1`, amount: 1, refunded: 0, refunds: [] },
      ]);
    }),
);
