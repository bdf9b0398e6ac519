/**
 * Claim-level contents-list imports end to end over HTTP on the local
 * service: POST /api/claims/{id}/import-contents-list answers an ImportBatch
 * with one presigned POST per PDF, the browser POSTs them and confirms the
 * batch, the workers read them (the same PDF import pipeline a room-level
 * upload uses), split the photos by room and create one awaiting_grouping
 * photo job per room; GET /api/integrations/imports/{batch_id} follows it,
 * and a retry reads only the failed files again. Each test's documents carry
 * lines of their own, so layouts other tests taught (templates are global)
 * never match theirs.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually, jobInStatus } from '../support/api';
import { getRow, listKeys } from '../support/aws';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { badPdfs, CARD_GRID_ROOMS, cardGridList, CARD_GRID_RECIPE, layoutTag } from '../support/pdf-fixtures';
import { newTeamMember } from '../support/tokens';
import { newRoom, postDocument, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

let alice: Client;
let mallory: Client;
let bad: Awaited<ReturnType<typeof badPdfs>>;

beforeAll(async () => {
  bad = await badPdfs();
  const member = newTeamMember();
  alice = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 1000);
  mallory = await Client.signIn(newTeamMember());
});

const RECIPE = { ...CARD_GRID_RECIPE, room_pattern: '^Room: (.+)$' };

const layout = (tag: string) => ({
  header: `Pack-out ${tag} - Contents inventory`,
  footerLines: [`Pack-out ${tag} - 9 Depot Road`, `Report ${tag} prepared for the adjuster`],
});

const recipeMatch = (filename: string) => `Sample pages of the contents list "${filename}"`;

interface Started {
  batch: any;
  slots: any[];
}

async function startImport(claimId: string, files: { filename: string; bytes: Uint8Array }[]): Promise<Started> {
  const res = await alice.post(`/api/claims/${claimId}/import-contents-list`, {
    files: files.map((f) => ({ filename: f.filename, size: f.bytes.length })),
  });
  expect(res.status).toBe(201);
  const { uploads, ...batch } = res.body;
  return { batch, slots: uploads };
}

const ended = (batchId: string) =>
  eventually(
    async () => {
      const res = await alice.get(`/api/integrations/imports/${batchId}`);
      expect(res.status).toBe(200);
      return ['complete', 'partial', 'failed'].includes(res.body.status) ? res.body : null;
    },
    90_000,
    300,
  );

async function stagedPhotos(jobId: string): Promise<any[]> {
  const res = await alice.get(`/api/jobs/${jobId}/staged-photos`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('a claim import of a list with rooms and a damaged file', () => {
  const tag = layoutTag();
  const goodName = `rooms-${tag}.pdf`;
  let room: TestRoom;
  let fixture: Awaited<ReturnType<typeof cardGridList>>;
  let started: Started;
  let batch: any;

  beforeAll(async () => {
    // The claim has a kitchen already, spelled in lower case: the list's "Kitchen" is matched to it.
    room = await newRoom(alice, 'kitchen');
    fixture = await cardGridList({ pages: 8, photosPerPage: 3, rooms: true, ...layout(tag) });
    await gateway.script(recipeMatch(goodName), [{ items: [], content: RECIPE }]);
    started = await startImport(room.claim_id, [
      { filename: goodName, bytes: fixture.bytes },
      { filename: `damaged-${tag}.pdf`, bytes: bad.truncated.bytes },
    ]);
    expect(started.batch).toMatchObject({ status: 'awaiting_upload', total: 2, imported: 0, runs: 1, jobs: [] });
    expect(started.slots.map((s) => s.document)).toEqual([0, 1]);
    expect((await postDocument(started.slots[0], Buffer.from(fixture.bytes))).status).toBe(204);
    expect((await postDocument(started.slots[1], Buffer.from(bad.truncated.bytes))).status).toBe(204);
    const confirmed = await alice.post(`/api/integrations/imports/${started.batch.id}/confirm`, {});
    expect(confirmed.status).toBe(200);
    expect(['importing', 'partial']).toContain(confirmed.body.status);
    batch = await ended(started.batch.id);
  }, 120_000);

  it('ends partial with its counters: one file imported, one failed', () => {
    expect(batch).toMatchObject({
      status: 'partial',
      total: 2,
      imported: 1,
      skipped: 0,
      failed: 1,
      connection_id: null,
    });
    expect(batch.documents).toEqual([
      expect.objectContaining({ document: 0, state: 'imported', pages: 8, photos: fixture.expected.photos.length }),
      expect.objectContaining({ document: 1, state: 'failed', message: expect.stringMatching(/damaged|read/i) }),
    ]);
    expect(batch.finished_at).not.toBeNull();
  });

  it('makes one awaiting_grouping photo job per room, matching an existing room whatever its case', async () => {
    expect(batch.jobs.map((j: any) => j.room_name)).toEqual(['kitchen', ...CARD_GRID_ROOMS.slice(1)]);
    expect(batch.jobs[0]).toMatchObject({ room_id: room.id, room_created: false });
    expect(batch.jobs.slice(1).every((j: any) => j.room_created)).toBe(true);
    expect(batch.job_ids).toEqual(batch.jobs.map((j: any) => j.job_id));
    const rooms = await alice.get(`/api/claims/${room.claim_id}/rooms`);
    const names = (rooms.body.rooms ?? rooms.body).map((r: any) => r.name).sort();
    expect(names).toEqual(['kitchen', ...CARD_GRID_ROOMS.slice(1)].sort());
    for (const entry of batch.jobs) {
      const job = await alice.get(`/api/jobs/${entry.job_id}`);
      expect(job.body).toMatchObject({
        status: 'awaiting_grouping',
        room_id: entry.room_id,
        import_batch_id: batch.id,
      });
    }
  });

  it("gives each room job its room's photos, grouped as the list files them, with their source fields", async () => {
    for (const [i, entry] of batch.jobs.entries()) {
      const printed = CARD_GRID_ROOMS[i];
      const groups = fixture.expected.groups.filter((g) => g.room === printed);
      const photos = (await stagedPhotos(entry.job_id)).sort((a, b) => a.index - b.index);
      expect(photos).toHaveLength(groups.reduce((n, g) => n + g.photos.length, 0));
      expect(entry.photos).toBe(photos.length);
      expect(photos.map((p) => p.filename)).toEqual(photos.map((_, n) => `pdf_${String(n).padStart(4, '0')}.jpg`));
      expect(photos.every((p) => p.source_room === printed)).toBe(true);
      expect(new Set(photos.map((p) => p.group_index)).size).toBeGreaterThanOrEqual(groups.length);
      // Each photo's group is numbered by its first photo, so no group number is another photo's own.
      for (const p of photos) expect(photos[p.group_index].group_index).toBe(p.group_index);
      const served = await fetch(`${process.env.TEST_SERVICE_URL}${photos[0].url}`);
      expect(served.status).toBe(200);
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(fixture.expected.photos.some((f) => f.jpeg.equals(bytes))).toBe(true);
    }
  });

  it("keeps the reader out of the team's and rooms' job lists; its log tells the read", async () => {
    const reader = await alice.get(`/api/jobs/${batch.read_job_id}`);
    expect(reader.body).toMatchObject({ status: 'complete', room_id: null, import_batch_id: batch.id });
    const listed = await alice.get('/api/jobs');
    expect(listed.body.map((j: any) => j.id)).not.toContain(batch.read_job_id);
    const log = await alice.get(`/api/jobs/${batch.read_job_id}/logs`);
    expect(JSON.stringify(log.body)).toContain('(new room)');
    // The reader's own copies of the photos are gone once handed on.
    expect(await getRow(`JOB#${batch.read_job_id}`, 'PHOTO#000000')).toBeNull();
  });

  it('retries only the failed file, and another team gets 404 everywhere', async () => {
    expect((await mallory.get(`/api/integrations/imports/${batch.id}`)).status).toBe(404);
    expect((await mallory.post(`/api/integrations/imports/${batch.id}/retry`, {})).status).toBe(404);
    expect((await mallory.post(`/api/integrations/imports/${batch.id}/confirm`, {})).status).toBe(404);
    expect(
      (
        await mallory.post(`/api/claims/${room.claim_id}/import-contents-list`, {
          files: [{ filename: 'x.pdf', size: 10 }],
        })
      ).status,
    ).toBe(404);
    expect((await mallory.get(`/api/jobs/${batch.read_job_id}`)).status).toBe(404);

    const retried = await alice.post(`/api/integrations/imports/${batch.id}/retry`, {});
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'importing', runs: 2, failed: 0, imported: 1 });
    expect(retried.body.read_job_id).not.toBe(batch.read_job_id);
    const again = await ended(batch.id);
    expect(again).toMatchObject({ status: 'partial', imported: 1, failed: 1, runs: 2 });
    // The good file was not read again: no new room jobs.
    expect(again.jobs).toEqual(batch.jobs);
    expect((await alice.post(`/api/integrations/imports/${batch.id}/confirm`, {})).status).toBe(409);
  }, 120_000);

  it('processes a room job like any photo job: one AI call per group, one item each', async () => {
    await gateway.script(`${goodName}, page`, [{ items: [modelItem('Listed thing', 0.9)] }]);
    const garage = batch.jobs.at(-1);
    const groups = new Set((await stagedPhotos(garage.job_id)).map((p) => p.group_index)).size;
    expect((await alice.post(`/api/jobs/${garage.job_id}/process`)).status).toBe(200);
    const done = await jobInStatus(alice, garage.job_id);
    expect(done).toMatchObject({ status: 'complete', items_found: groups, photo_request_count: groups });
    const items = await alice.get(`/api/inventory/${garage.job_id}`);
    expect(items.body).toHaveLength(groups);
  }, 120_000);

  it('goes with its claim: the batch, its readers, the room jobs and every file', async () => {
    const admin = await Client.signIn(newTeamMember({ user_id: Number(TEST_ADMIN_EXTERNAL_IDS[0]) }));
    const latest = (await alice.get(`/api/integrations/imports/${batch.id}`)).body;
    expect((await admin.delete(`/api/claims/${room.claim_id}`)).status).toBe(200);
    const prefix = `teams/${room.team_id}/claims/${room.claim_id}/`;
    await eventually(async () => (await getRow(`IMPORT#${batch.id}`, 'IMPORT')) === null, 30_000);
    await eventually(async () => (await listKeys(prefix)).length === 0, 30_000);
    for (const id of [batch.read_job_id, latest.read_job_id, ...batch.job_ids])
      expect(await getRow(`JOB#${id}`, 'JOB')).toBeNull();
    expect((await alice.get(`/api/integrations/imports/${batch.id}`)).status).toBe(404);
  });
});

describe('a claim import of a list without rooms', () => {
  it('puts its photos in a room named after the file; a file that never arrived is skipped and the rest completes', async () => {
    const tag = layoutTag();
    const name = `Garage_list_${tag}.pdf`;
    const room = await newRoom(alice, 'Office');
    const fixture = await cardGridList({ pages: 2, photosPerPage: 3, ...layout(tag) });
    await gateway.script(recipeMatch(name), [{ items: [], content: { ...RECIPE, room_pattern: null } }]);
    const started = await startImport(room.claim_id, [
      { filename: name, bytes: fixture.bytes },
      { filename: `never-sent-${tag}.pdf`, bytes: fixture.bytes },
    ]);
    expect((await postDocument(started.slots[0], Buffer.from(fixture.bytes))).status).toBe(204);
    // An unknown file number is refused before anything is recorded.
    const unknown = await alice.post(`/api/integrations/imports/${started.batch.id}/confirm`, { documents: [0, 7] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/Unknown contents list number 7/);
    expect((await alice.post(`/api/integrations/imports/${started.batch.id}/confirm`, { documents: [0] })).status).toBe(
      200,
    );
    const waiting = await alice.get(`/api/integrations/imports/${started.batch.id}`);
    expect(waiting.body).toMatchObject({ status: 'awaiting_upload' });
    expect(waiting.body.documents.map((d: any) => d.state)).toEqual(['queued', 'awaiting_upload']);
    expect((await alice.post(`/api/integrations/imports/${started.batch.id}/confirm`, { documents: [1] })).status).toBe(
      200,
    );
    const batch = await ended(started.batch.id);
    expect(batch).toMatchObject({ status: 'complete', total: 2, imported: 1, skipped: 1, failed: 0 });
    expect(batch.jobs).toEqual([
      expect.objectContaining({
        room_name: `Garage list ${tag}`,
        room_created: true,
        photos: fixture.expected.photos.length,
      }),
    ]);
    const retry = await alice.post(`/api/integrations/imports/${batch.id}/retry`, {});
    expect(retry.status).toBe(409);
  }, 120_000);

  it('fails when no file could be read, and a retry reads the failed file again', async () => {
    const room = await newRoom(alice, 'Attic');
    const started = await startImport(room.claim_id, [{ filename: 'locked.pdf', bytes: bad.encrypted.bytes }]);
    expect((await postDocument(started.slots[0], Buffer.from(bad.encrypted.bytes))).status).toBe(204);
    await alice.post(`/api/integrations/imports/${started.batch.id}/confirm`, {});
    const batch = await ended(started.batch.id);
    expect(batch).toMatchObject({ status: 'failed', total: 1, imported: 0, failed: 1, jobs: [] });
    expect(batch.documents[0].message).toMatch(/password|encrypt/i);
    const retried = await alice.post(`/api/integrations/imports/${batch.id}/retry`, {});
    expect(retried.status).toBe(200);
    expect(await ended(batch.id)).toMatchObject({ status: 'failed', runs: 2, failed: 1 });
  }, 120_000);
});

describe('what an import refuses', () => {
  let room: TestRoom;
  beforeAll(async () => {
    room = await newRoom(alice, 'Hall');
  });

  it.each([
    ['a photo', [{ filename: 'photo.jpg', size: 10 }], 400, /photo\.jpg is not a PDF/],
    ['more than 20 PDFs', Array.from({ length: 21 }, (_, i) => ({ filename: `${i}.pdf`, size: 10 })), 400, /20/],
    ['a PDF over 512 MiB', [{ filename: 'huge.pdf', size: 512 * 1024 ** 2 + 1 }], 413, /512 MiB/],
    ['only empty files', [{ filename: 'empty.pdf', size: 0 }], 400, /empty/],
    ['no files', [], 422, /at least one/],
  ])('%s, writing nothing', async (_what, files, status, detail) => {
    const res = await alice.post(`/api/claims/${room.claim_id}/import-contents-list`, { files });
    expect(res.status).toBe(status);
    expect(JSON.stringify(res.body)).toMatch(detail);
    const rooms = await alice.get(`/api/claims/${room.claim_id}/rooms`);
    expect((rooms.body.rooms ?? rooms.body).map((r: any) => r.name)).toEqual(['Hall']);
  });

  it('answers 404 for an unknown claim or batch', async () => {
    const id = randomUUID();
    expect(
      (await alice.post(`/api/claims/${id}/import-contents-list`, { files: [{ filename: 'a.pdf', size: 1 }] })).status,
    ).toBe(404);
    expect((await alice.get(`/api/integrations/imports/${id}`)).status).toBe(404);
  });
});
