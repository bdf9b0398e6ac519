/**
 * Covers: lib/insured/submit-round-service.ts (submitRoundRows' fault
 * points), lib/insured/submit-round-run-service.ts (the round's run on the
 * engine, recovered by the watchdog on its own schedule).
 *
 * The homeowner's submit, through the real route, ended at each named point
 * of the round's maker (lib/faults) as a crash or a timeout would end it:
 * after it marked the rows it takes, before any job; after the first room's
 * jobs, before the next room's; after every job, before the round is
 * recorded made. A crash gives nothing back: the round is left open and the
 * dead request keeps the run's stage until its lease runs out (60 s, waited
 * out here); only then does the watchdog's own schedule restart the stage on
 * a stage worker, under the same round, which finishes it. Then every draft
 * row is in exactly one job (none lost, none taken twice), the round is made
 * and nothing was charged. Each point also runs disarmed: the submit makes
 * the round itself and the watchdog never touches it. A round past
 * INLINE_ROUND_ROWS is made by a stage worker: its making is cut off after
 * the marks and after every job, its stage's lease (STAGE_LEASE_SECONDS,
 * written back here rather than waited out) stays held, and the watchdog's
 * restart finishes it, each row one item once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { insuredKeys } from '../../lib/insured/keys';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { listDraftFiles, listDraftItems } from '../../lib/insured/draft-store';
import { INLINE_ROUND_ROWS } from '../../lib/insured/submit-service';
import { getJob } from '../../lib/jobs/job-store';
import { listStagedPhotos } from '../../lib/photos/staged-photo-store';
import { eventually } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { faultTable } from '../support/fault-table';
import { addPhoto, homeowner, invitedLink, photo, roundKey, roundRow, seedTypedRows } from '../support/insured';

jest.setTimeout(300_000);

const POINTS: FaultPointName[] = ['insured-round:marked', 'insured-round:making', 'insured-round:made'];
// Armed first: jest runs five at a time, and the armed cases wait for the same tick of the watchdog.
const CASES = [true, false].flatMap((armed) => POINTS.map((point) => ({ point, armed })));

const table = faultTable('Homeowner submit round, maker ended at each fault point');

/** The dead maker's stage, read a moment after its point tripped: still running under its lease (a crash gives nothing back). */
async function leaseLeftHeld(linkId: string): Promise<string> {
  await sleep(1000);
  const row = await roundRow(linkId, 1);
  const until = (row?.stage_lease_until as string | null | undefined) ?? null;
  expect({
    stage_state: row?.stage_state,
    lease_until: until,
    held: until !== null && Date.parse(until) > Date.now(),
  }).toEqual({ stage_state: 'running', lease_until: expect.any(String), held: true });
  return until as string;
}

/** The link's round as it stands: started, made (or given up), and the restarts of its run. */
async function roundOf(linkId: string) {
  const [link, round] = await Promise.all([
    getRow(insuredKeys.insuredLink(linkId).pk, insuredKeys.insuredLink(linkId).sk),
    roundRow(linkId, 1),
  ]);
  return {
    started: Number(link?.submit_round ?? 0),
    made: Number(link?.submitted_round ?? 0),
    status: round?.status,
    restarts: Number(round?.recovery_attempts ?? 0),
  };
}

/** The jobs the round's rows went to, as the rows record them, and which of them exist. */
async function rowJobs(linkId: string) {
  const [files, items] = await Promise.all([listDraftFiles(linkId), listDraftItems(linkId)]);
  const rows = [...files, ...items];
  const ids = [...new Set(rows.map((r) => r.job_id).filter((id): id is string => Boolean(id)))];
  const made = (await Promise.all(ids.map((id) => getJob(id, true)))).filter(Boolean).map((j) => j?.id);
  return { rows, ids, made };
}

