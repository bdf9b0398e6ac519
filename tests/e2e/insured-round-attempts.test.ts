/**
 * Covers: lib/insured/submit-service.ts (sweepStaleSubmitRounds on the
 * watchdog's own schedule: a round's makings are counted and capped),
 * lib/insured/submit-round-service.ts (failSubmitRound),
 * lib/insured/submit-round-store.ts.
 *
 * A homeowner submit round whose making always fails is handed to the insured
 * worker again by the watchdog until INSURED_ROUND_MAX_ATTEMPTS makings in all
 * (the submit's own, then each hand-on), never more: then it is given up. The
 * fault is real: one of the round's photos lies outside the claim's homeowner
 * folder, which the maker refuses to stage, so every making (the submit's, the
 * worker's) throws at that room. What a made job took stays submitted; the rest
 * goes back to the draft; the failure reaches error tracking; and the
 * homeowner's next submit starts a new round.
 *
 * Nothing here calls the sweep: the stack's watchdog schedule (every 15 s)
 * hands the round on and gives it up. The test stack makes a round stale after
 * 20 s and gives it up after 2 makings (tests/support/global-setup.ts), so
 * each step waits one watchdog tick: handed on at the first, given up at the
 * second, and the third shows it is not handed on again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { settings } from '../../lib/config';
import { startSubmitRound } from '../../lib/insured/store';
import { eventually } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeSentry } from '../support/fake-sentry';
import { addPhoto, homeowner, invitedLink, photo } from '../support/insured';

jest.setTimeout(330_000);

const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

const linkRow = (linkId: string) => getRow(`INSUREDLINK#${linkId}`, 'LINK');
const isOpen = (row: Record<string, any> | null) => Number(row?.submitted_round ?? 0) < Number(row?.submit_round ?? 0);

/**
 * Resolves once the watchdog has swept after this call: a second link's empty round, started two stale periods
 * back, is handed on by the first sweep that lists the open rounds after it was written.
 */
async function nextWatchdogSweep(): Promise<void> {
  const probe = await invitedLink();
  const empty = { photo_jobs: 0, photos: 0, media_jobs: 0, items: 0, pending_files: 0 };
  const past = new Date(Date.now() - 2 * settings().INSURED_ROUND_STALE_SECONDS * 1000);
  expect(await startSubmitRound(probe.linkId, 0, empty, past)).toBe(true);
  await eventually(async () => Number((await linkRow(probe.linkId))?.submit_attempts ?? 0) >= 2, 150_000, 1000);
}

it('hands a round that always fails on until its attempts are spent, then gives it up; the next submit starts a new round', async () => {
  const { adjuster, claimId, linkId, token } = await invitedLink();
  const h = homeowner(token);
  const den = (await h.post('/rooms', { name: 'Den' })).body;
  const lamp = (await h.post(`/rooms/${den.id}/items`, { name: 'Floor lamp' })).body;
  const attic = (await h.post('/rooms', { name: 'Attic' })).body;
  const trunk = await addPhoto(h, `/rooms/${attic.id}/files`, await photo(11), { note: 'Trunk' });
  // The fault: the photo's object now lies outside the claim's homeowner folder.
  const trunkRow = await getRow(`INSUREDLINK#${linkId}`, `FILE#${trunk.id}`);
  await setFields(`INSUREDLINK#${linkId}`, `FILE#${trunk.id}`, { key: `elsewhere/${trunkRow?.key}` });

  // The submit makes the round itself (two rows) and fails at the Attic's photo: the round stays open, its first
  // making counted, and the lease is given back (a failed making, not a crash).
  await h.post('/submit');
  const submitted = await linkRow(linkId);
  expect(isOpen(submitted)).toBe(true);
  expect(submitted).toMatchObject({ submit_round: 1, submit_attempts: 1, submit_lease_until: null });

  // The watchdog's ticks from here: each hand-on stamps the round and counts a making in one write; the worker's
  // making fails like the submit's. Every state the link passes through is watched, so no making goes unseen.
  const max = settings().INSURED_ROUND_MAX_ATTEMPTS;
  const handOns = new Set<string>();
  let mostAttempts = 0;
  const watchUntil = Date.now() + 280_000;
  let row = submitted;
  while (isOpen(row) && Date.now() < watchUntil) {
    await sleep(500);
    row = await linkRow(linkId);
    mostAttempts = Math.max(mostAttempts, Number(row?.submit_attempts ?? 0));
    if (row?.submit_handed_at && row.submit_handed_at !== submitted?.submit_handed_at)
      handOns.add(row.submit_handed_at);
  }
  expect(isOpen(row)).toBe(false);
  // The submit's own making, then max - 1 hand-ons: max makings in all, never more. Given up, not made.
  expect({ handedOn: handOns.size, mostAttempts }).toEqual({ handedOn: max - 1, mostAttempts: max });
  expect(row).toMatchObject({ submitted_round: 1, submit_attempts: max, submit_lease_until: null });
  expect(row?.activepk).toBeUndefined();
  // Given up, it is not handed on again: the watchdog's next sweep leaves it as it is (run meanwhile).
  const swept = nextWatchdogSweep();
  swept.catch(() => undefined); // awaited below; its failure is reported there

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

  // Error tracking heard of it, from the watchdog.
  const report = await eventually(
    async () => (await errors.events(linkId)).find((e) => e.tags?.kind === 'watchdog_sweep'),
    30_000,
  );
  expect(report).toMatchObject({ level: 'error', tags: { kind: 'watchdog_sweep', link_id: linkId } });

  await swept;
  expect(await linkRow(linkId)).toMatchObject({
    submitted_round: 1,
    submit_attempts: max,
    submit_handed_at: row?.submit_handed_at,
  });

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
