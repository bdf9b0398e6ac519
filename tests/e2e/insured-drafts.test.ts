/**
 * The homeowner's side of the link over HTTP, with no sign-in at all: rooms,
 * photos with notes through presigned POSTs, a video through the chunked
 * path, typed rows with photos, edits and removals, thumbnails and content,
 * submit; then the adjuster's side: the jobs waiting, grouping and
 * processing with the notes reaching the AI as source notes. Every ceiling
 * at its edge (the test service runs with small ones: tests/support/service-env.ts),
 * 415 and 422, rows of another link, bad tokens, the abandoned-upload sweep,
 * and the per-token rate limit spent from two processes at once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { settings } from '../../lib/config';
import { openLink } from '../../lib/insured/access-service';
import { showInsuredWizard } from '../../lib/insured/service';
import { Client, eventually, request } from '../support/api';
import { getRow, objectExists, setFields } from '../support/aws';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { makeVideo, newRoom, waitForDuration } from '../support/uploads';

const MIB = 1024 * 1024;
const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

async function invitedLink() {
  const adjuster = await Client.signIn(newTeamMember());
  const room = await newRoom(adjuster, 'Hall');
  const invited = await adjuster.post(`/api/claims/${room.claim_id}/insured-links`, {
    email: `home-${randomUUID().slice(0, 6)}@example.test`,
  });
  expect(invited.status).toBe(201);
  const token = (invited.body.url as string).split('/').pop() as string;
  return { adjuster, claimId: room.claim_id, linkId: invited.body.link.id as string, token };
}

/** A homeowner's browser: only the token, never a sign-in. */
function homeowner(token: string) {
  const base = `/api/public/insured/${token}`;
  return {
    get: (path = '') => request('GET', `${base}${path}`),
    post: (path: string, body?: unknown) => request('POST', `${base}${path}`, { body: body ?? {} }),
    patch: (path: string, body: unknown) => request('PATCH', `${base}${path}`, { body }),
    delete: (path: string) => request('DELETE', `${base}${path}`),
  };
}
type Homeowner = ReturnType<typeof homeowner>;

async function postForm(upload: { url: string; fields: Record<string, string> }, bytes: Buffer) {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)]), 'photo');
  return (await fetch(upload.url, { method: 'POST', body: form })).status;
}

const photo = (seed: number, width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: seed * 40, g: 90, b: 160 } } })
    .png()
    .toBuffer();

/** Issue, POST the bytes, confirm: the photo is ready. */
async function addPhoto(h: Homeowner, path: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const issued = await h.post(path, { filename: 'photo.png', content_type: 'image/png', size: bytes.length, ...extra });
  expect(issued.status).toBe(201);
  expect(await postForm(issued.body.upload, bytes)).toBe(204);
  const confirmed = await h.post(path, { file_id: issued.body.file.id });
  expect(confirmed.status).toBe(201);
  expect(confirmed.body.file.status).toBe('ready');
  return confirmed.body.file;
}

async function addVideo(h: Homeowner, roomId: string, bytes: Buffer) {
  const init = await h.post('/uploads/init', {
    kind: 'video',
    filename: 'walkthrough.mp4',
    room_id: roomId,
    total_size: bytes.length,
  });
  expect(init.status).toBe(201);
  const { upload_id: id, chunk_size: chunk, part_count: count } = init.body;
  const urls = await h.post(`/uploads/${id}/part-urls`, { parts: [...Array(count).keys()] });
  expect(urls.status).toBe(200);
  for (const { index, url, size } of urls.body.urls)
    expect(
      (await fetch(url, { method: 'PUT', body: bytes.subarray(index * chunk, index * chunk + size) })).status,
    ).toBe(200);
  const done = await h.post(`/uploads/${id}/complete`);
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ status: 'completed', file: { kind: 'video', status: 'ready' } });
  return done.body.file;
}

