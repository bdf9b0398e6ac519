/**
 * Covers: lib/insured/submit-round-run-service.ts (a round the engine gives
 * up: giveUpRound), lib/insured/submit-service.ts (a making that failed in
 * the request is handed to a worker), lib/insured/submit-round-service.ts
 * (restoreRoundRows).
 *
 * A homeowner submit round that never gets made is ended by the engine after
 * its attempts, never retried forever, and its rows that reached no job go
 * back to the draft so the homeowner can submit again:
 *
 *  - a making that always fails (one of the round's photos lies outside the
 *    claim's homeowner folder, which the maker refuses to stage): the
 *    submit's making fails, the round goes to a stage worker (the run's one
 *    recovery), whose making fails too, and the engine fails the run. What a
 *    made job took stays submitted; the failure reaches error tracking; the
 *    next submit starts a new round.
 *  - a maker that dies every time (an armed fault point, armed again after it
 *    tripped): the watchdog's own schedule restarts the run once, and at the
 *    second interruption ends it. The dead makers' leases are written back
 *    rather than waited out.
 */
import { eventually } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeSentry } from '../support/fake-sentry';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { addPhoto, homeowner, invitedLink, photo, roundKey, roundRow } from '../support/insured';
import { signalId } from '../support/outbound-ids';

jest.setTimeout(240_000);

const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

const linkRow = (linkId: string) => getRow(`INSUREDLINK#${linkId}`, 'LINK');
const isOpen = (row: Record<string, any> | null) => Number(row?.submitted_round ?? 0) < Number(row?.submit_round ?? 0);

/** A dead maker's lease and heartbeat written back, as time would leave them (STAGE_LEASE_SECONDS is 960 s). */
async function leaseRunOut(linkId: string) {
  const past = new Date(Date.now() - 120_000).toISOString();
  const key = roundKey(linkId, 1);
  await setFields(key.pk, key.sk, { stage_lease_until: past, heartbeat_at: past });
}

it.concurrent('ends a round whose making always fails after its two makings; the next submit starts a new round', async () => {
  const { adjuster, claimId, linkId, token } = await invitedLink();
  const h = homeowner(token);
  const den = (await h.post('/rooms', { name: 'Den' })).body;
  const lamp = (await h.post(`/rooms/${den.id}/items`, { name: 'Floor lamp' })).body;
  const attic = (await h.post('/rooms', { name: 'Attic' })).body;
  const trunk = await addPhoto(h, `/rooms/${attic.id}/files`, await photo(11), { note: 'Trunk' });
  // The fault: the photo's object now lies outside the claim's homeowner folder.
  const trunkRow = await getRow(`INSUREDLINK#${linkId}`, `FILE#${trunk.id}`);
  await setFields(`INSUREDLINK#${linkId}`, `FILE#${trunk.id}`, { key: `elsewhere/${trunkRow?.key}` });

  // The submit's making fails at the Attic's photo: the round goes to a stage worker, and the answer says it is
  // still being handed over.
  const submitted = await h.post('/submit');
  expect(submitted.status).toBe(200);
  expect(submitted.body).toMatchObject({ round: 1, processing: true });

  // The worker's making fails the same way: the engine fails the run, and the round is given up.
  const row = await eventually(async () => {
    const link = await linkRow(linkId);
    return isOpen(link) ? null : link;
  }, 60_000);
  expect(row).toMatchObject({ submit_round: 1, submitted_round: 1 });
  const round = await roundRow(linkId, 1);
  expect(round).toMatchObject({
    status: 'given_up',
    recovery_attempts: 1,
    error: expect.stringContaining('outside its claim'),
  });
  expect(round?.activepk).toBeUndefined();

  // The homeowner sees nothing being handed over; the lamp went with the job made from it, the trunk's photo is
  // back in the draft, and the adjuster has the lamp.
  const state = (await h.get()).body;
  expect(state.submit_processing).toBe(false);
  const rooms = new Map((state.rooms as any[]).map((r) => [r.name, r]));
  expect(rooms.get('Den').items).toEqual([expect.objectContaining({ id: lamp.id, submitted: true })]);
  expect(rooms.get('Attic').files).toEqual([expect.objectContaining({ id: trunk.id, submitted: false })]);
  const claimRooms = (await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[];
  const denJobs = (await adjuster.get(`/api/rooms/${claimRooms.find((r) => r.name === 'Den').id}/jobs`)).body;
  expect(denJobs).toHaveLength(1);
  expect((await adjuster.get(`/api/inventory/${denJobs[0].id}`)).body.map((i: any) => i.name)).toEqual(['Floor lamp']);

  // Error tracking heard of it.
  const report = await eventually(
    async () => (await errors.events(signalId(linkId))).find((e) => e.tags?.kind === 'pipeline_failure'),
    30_000,
  );
  expect(report).toMatchObject({ level: 'error', tags: { kind: 'pipeline_failure', link_id: signalId(linkId) } });

  // The photo is the homeowner's again: removed, and a row typed instead, the next submit starts round 2.
  expect((await h.delete(`/files/${trunk.id}`)).status).toBe(200);
  await h.post(`/rooms/${attic.id}/items`, { name: 'Steamer trunk' });
  const again = await h.post('/submit');
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ round: 2, nothing_new: false, processing: false, items: 1 });
  const atticRoom = ((await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[]).find(
    (r) => r.name === 'Attic',
  );
  const [atticJob] = (await adjuster.get(`/api/rooms/${atticRoom.id}/jobs`)).body;
  expect((await adjuster.get(`/api/inventory/${atticJob.id}`)).body.map((i: any) => i.name)).toEqual(['Steamer trunk']);
});

