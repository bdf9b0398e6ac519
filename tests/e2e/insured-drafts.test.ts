/**
 * The homeowner's side of the link over HTTP, with no sign-in at all: rooms,
 * photos with notes through presigned POSTs, a video through the chunked
 * path, typed rows with photos, edits and removals, thumbnails and content,
 * submit; then the adjuster's side: the jobs waiting, grouping and
 * processing with the notes reaching the AI as source notes. Every ceiling
 * at its edge (the test service runs with small ones: tests/support/service-env.ts),
 * 415 and 422, rows of another link, bad tokens, the abandoned-upload sweep,
 * (tests/e2e/insured-limits.test.ts has the ceilings, refusals and rate limits).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { eventually } from '../support/api';
import { getRow, objectExists, setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import {
  addPhoto,
  addVideo,
  homeowner,
  invitedLink,
  photo,
  roundRow,
  seedTypedRows,
  startAbandonedRound,
} from '../support/insured';
import { INLINE_ROUND_ROWS } from '../../lib/insured/submit-service';
import { makeVideo, waitForDuration } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

describe('the homeowner link, end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'insured-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds an inventory without signing in, submits it once, and the adjuster groups and processes it', async () => {
    const { adjuster, teamId, claimId, linkId, token } = await invitedLink();
    const h = homeowner(token);
    expect((await h.post('/identify', { name: 'Pat Home' })).status).toBe(200);
    const kitchen = (await h.post('/rooms', { name: 'Kitchen' })).body;
    expect((await h.post('/rooms', { name: 'kitchen' })).body).toMatchObject({ id: kitchen.id, created: false });
    const garage = (await h.post('/rooms', { name: 'Garage' })).body;

    const note = `Red sofa ${randomUUID().slice(0, 6)}`;
    const sofa1 = await addPhoto(h, `/rooms/${kitchen.id}/files`, await photo(1, 1000, 800), { note });
    await addPhoto(h, `/rooms/${kitchen.id}/files`, await photo(2), { note: `  ${note.toUpperCase()} ` });
    const lamp = await addPhoto(h, `/rooms/${kitchen.id}/files`, await photo(3), { note: 'lamp' });
    const gone = await addPhoto(h, `/rooms/${kitchen.id}/files`, await photo(4));

    // The 640 px thumbnail, made once; the full-size content; both 302 to the bucket.
    const thumb = await h.get(`/files/${sofa1.id}/thumb`);
    expect(thumb.status).toBe(302);
    const thumbBytes = Buffer.from(await (await fetch(thumb.headers.get('location') as string)).arrayBuffer());
    expect(await sharp(thumbBytes).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 512 });
    expect((await getRow(`INSUREDLINK#${linkId}`, `FILE#${sofa1.id}`))?.thumb_key).toEqual(expect.any(String));
    expect((await h.get(`/files/${sofa1.id}/thumb`)).status).toBe(302);
    const content = await h.get(`/files/${lamp.id}/content`);
    expect(content.status).toBe(302);
    expect(Buffer.from(await (await fetch(content.headers.get('location') as string)).arrayBuffer())).toEqual(
      await photo(3),
    );

    // Note edit; removal takes the bytes but not the reserved size.
    expect((await h.patch(`/files/${lamp.id}`, { note: 'Brass floor lamp' })).body.note).toBe('Brass floor lamp');
    const before = (await h.get()).body.usage;
    const goneKey = (await getRow(`INSUREDLINK#${linkId}`, `FILE#${gone.id}`))!.key as string;
    expect(await objectExists(goneKey)).toBe(true);
    expect((await h.delete(`/files/${gone.id}`)).status).toBe(200);
    expect(await objectExists(goneKey)).toBe(false);
    const after = (await h.get()).body.usage;
    expect(after).toMatchObject({ bytes_used: before.bytes_used, files: before.files - 1 });

    // A walkthrough through the chunked path (two 5 MiB-or-less parts are enough); no thumbnail for video.
    const video = await addVideo(h, garage.id, makeVideo(join(dir, 'walk.mp4'), 3));
    expect((await h.get(`/files/${video.id}/thumb`)).status).toBe(404);

    // Typed rows: PATCH writes only what is sent; DELETE takes the row's photos from the bucket.
    const bike = (await h.post(`/rooms/${garage.id}/items`, { name: 'Bicycle', brand: 'Trek', estimated_price: 900 }))
      .body;
    expect((await h.patch(`/items/${bike.id}`, { quantity: 2 })).body).toMatchObject({
      name: 'Bicycle',
      brand: 'Trek',
      quantity: 2,
      estimated_price: 900,
    });
    await addPhoto(h, `/items/${bike.id}/photos`, await photo(5));
    const drill = (await h.post(`/rooms/${garage.id}/items`, { name: 'Drill' })).body;
    const drillPhoto = await addPhoto(h, `/items/${drill.id}/photos`, await photo(6));
    const drillKey = (await getRow(`INSUREDLINK#${linkId}`, `FILE#${drillPhoto.id}`))!.key as string;
    expect(await objectExists(drillKey)).toBe(true);
    expect((await h.delete(`/items/${drill.id}`)).body).toMatchObject({ deleted: true, photos_deleted: 1 });
    expect(await objectExists(drillKey)).toBe(false);

    const state = (await h.get()).body;
    expect(state.rooms.map((r: any) => [r.name, r.files.length, r.items.length])).toEqual([
      ['Kitchen', 3, 0],
      ['Garage', 1, 1],
    ]);
    expect(state.rooms[1].items[0].photos).toHaveLength(1);

    // Submit: nothing charged, no AI; twice never duplicates.
    const submitted = await h.post('/submit');
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({
      nothing_new: false,
      processing: false,
      round: 1,
      photo_jobs: 1,
      photos: 3,
      media_jobs: 1,
      items: 1,
    });
    expect((await h.post('/submit')).body).toMatchObject({ nothing_new: true, round: 1 });
    // The homeowner spent nothing: credits go at the adjuster's confirm.
    expect(await fakeBilling.balance(teamId)).toBe(100);
    const [listed] = (await adjuster.get(`/api/claims/${claimId}/insured-links`)).body.links;
    expect(listed).toMatchObject({ insured_name: 'Pat Home', progress: { files: 5, items: 1, submits: 1 } });
    expect(listed.submitted_at).toEqual(submitted.body.submitted_at);
    expect((await h.patch(`/files/${lamp.id}`, { note: 'x' })).status).toBe(409);
    expect((await h.delete(`/items/${bike.id}`)).status).toBe(409);

    // The adjuster: Kitchen and Garage joined the claim; each holds its jobs.
    const rooms = (await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[];
    const roomNamed = (name: string) => rooms.find((r) => r.name === name);
    const jobsOf = async (name: string) => (await adjuster.get(`/api/rooms/${roomNamed(name).id}/jobs`)).body as any[];
    const [photoJob] = await jobsOf('Kitchen');
    expect(photoJob).toMatchObject({ source_type: 'photo', status: 'awaiting_grouping' });
    const garageJobs = await jobsOf('Garage');
    expect(garageJobs).toHaveLength(2);
    const videoJob = garageJobs.find((j) => j.source_type === 'video');
    expect(videoJob.status).toBe('awaiting_confirmation');
    expect((await waitForDuration(videoJob.id)).duration).toBeGreaterThan(2);
    const rowsJob = garageJobs.find((j) => j.source_type === 'photo');
    expect(rowsJob).toMatchObject({ status: 'complete' });
    const [bicycle] = (await adjuster.get(`/api/inventory/${rowsJob.id}`)).body;
    expect(bicycle).toMatchObject({ name: 'Bicycle', quantity: 2, brand: 'Trek', estimated_price: 900 });
    expect(bicycle.photos).toHaveLength(1);
    expect(await getRow(`JOB#${rowsJob.id}`, 'JOB')).toMatchObject({ billed_cost_usd: 0, billing_charged: false });
    // Each draft row was marked with its round and the job it went to.
    expect(await getRow(`INSUREDLINK#${linkId}`, `ITEM#${bike.id}`)).toMatchObject({ round: 1, job_id: rowsJob.id });
    expect(await getRow(`INSUREDLINK#${linkId}`, `FILE#${sofa1.id}`)).toMatchObject({ round: 1, job_id: photoJob.id });
    expect(await getRow(`INSUREDLINK#${linkId}`, `FILE#${video.id}`)).toMatchObject({ round: 1, job_id: videoJob.id });

    // Grouping: the photos sharing a note are one group; the notes are the source notes.
    const staged = (await adjuster.get(`/api/jobs/${photoJob.id}/staged-photos`)).body as any[];
    expect(staged).toHaveLength(3);
    expect(staged[0].group_index).toBe(staged[1].group_index);
    expect(staged[2].group_index).not.toBe(staged[0].group_index);
    expect(staged.map((s) => s.source_description)).toEqual([note, `${note.toUpperCase()}`, 'Brass floor lamp']);

    // The submit copied nothing: each job photo's original is the homeowner's file where it was put. The re-encode
    // writes the job's own JPEG from it and leaves the file to the link; the photo is served before and after.
    const photoRows = await Promise.all(
      staged.map((s) => getRow(`JOB#${photoJob.id}`, `PHOTO#${String(s.index).padStart(6, '0')}`)),
    );
    const kitchenKeys = await Promise.all(
      [sofa1, lamp].map(async (f) => (await getRow(`INSUREDLINK#${linkId}`, `FILE#${f.id}`))!.key as string),
    );
    for (const row of photoRows) {
      expect(row).toMatchObject({ original_kept: true, incoming_key: expect.stringContaining(`/insured/${linkId}/`) });
    }
    expect(photoRows.map((r) => r!.incoming_key)).toEqual(expect.arrayContaining(kitchenKeys));
    expect((await adjuster.get(staged[0].url)).status).toBe(302);
    await eventually(async () => {
      const now = (await adjuster.get(`/api/jobs/${photoJob.id}/staged-photos`)).body as any[];
      return now.every((s) => s.normalized);
    }, 30_000);
    for (const row of photoRows) {
      expect(await objectExists(row!.incoming_key as string)).toBe(true);
      expect(await objectExists(row!.key as string)).toBe(true);
    }
    const served = await adjuster.get(staged[0].url);
    expect(served.status).toBe(302);
    expect(served.headers.get('location')).toContain(String(photoRows[0]!.key).split('/').pop());

    await gateway.script(note, [{ items: [modelItem('Red sofa')] }]);
    const processed = await adjuster.post(`/api/jobs/${photoJob.id}/process`);
    expect(processed.status).toBe(200);
    await eventually(async () => {
      const job = (await adjuster.get(`/api/jobs/${photoJob.id}`)).body;
      return job.status === 'complete' ? job : null;
    }, 90_000);
    const [call] = await gateway.requests(note);
    expect(call.text).toContain(note);
    // The adjuster's confirm charged the claim's team.
    expect(await fakeBilling.balance(teamId)).toBeLessThan(100);
  });
});

/** Waits until the link records submit `round` made (the worker's part is over). */
const roundMade = (linkId: string, round: number) =>
  eventually(async () => ((await getRow(`INSUREDLINK#${linkId}`, 'LINK'))?.submitted_round ?? 0) >= round, 60_000);