describe('the homeowner link, end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'insured-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds an inventory without signing in, submits it once, and the adjuster groups and processes it', async () => {
    const { adjuster, claimId, linkId, token } = await invitedLink();
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
      round: 1,
      photo_jobs: 1,
      photos: 3,
      media_jobs: 1,
      items: 1,
    });
    expect((await h.post('/submit')).body).toMatchObject({ nothing_new: true, round: 1 });
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

    // Grouping: the photos sharing a note are one group; the notes are the source notes.
    const staged = (await adjuster.get(`/api/jobs/${photoJob.id}/staged-photos`)).body as any[];
    expect(staged).toHaveLength(3);
    expect(staged[0].group_index).toBe(staged[1].group_index);
    expect(staged[2].group_index).not.toBe(staged[0].group_index);
    expect(staged.map((s) => s.source_description)).toEqual([note, `${note.toUpperCase()}`, 'Brass floor lamp']);

    await gateway.script(note, [{ items: [modelItem('Red sofa')] }]);
    const processed = await adjuster.post(`/api/jobs/${photoJob.id}/process`);
    expect(processed.status).toBe(200);
    await eventually(async () => {
      const job = (await adjuster.get(`/api/jobs/${photoJob.id}`)).body;
      return job.status === 'complete' ? job : null;
    }, 90_000);
    const [call] = await gateway.requests(note);
    expect(call.text).toContain(note);
  });
});