it.concurrent('ends a round whose maker dies every time at the second interruption, by the watchdog alone', async () => {
  const { linkId, token } = await invitedLink();
  const h = homeowner(token);
  const den = (await h.post('/rooms', { name: 'Den' })).body;
  for (const name of ['Floor lamp', 'Armchair']) await h.post(`/rooms/${den.id}/items`, { name });

  // The submit dies after marking the rows; armed again, so the worker the watchdog restarts the round on dies too.
  armFaultPoint('insured-round:marked', linkId);
  expect((await h.post('/submit')).status).toBeGreaterThanOrEqual(500);
  expect(faultPointTripped('insured-round:marked', linkId)).toBe(true);
  armFaultPoint('insured-round:marked', linkId);
  expect(await roundRow(linkId, 1)).toMatchObject({ status: 'making', stage_state: 'running', recovery_attempts: 0 });
  await leaseRunOut(linkId);

  // The watchdog's tick restarts the round on a stage worker, which dies at the same point.
  await eventually(async () => faultPointTripped('insured-round:marked', linkId), 90_000, 500);
  const restarted = await eventually(async () => {
    const row = await roundRow(linkId, 1);
    return row?.stage_state === 'running' && row.recovery_attempts === 1 ? row : null;
  }, 30_000);
  expect(restarted).toMatchObject({ status: 'making' });
  await leaseRunOut(linkId);

  // The second interruption ends the round: its rows, marked and never made into a job, are the homeowner's again.
  const ended = await eventually(async () => {
    const row = await roundRow(linkId, 1);
    return row?.status === 'making' ? null : row;
  }, 90_000);
  expect(ended).toMatchObject({ status: 'given_up', recovery_attempts: 1, error: expect.stringContaining('twice') });
  expect(await linkRow(linkId)).toMatchObject({ submit_round: 1, submitted_round: 1 });
  const state = (await h.get()).body;
  expect(state.submit_processing).toBe(false);
  const items = (state.rooms as any[]).find((r) => r.name === 'Den').items as any[];
  expect(items.map((i) => i.submitted)).toEqual([false, false]);
  const again = await h.post('/submit');
  expect(again.body).toMatchObject({ round: 2, nothing_new: false, processing: false, items: 2 });
});
