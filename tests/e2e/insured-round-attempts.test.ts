/**
 * Covers: lib/insured/submit-service.ts (sweepStaleSubmitRounds: a round's makings are counted and capped),
 * lib/insured/submit-round-service.ts (failSubmitRound), lib/insured/submit-round-store.ts.
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
 * The sweeps run here with their clock moved on a stale period each time (the
 * round's leases are still read against the real clock), so the loop takes
 * seconds, not minutes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { settings } from '../../lib/config';
import { roundHandOnWaitMs } from '../../lib/insured/rules';
import { sweepStaleSubmitRounds } from '../../lib/insured/submit-service';
import { flushSignals } from '../../lib/observability/flush';
import { eventually } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeSentry } from '../support/fake-sentry';
import { addPhoto, homeowner, invitedLink, photo } from '../support/insured';

const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

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

  // The submit makes the round itself (two rows) and fails at the Attic's photo: the round stays open.
  await h.post('/submit');
  const link = () => getRow(`INSUREDLINK#${linkId}`, 'LINK');
  const open = async () => {
    const row = await link();
    return (row?.submitted_round ?? 0) < (row?.submit_round ?? 0);
  };
  expect(await open()).toBe(true);

  const max = settings().INSURED_ROUND_MAX_ATTEMPTS;
  const stale = settings().INSURED_ROUND_STALE_SECONDS * 1000;
  // Each hand-on waits twice as long as the one before.
  const step = async () => roundHandOnWaitMs(stale, Number((await link())?.submit_attempts ?? 0)) + 1000;
  let clock = Date.now();
  let sweeps = 0;
  let handedOn = 0;
  let mostAttempts = 0;
  // Bounded: a round handed on forever would still be open after four times the attempts allowed.
  while ((await open()) && sweeps < 4 * max) {
    clock += await step();
    sweeps++;
    handedOn += (await sweepStaleSubmitRounds(new Date(clock))).handed_on;
    mostAttempts = Math.max(mostAttempts, Number((await link())?.submit_attempts ?? 0));
    // The worker's making of a handed-on round runs meanwhile (and fails); a sweep while it holds the lease waits.
    await sleep(750);
  }
  expect(await open()).toBe(false);
  expect(sweeps).toBeLessThan(4 * max);
  // The submit's own making, then max - 1 hand-ons: max makings in all, never more.
  expect({ handedOn, mostAttempts }).toEqual({ handedOn: max - 1, mostAttempts: max });
  // Given up, it is not handed on again.
  clock += await step();
  expect(await sweepStaleSubmitRounds(new Date(clock))).toMatchObject({ handed_on: 0, given_up: 0 });
  expect((await link())?.activepk).toBeUndefined();

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
  await flushSignals();
  const reports = await eventually(async () => {
    const events = await errors.events(linkId);
    return events.length ? events : null;
  }, 20_000);
  expect(reports[0]).toMatchObject({ level: 'error', tags: { kind: 'watchdog_sweep', link_id: linkId } });

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