describe('homeowner submit, exactly once', () => {
  it('makes one set of jobs from two submits at once, and finishes a submit that died after marking its rows', async () => {
    const { adjuster, claimId, linkId, token } = await invitedLink();
    const h = homeowner(token);
    const porch = (await h.post('/rooms', { name: 'Porch' })).body;
    await addPhoto(h, `/rooms/${porch.id}/files`, await photo(7), { note: 'Swing' });
    await h.post(`/rooms/${porch.id}/items`, { name: 'Planter' });
    const both = await Promise.all([h.post('/submit'), h.post('/submit')]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(both.map((r) => r.body.nothing_new).sort()).toEqual([false, true]);
    const roomId = ((await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[]).find(
      (r) => r.name === 'Porch',
    ).id;
    expect((await adjuster.get(`/api/rooms/${roomId}/jobs`)).body).toHaveLength(2);

    // A second round that died after marking its rows (round 2 started, never finished): the next submit finishes it.
    const shed = (await h.post('/rooms', { name: 'Shed' })).body;
    const mower = (await h.post(`/rooms/${shed.id}/items`, { name: 'Mower' })).body;
    await setFields(`INSUREDLINK#${linkId}`, `ITEM#${mower.id}`, { round: 2 });
    await setFields(`INSUREDLINK#${linkId}`, 'LINK', { submit_round: 2 });
    const resumed = await h.post('/submit');
    expect(resumed.body).toMatchObject({ nothing_new: false, round: 2, items: 1 });
    expect((await h.post('/submit')).body).toMatchObject({ nothing_new: true, round: 2 });
    const shedId = ((await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[]).find(
      (r) => r.name === 'Shed',
    ).id;
    const [rowsJob] = (await adjuster.get(`/api/rooms/${shedId}/jobs`)).body;
    expect((await adjuster.get(`/api/inventory/${rowsJob.id}`)).body.map((i: any) => i.name)).toEqual(['Mower']);
  });
});

describe('homeowner link limits and refusals', () => {
  it('holds every ceiling at its edge: photo size, video size, file count, lifetime bytes and typed rows', async () => {
    const { token } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Den' })).body;
    const files = `/rooms/${room.id}/files`;
    const issue = (size: number, content_type = 'image/jpeg', filename = 'a.jpg') =>
      h.post(files, { filename, content_type, size });

    expect((await issue(MIB + 1)).status).toBe(413);
    expect((await issue(MIB)).status).toBe(201);
    const init = (total_size: number, filename = 'walk.mp4') =>
      h.post('/uploads/init', { kind: 'video', filename, room_id: room.id, total_size });
    expect((await init(8 * MIB + 1)).status).toBe(413);
    expect((await init(6 * MIB)).status).toBe(201);
    // 1 MiB + 6 MiB reserved; 5 MiB more reaches the 12 MiB lifetime ceiling exactly, one byte more passes it.
    expect((await init(5 * MIB + 1)).status).toBe(413);
    const last = await init(5 * MIB);
    expect(last.status).toBe(201);
    const full = await issue(1);
    expect(full.status).toBe(413);
    expect(full.body.detail).toMatch(/12 MB in all/);
    // Aborting gives the file's place back, never its bytes.
    expect((await h.delete(`/uploads/${last.body.upload_id}`)).body).toMatchObject({ status: 'aborted' });
    expect((await issue(1)).status).toBe(413);

    // Typed rows: four fit, the fifth does not; removing one makes room.
    const rows = [];
    for (let i = 0; i < 4; i++) rows.push((await h.post(`/rooms/${room.id}/items`, { name: `Row ${i}` })).body);
    expect((await h.post(`/rooms/${room.id}/items`, { name: 'Row 5' })).status).toBe(413);
    expect((await h.delete(`/items/${rows[0].id}`)).status).toBe(200);
    expect((await h.post(`/rooms/${room.id}/items`, { name: 'Row 5' })).status).toBe(201);
  });

  it('counts files up to INSURED_LINK_MAX_FILES, removal giving a place back', async () => {
    const { token } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Attic' })).body;
    const issued = [];
    for (let i = 0; i < 8; i++)
      issued.push(await h.post(`/rooms/${room.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 10 }));
    expect(issued.map((r) => r.status)).toEqual(Array(8).fill(201));
    const ninth = await h.post(`/rooms/${room.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 10 });
    expect(ninth.status).toBe(413);
    expect(ninth.body.detail).toMatch(/limit of 8 files/);
    expect((await h.delete(`/files/${issued[0].body.file.id}`)).status).toBe(200);
    expect(
      (await h.post(`/rooms/${room.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 10 })).status,
    ).toBe(201);
  });

  it('answers 415 for what is not a photo, video or voice note, and 422 for bad fields, writing nothing', async () => {
    const { token, linkId } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Study' })).body;
    const files = `/rooms/${room.id}/files`;
    expect((await h.post(files, { filename: 'list.pdf', content_type: 'application/pdf', size: 10 })).status).toBe(415);
    expect((await h.post(files, { filename: 'clip.mp4', content_type: 'video/mp4', size: 10 })).status).toBe(415);
    const init = await h.post('/uploads/init', {
      kind: 'audio',
      filename: 'notes.txt',
      room_id: room.id,
      total_size: 10,
    });
    expect(init.status).toBe(415);
    // Declared as a photo, but its bytes are text: refused at confirm, and removed.
    const text = Buffer.from('not a photo at all');
    const issued = await h.post(files, { filename: 'x.png', content_type: 'image/png', size: text.length });
    expect(await postForm(issued.body.upload, text)).toBe(204);
    const confirmed = await h.post(files, { file_id: issued.body.file.id });
    expect(confirmed.status).toBe(415);
    expect(await getRow(`INSUREDLINK#${linkId}`, `FILE#${issued.body.file.id}`)).toBeNull();
    // Not arrived yet: 409.
    const early = await h.post(files, { filename: 'y.png', content_type: 'image/png', size: 10 });
    expect((await h.post(files, { file_id: early.body.file.id })).status).toBe(409);

    const items = `/rooms/${room.id}/items`;
    expect((await h.post(items, { name: '' })).status).toBe(422);
    expect((await h.post(items, { name: 'Chair', quantity: 0 })).status).toBe(422);
    expect((await h.post(items, { name: 'Chair', colour: 'red' })).status).toBe(422);
    expect((await h.post(files, { filename: 'a.png', content_type: 'image/png', size: -1 })).status).toBe(422);
    const chair = (await h.post(items, { name: 'Chair' })).body;
    expect((await h.patch(`/items/${chair.id}`, {})).status).toBe(422);
    expect((await h.get()).body.rooms[0].items).toHaveLength(1);
  });

  it('answers 404 for rows of another link, bad tokens, revoked and rotated links', async () => {
    const a = await invitedLink();
    const b = await invitedLink();
    const ha = homeowner(a.token);
    const hb = homeowner(b.token);
    const roomA = (await ha.post('/rooms', { name: 'Porch' })).body;
    const itemA = (await ha.post(`/rooms/${roomA.id}/items`, { name: 'Bench' })).body;
    const fileA = (await ha.post(`/rooms/${roomA.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 9 }))
      .body.file;
    expect((await hb.patch(`/items/${itemA.id}`, { name: 'Stolen' })).status).toBe(404);
    expect((await hb.delete(`/items/${itemA.id}`)).status).toBe(404);
    expect((await hb.delete(`/files/${fileA.id}`)).status).toBe(404);
    expect((await hb.get(`/files/${fileA.id}/content`)).status).toBe(404);
    expect((await hb.post(`/rooms/${roomA.id}/items`, { name: 'Bench' })).status).toBe(404);
    expect((await hb.post(`/items/${itemA.id}/photos`, { file_id: fileA.id })).status).toBe(404);

    const rotated = await a.adjuster.post(`/api/insured-links/${a.linkId}/resend`);
    const old = await ha.post(`/rooms/${roomA.id}/items`, { name: 'Late' });
    expect(old.status).toBe(404);
    const fresh = homeowner((rotated.body.url as string).split('/').pop() as string);
    expect((await fresh.get()).body.rooms[0].items).toHaveLength(1);
    await b.adjuster.post(`/api/insured-links/${b.linkId}/revoke`);
    for (const res of [
      await hb.get(),
      await hb.post('/submit'),
      await hb.post('/uploads/init', { kind: 'video', filename: 'a.mp4', room_id: roomA.id, total_size: 9 }),
    ])
      expect([res.status, res.body.detail]).toEqual([404, 'Link not found']);
    expect((await homeowner('A'.repeat(43)).post('/submit')).status).toBe(404);
  });

  it('ends uploads left open for over a day when another starts', async () => {
    const { token, linkId } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Loft' })).body;
    const init = () =>
      h.post('/uploads/init', { kind: 'audio', filename: 'note.m4a', room_id: room.id, total_size: 100 });
    const stale = (await init()).body.upload_id;
    await setFields(`INSUREDLINK#${linkId}`, `FILE#${stale}`, {
      created_at: new Date(Date.now() - 25 * 3600_000).toISOString(),
    });
    expect((await init()).status).toBe(201);
    expect((await h.get(`/uploads/${stale}`)).body).toMatchObject({ status: 'expired' });
    expect((await h.post(`/uploads/${stale}/part-urls`, { parts: [0] })).status).toBe(409);
  });
});

describe('homeowner link rate limits', () => {
  /** Waits out the last seconds of a minute, so a burst lands in one window. */
  async function startOfWindow() {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
  }

  it('spends one per-token budget across two service processes: 429 with Retry-After past it', async () => {
    const { token } = await invitedLink();
    const config = { ...settings(), INSURED_RATE_LIMIT_READS_PER_MINUTE: 30 };
    await startOfWindow();
    // The local service's process (over HTTP) and this test's process (the same service code in-process).
    const overHttp = Array.from({ length: 20 }, () => request('GET', `/api/public/insured/${token}`));
    const inProcess = Array.from({ length: 20 }, () =>
      showInsuredWizard(token, { config }).then(
        () => 200,
        (err: { retryAfterSeconds?: number }) => (err.retryAfterSeconds ? 429 : 500),
      ),
    );
    const http = await Promise.all(overHttp);
    const local = await Promise.all(inProcess);
    const statuses = [...http.map((r) => r.status), ...local];
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const limited = http.find((r) => r.status === 429);
    if (limited) {
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.body.detail).toMatch(/Too many requests/);
    }
  });

  it('limits bad tokens per client IP: 404 until the budget is spent, then 429', async () => {
    const config = { ...settings(), INSURED_RATE_LIMIT_UNKNOWN_TOKEN_PER_MINUTE: 3 };
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID().slice(0, 4)}`;
    await startOfWindow();
    const outcomes = [];
    for (let i = 0; i < 5; i++)
      outcomes.push(
        await openLink(randomUUID(), 'read', { ip, config }).then(
          () => 'open',
          (err: Error) => err.name,
        ),
      );
    expect(outcomes).toEqual([
      'NotFoundError',
      'NotFoundError',
      'NotFoundError',
      'RateLimitedError',
      'RateLimitedError',
    ]);
  });
});
