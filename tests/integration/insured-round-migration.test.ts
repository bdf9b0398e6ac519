/**
 * Covers: lib/insured/submit-round-migration-service.ts (the one-time
 * migration of homeowner submit rounds being made at the deploy that put
 * them on the engine), over link rows written in the earlier shape: a round
 * on the link alone (its lease, its makings, the link on the open-submits
 * index), one of its rows already marked. One round's maker is gone (its
 * lease ran out): its run is queued and a stage worker makes it. One round's
 * maker still held its lease: the run is opened under that lease, and the
 * stack's own watchdog restarts it on a worker once the lease has run out.
 * Either way every row is made once, and the link leaves the old shape.
 * Run again, the migration opens nothing twice.
 */
import { insuredKeys } from '../../lib/insured/keys';
import { derivedId } from '../../lib/inventory/item-rules';
import { listDraftItems } from '../../lib/insured/draft-store';
import { migrateInsuredSubmitRounds } from '../../lib/insured/submit-round-migration-service';
import { eventually } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { homeowner, invitedLink, roundRow } from '../support/insured';

jest.setTimeout(150_000);

/** The migration takes every link of the earlier shape in the table: one case's rows are written and migrated at a time. */
let migrating: Promise<unknown> = Promise.resolve();
function alone<T>(step: () => Promise<T>): Promise<T> {
  const done = migrating.then(step);
  migrating = done.catch(() => undefined);
  return done;
}

/**
 * A link with two typed rows in its Den, its round 1 open as the earlier release left it: the lamp marked already.
 * The lease's times are taken when the link row is written, so a slow setup does not use up a lease meant to be held.
 */
async function legacyOpenRound(lease: { leftMs: number; handedAgoMs: number }) {
  const { adjuster, claimId, linkId, token } = await invitedLink();
  const h = homeowner(token);
  const den = (await h.post('/rooms', { name: 'Den' })).body;
  const lamp = (await h.post(`/rooms/${den.id}/items`, { name: 'Floor lamp' })).body;
  await h.post(`/rooms/${den.id}/items`, { name: 'Armchair' });
  const jobId = derivedId('insured-rows', linkId, 1, den.id);
  await setFields(`INSUREDLINK#${linkId}`, `ITEM#${lamp.id}`, { round: 1, job_id: jobId });
  const now = Date.now();
  const handed = new Date(now - lease.handedAgoMs).toISOString();
  const link = insuredKeys.insuredLink(linkId);
  await setFields(link.pk, link.sk, {
    submit_round: 1,
    submit_started_at: handed,
    submit_summary: { photo_jobs: 0, photos: 0, media_jobs: 0, items: 2, pending_files: 0 },
    submit_attempts: 2,
    submit_handed_at: handed,
    submit_lease_until: new Date(now + lease.leftMs).toISOString(),
    activepk: 'INSUREDSUBMITS#OPEN',
    activesk: `${handed}#${linkId}`,
  });
  return { adjuster, claimId, linkId, h, jobId };
}

/** Every typed row of the link in round 1 and in the one job, the job holding each once; the link in the new shape. */
async function expectMadeOnce(t: Awaited<ReturnType<typeof legacyOpenRound>>, withinMs = 60_000) {
  await eventually(
    async () => Number((await getRow(`INSUREDLINK#${t.linkId}`, 'LINK'))?.submitted_round ?? 0) >= 1,
    withinMs,
  );
  const items = await listDraftItems(t.linkId);
  expect(items.map((i) => [i.round, i.job_id])).toEqual([
    [1, t.jobId],
    [1, t.jobId],
  ]);
  const names = ((await t.adjuster.get(`/api/inventory/${t.jobId}`)).body as any[]).map((i) => i.name);
  expect(names.sort()).toEqual(['Armchair', 'Floor lamp']);
  const link = await getRow(`INSUREDLINK#${t.linkId}`, 'LINK');
  for (const field of ['activepk', 'activesk', 'submit_lease_until', 'submit_attempts', 'submit_handed_at'])
    expect([field, link?.[field]]).toEqual([field, undefined]);
  expect((await t.h.get()).body.submit_processing).toBe(false);
}

it.concurrent('gives a round whose maker is gone its run, and a stage worker makes it', async () => {
  const t = await alone(async () => {
    const legacy = await legacyOpenRound({ leftMs: -5 * 60_000, handedAgoMs: 5 * 60_000 });
    expect((await migrateInsuredSubmitRounds()).resumed).toBeGreaterThanOrEqual(1);
    return legacy;
  });
  await expectMadeOnce(t);
  expect(await roundRow(t.linkId, 1)).toMatchObject({
    status: 'made',
    round: 1,
    recovery_attempts: 0,
    summary: { items: 2 },
  });
  // Run again: nothing of this link is opened twice.
  await alone(async () => {
    await migrateInsuredSubmitRounds();
  });
  expect(await roundRow(t.linkId, 1)).toMatchObject({ status: 'made', recovery_attempts: 0 });
});

it.concurrent('opens a round whose earlier maker held its lease under that lease; the watchdog restarts it once it runs out', async () => {
  const t = await alone(async () => {
    // Long enough for the migration to find it held on a loaded machine; the watchdog runs every 15 s.
    const legacy = await legacyOpenRound({ leftMs: 20_000, handedAgoMs: 2 * 60_000 });
    expect((await migrateInsuredSubmitRounds()).resumed).toBeGreaterThanOrEqual(1);
    return legacy;
  });
  expect(await roundRow(t.linkId, 1)).toMatchObject({
    status: 'making',
    stage_state: 'running',
    stage_runner: 'before-the-engine',
  });
  // Nobody but the stack's watchdog moves it on: the lease's 20 s, a watchdog period and the making.
  await expectMadeOnce(t, 90_000);
  expect(await roundRow(t.linkId, 1)).toMatchObject({ status: 'made', recovery_attempts: 1 });
});