/**
 * What time does to a round whose worker died: its stage's lease runs out and no heartbeat renews it. The stage's
 * lease (STAGE_LEASE_SECONDS, 960 s) is too long to wait out here, so it and the heartbeat are written back.
 */
async function deadWorker(linkId: string) {
  const past = new Date(Date.now() - 120_000).toISOString();
  const key = roundKey(linkId, 1);
  await setFields(key.pk, key.sk, { stage_lease_until: past, heartbeat_at: past });
}

it.concurrent.each(CASES)(
  '$point, armed $armed: every draft row becomes one job or item, the round ends, nothing is charged',
  ({ point, armed }) =>
    table.cell('homeowner round made in the submit', point, armed, async () => {
      const { adjuster, teamId, claimId, linkId, token } = await invitedLink();
      const h = homeowner(token);
      // Two rooms, so a maker can die between them: typed rows in each, and a photo of the Attic.
      const den = (await h.post('/rooms', { name: 'Den' })).body;
      const attic = (await h.post('/rooms', { name: 'Attic' })).body;
      for (const name of ['Floor lamp', 'Armchair'])
        expect((await h.post(`/rooms/${den.id}/items`, { name })).status).toBe(201);
      expect((await h.post(`/rooms/${attic.id}/items`, { name: 'Steamer trunk' })).status).toBe(201);
      await addPhoto(h, `/rooms/${attic.id}/files`, await photo(7), { note: 'Rocking horse' });
      const balanceBefore = await fakeBilling.balance(teamId);

      if (armed) armFaultPoint(point, linkId);
      const submitted = await h.post('/submit');
      if (!armed) {
        // The control: the submit made the round itself, and nothing is left for the watchdog.
        expect(submitted.status).toBe(200);
        expect(submitted.body).toMatchObject({ round: 1, processing: false, items: 3, photos: 1 });
        expect(await roundOf(linkId)).toEqual({ started: 1, made: 1, status: 'made', restarts: 0 });
      } else {
        expect(submitted.status).toBeGreaterThanOrEqual(500);
        expect(faultPointTripped(point, linkId)).toBe(true);
        expect(await roundOf(linkId)).toEqual({ started: 1, made: 0, status: 'making', restarts: 0 });
        // What the dead maker left: every row taken by round 1 with its job; the jobs made up to the point.
        const left = await rowJobs(linkId);
        expect(left.rows.map((r) => r.round)).toEqual([1, 1, 1, 1]);
        expect(left.ids).toHaveLength(3);
        const madeBefore = { 'insured-round:marked': 0, 'insured-round:making': 1, 'insured-round:made': 3 }[
          point as string
        ];
        // Mid making: the first room's job(s) only (the Attic has two: its photos' and its typed row's).
        if (point === 'insured-round:making') expect([1, 2]).toContain(left.made.length);
        else expect(left.made).toHaveLength(madeBefore as number);
        // The dead submit still holds the run's stage: no worker can take it until its lease runs out. The
        // watchdog's first tick after that (and a minute with no heartbeat) restarts the stage on a worker.
        const leaseUntil = await leaseLeftHeld(linkId);
        await eventually(async () => (await roundOf(linkId)).made === 1, 200_000, 1000);
        // Restarted once, under the same round, and only once the lease had run out.
        expect(await roundOf(linkId)).toEqual({ started: 1, made: 1, status: 'made', restarts: 1 });
        const restartedAt = (await roundRow(linkId, 1))?.stage_timings?.make?.started_at;
        expect(Date.parse(restartedAt as string)).toBeGreaterThanOrEqual(Date.parse(leaseUntil));
      }

      // Every row is in round 1 with a job that exists; three jobs (Den's rows, the Attic's rows, the Attic's photos).
      const after = await rowJobs(linkId);
      expect(after.rows.every((r) => r.round === 1 && r.job_id)).toBe(true);
      expect(after.made.sort()).toEqual(after.ids.sort());
      expect(after.ids).toHaveLength(3);
      // The adjuster has each typed row once, and the photo once, in rooms of the same names.
      const claimRooms = (await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[];
      const names: string[] = [];
      let photos = 0;
      for (const room of claimRooms.filter((r) => ['Den', 'Attic'].includes(r.name))) {
        for (const job of (await adjuster.get(`/api/rooms/${room.id}/jobs`)).body as any[]) {
          if (job.status === 'complete')
            names.push(...((await adjuster.get(`/api/inventory/${job.id}`)).body as any[]).map((i) => i.name));
          else {
            expect(job.status).toBe('awaiting_grouping');
            photos += (await listStagedPhotos(job.id)).filter((p) => !p.deleted).length;
          }
        }
      }
      expect(names.sort()).toEqual(['Armchair', 'Floor lamp', 'Steamer trunk']);
      expect(photos).toBe(1);
      // The homeowner sees it all handed over; nothing was charged.
      const state = (await h.get()).body;
      expect(state.submit_processing).toBe(false);
      for (const room of state.rooms as any[])
        for (const row of [...room.items, ...room.files]) expect(row.submitted).toBe(true);
      expect(await fakeBilling.spends(teamId)).toEqual([]);
      expect(await fakeBilling.balance(teamId)).toBe(balanceBefore);
    }),
);

/** Typed rows past INLINE_ROUND_ROWS: the round is made by a stage worker, whose making is cut off. */
const WORKER_ROWS = INLINE_ROUND_ROWS + 1;
const WORKER_POINTS: FaultPointName[] = ['insured-round:marked', 'insured-round:made'];

it.concurrent.each([true, false].flatMap((armed) => WORKER_POINTS.map((point) => ({ point, armed }))))(
  '$point, armed $armed: a round made by a stage worker, cut off there, makes every row one item once',
  ({ point, armed }) =>
    table.cell(`homeowner round made by the worker (${WORKER_ROWS} rows)`, point, armed, async () => {
      const { adjuster, teamId, claimId, linkId, token } = await invitedLink();
      const h = homeowner(token);
      const den = (await h.post('/rooms', { name: 'Den' })).body;
      await seedTypedRows(linkId, den.id, WORKER_ROWS);
      if (armed) armFaultPoint(point, linkId);
      const submitted = await h.post('/submit');
      expect(submitted.status).toBe(200);
      expect(submitted.body).toMatchObject({ round: 1, processing: true, items: WORKER_ROWS });
      if (armed) {
        await eventually(async () => faultPointTripped(point, linkId), 60_000, 250);
        expect((await roundOf(linkId)).made).toBe(0);
        await leaseLeftHeld(linkId);
        await deadWorker(linkId);
      }
      // The watchdog restarts the stage whose worker died (or the stage's message, back, finds it so): one maker
      // finishes it.
      await eventually(async () => (await roundOf(linkId)).made === 1, 150_000, 1000);
      expect(await roundOf(linkId)).toEqual({ started: 1, made: 1, status: 'made', restarts: armed ? 1 : 0 });

      const after = await rowJobs(linkId);
      expect(after.rows).toHaveLength(WORKER_ROWS);
      expect(after.rows.every((r) => r.round === 1 && r.job_id)).toBe(true);
      expect(after.ids).toHaveLength(1);
      expect(after.made).toEqual(after.ids);
      const denRoom = ((await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[]).find(
        (r) => r.name === 'Den',
      );
      const [job, ...others] = (await adjuster.get(`/api/rooms/${denRoom.id}/jobs`)).body as any[];
      expect(others).toEqual([]);
      const names = ((await adjuster.get(`/api/inventory/${job.id}`)).body as any[]).map((i) => i.name);
      expect(names).toHaveLength(WORKER_ROWS);
      expect(new Set(names).size).toBe(WORKER_ROWS);
      expect(await fakeBilling.spends(teamId)).toEqual([]);
    }),
);