// Each case waits for a tick of the stack's watchdog: they run side by side.
describe('homeowner submit, exactly once', () => {
  it.concurrent('makes one set of jobs from two submits at once, and finishes a submit that died after marking its rows', async () => {
    const { adjuster, claimId, linkId, token } = await invitedLink();
    const h = homeowner(token);
    const porch = (await h.post('/rooms', { name: 'Porch' })).body;
    await addPhoto(h, `/rooms/${porch.id}/files`, await photo(7), { note: 'Swing' });
    await h.post(`/rooms/${porch.id}/items`, { name: 'Planter' });
    const both = await Promise.all([h.post('/submit'), h.post('/submit')]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    // One made the round; the other answered that round (still being made) or found nothing new (already made).
    const [first, second] = [...both].sort(
      (a, b) => Number(a.body.nothing_new || a.body.processing) - Number(b.body.nothing_new || b.body.processing),
    );
    expect(first.body).toMatchObject({ round: 1, nothing_new: false, processing: false, photos: 1, items: 1 });
    expect(second.body.round).toBe(1);
    expect(second.body.nothing_new || second.body.processing).toBe(true);
    const roomId = ((await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[]).find(
      (r) => r.name === 'Porch',
    ).id;
    expect((await adjuster.get(`/api/rooms/${roomId}/jobs`)).body).toHaveLength(2);

    // Round 2 started, one of its rows marked, and the request died: the next submit answers that round, and the
    // watchdog (its own schedule) finds the dead request's lease run out and restarts the round on a stage worker,
    // which makes it; the row typed meanwhile goes with it (it was ready when the round was made).
    const shed = (await h.post('/rooms', { name: 'Shed' })).body;
    const mower = (await h.post(`/rooms/${shed.id}/items`, { name: 'Mower' })).body;
    const summary = { photo_jobs: 0, photos: 0, media_jobs: 0, items: 1, pending_files: 0 };
    expect(await startAbandonedRound(linkId, 1, summary, 'request died')).toBeTruthy();
    await setFields(`INSUREDLINK#${linkId}`, `ITEM#${mower.id}`, { round: 2 });
    await h.post(`/rooms/${shed.id}/items`, { name: 'Rake' });
    // Both sides see the round still being handed over.
    expect((await h.get()).body.submit_processing).toBe(true);
    const listedLinks = async () => (await adjuster.get(`/api/claims/${claimId}/insured-links`)).body.links;
    expect((await listedLinks())[0].submit_processing).toBe(true);
    const resumed = await h.post('/submit');
    expect(resumed.body).toMatchObject({ nothing_new: false, processing: true, round: 2, items: 1 });
    await roundMade(linkId, 2);
    expect(await roundRow(linkId, 2)).toMatchObject({ status: 'made', recovery_attempts: 1 });
    expect((await h.get()).body.submit_processing).toBe(false);
    expect((await listedLinks())[0]).toMatchObject({ submit_processing: false, progress: { submits: 2 } });
    expect((await h.post('/submit')).body).toMatchObject({ nothing_new: true, round: 2 });
    const shedId = ((await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[]).find(
      (r) => r.name === 'Shed',
    ).id;
    const [rowsJob] = (await adjuster.get(`/api/rooms/${shedId}/jobs`)).body;
    const names = (await adjuster.get(`/api/inventory/${rowsJob.id}`)).body.map((i: any) => i.name);
    expect(names.sort()).toEqual(['Mower', 'Rake']);
  });

  it.concurrent('hands a round larger than the request can make to a stage worker, and the watchdog resends a lost one', async () => {
    const { adjuster, claimId, linkId, token } = await invitedLink();
    const h = homeowner(token);
    const attic = (await h.post('/rooms', { name: 'Attic' })).body;
    const rows = INLINE_ROUND_ROWS + 20;
    await seedTypedRows(linkId, attic.id, rows);

    const submitted = await h.post('/submit');
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ nothing_new: false, processing: true, round: 1, items: rows });
    // A submit while the worker makes it answers the same round, or (once made) nothing new: never a second round.
    const again = await h.post('/submit');
    expect(again.body.round).toBe(1);
    const atticJobs = async () => {
      const rooms = (await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[];
      const room = rooms.find((r) => r.name === 'Attic');
      return room ? ((await adjuster.get(`/api/rooms/${room.id}/jobs`)).body as any[]) : [];
    };
    const [rowsJob] = await eventually(async () => {
      const jobs = await atticJobs();
      return jobs.length ? jobs : null;
    }, 60_000);
    expect(rowsJob).toMatchObject({ source_type: 'photo', status: 'complete' });
    expect((await adjuster.get(`/api/inventory/${rowsJob.id}`)).body).toHaveLength(rows);
    await roundMade(linkId, 1);
    expect((await h.post('/submit')).body).toMatchObject({ nothing_new: true, round: 1 });

    expect(await roundRow(linkId, 1)).toMatchObject({ status: 'made', recovery_attempts: 0 });

    // A round whose submit died right after starting it (nothing marked, its stage's message never sent), and
    // nobody submits again: the watchdog (its own schedule) sends the stage again, and a worker makes it.
    await seedTypedRows(linkId, attic.id, 3);
    const summary = { photo_jobs: 0, photos: 0, media_jobs: 0, items: 3, pending_files: 0 };
    expect(await startAbandonedRound(linkId, 1, summary, 'message lost')).toBeTruthy();
    await roundMade(linkId, 2);
    expect(await atticJobs()).toHaveLength(2);
    expect(await roundRow(linkId, 2)).toMatchObject({ status: 'made', recovery_attempts: 0 });
    expect((await roundRow(linkId, 2))?.activepk).toBeUndefined();
  });
});
