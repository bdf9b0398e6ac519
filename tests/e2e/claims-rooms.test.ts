/**
 * Claims and rooms over real HTTP (spec: Claims, Rooms, States > Other
 * lifecycles, Errors): validation writes nothing, archive rules, counts,
 * admin hard delete through the purge worker.
 */
import { Client, eventually } from '../support/api';
import { getRow, listKeys, putObject, seedItem, seedJob, setFields } from '../support/aws';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember, teammateOf } from '../support/tokens';

let alice: Client;
let bob: Client; // Alice's teammate

beforeAll(async () => {
  const member = newTeamMember();
  alice = await Client.signIn(member);
  bob = await Client.signIn(teammateOf(member));
});

describe('claims', () => {
  it('creates, lists, reads and edits a claim', async () => {
    const created = await alice.post('/api/claims', {
      claim_number: 'CLM-1001',
      insured_name: 'Dana Reyes',
      loss_type: 'Water damage',
      coverage_type: 'RCV',
      claim_type: 'Residential',
      zip_code: 'K1A 0B1',
      adjuster_name: 'Sam Ortiz',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      claim_number: 'CLM-1001',
      coverage_type: 'RCV',
      is_archived: false,
      items_locked: false,
      spend_usd: 0,
      archived_at: null,
      submitted_at: null,
    });

    const listed = await bob.get('/api/claims');
    expect(listed.body.map((c: any) => c.id)).toContain(created.body.id);

    const patched = await bob.patch(`/api/claims/${created.body.id}`, {
      insured_name: 'Dana Reyes-Park',
      coverage_type: 'ACV',
      zip_code: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      insured_name: 'Dana Reyes-Park',
      coverage_type: 'ACV',
      zip_code: null,
      claim_number: 'CLM-1001',
    });
    expect((await alice.get(`/api/claims/${created.body.id}`)).body.insured_name).toBe('Dana Reyes-Park');
  });

  it.each([
    ['a missing claim number', { insured_name: 'x' }, 'body.claim_number'],
    ['an empty claim number', { claim_number: '  ' }, 'body.claim_number'],
    ['an unknown coverage type', { claim_number: 'V-1', coverage_type: 'FULL' }, 'body.coverage_type'],
    ['an unknown field', { claim_number: 'V-1', owner_team: 'someone' }, 'body'],
    ['a wrong field type', { claim_number: 12345 }, 'body.claim_number'],
    ['an oversize value', { claim_number: 'V-1', insured_name: 'x'.repeat(201) }, 'body.insured_name'],
  ])('refuses %s with 422 and writes nothing', async (_label, body, field) => {
    const before = (await alice.get('/api/claims')).body.length;
    const res = await alice.post('/api/claims', body);
    expect(res.status).toBe(422);
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    expect((await alice.get('/api/claims')).body.length).toBe(before);
  });

  it('answers a malformed JSON body and a non-UUID id with 422, never 500', async () => {
    const res = await alice.post('/api/claims', '{"claim_number": "oops"', {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/malformed JSON/);
    for (const [method, path] of [
      ['get', '/api/claims/not-a-uuid'],
      ['post', '/api/claims/1234/archive'],
      ['patch', '/api/claims/abc'],
    ] as const) {
      const r =
        method === 'get'
          ? await alice.get(path)
          : method === 'post'
            ? await alice.post(path)
            : await alice.patch(path, { insured_name: 'x' });
      expect(r.status).toBe(422);
      expect(r.body.errors[0].field).toMatch(/^path\./);
    }
    expect((await alice.patch(`/api/claims/${crypto.randomUUID()}`, {})).status).toBe(422);
    expect((await alice.get('/api/claims?archived=perhaps')).status).toBe(422);
  });

  it('answers 404 for a claim that does not exist', async () => {
    const id = crypto.randomUUID();
    expect((await alice.get(`/api/claims/${id}`)).status).toBe(404);
    expect((await alice.patch(`/api/claims/${id}`, { insured_name: 'x' })).status).toBe(404);
    expect((await alice.post(`/api/claims/${id}/archive`)).status).toBe(404);
  });

  it('archives and unarchives, moving the claim between the active and archived lists', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'ARC-1' })).body;
    const archived = await alice.post(`/api/claims/${claim.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body.is_archived).toBe(true);
    expect(archived.body.archived_at).toEqual(expect.any(String));
    expect((await alice.get('/api/claims')).body.map((c: any) => c.id)).not.toContain(claim.id);
    expect((await alice.get('/api/claims?archived=true')).body.map((c: any) => c.id)).toContain(claim.id);
    const back = await alice.post(`/api/claims/${claim.id}/unarchive`);
    expect(back.body).toMatchObject({ is_archived: false, archived_at: null });
    expect((await alice.get('/api/claims')).body.map((c: any) => c.id)).toContain(claim.id);
  });

  it('refuses to archive a submitted claim with 400 and leaves it active', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'SUB-1' })).body;
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', { submitted_at: new Date().toISOString() });
    const res = await alice.post(`/api/claims/${claim.id}/archive`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/submitted/);
    expect((await alice.get(`/api/claims/${claim.id}`)).body.is_archived).toBe(false);
  });

  it('derives items_locked from the estimation send, the training flag and the admin unlock', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'LOCK-1' })).body;
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', { estimation_claim_id: crypto.randomUUID() });
    expect((await alice.get(`/api/claims/${claim.id}`)).body.items_locked).toBe(true);
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', { estimation_items_unlocked: true });
    expect((await alice.get(`/api/claims/${claim.id}`)).body.items_locked).toBe(false);
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', { estimation_items_unlocked: false, is_training: true });
    expect((await alice.get(`/api/claims/${claim.id}`)).body.items_locked).toBe(false);
  });
});

describe('rooms', () => {
  let claimId: string;
  beforeAll(async () => {
    claimId = (await alice.post('/api/claims', { claim_number: 'ROOMS-1' })).body.id;
  });

  it('adds, lists with counts, reads and renames rooms', async () => {
    const kitchen = await alice.post(`/api/claims/${claimId}/rooms`, { name: 'Kitchen' });
    expect(kitchen.status).toBe(201);
    expect(kitchen.body).toMatchObject({
      name: 'Kitchen',
      claim_id: claimId,
      is_archived: false,
      counts: { video: 0, photo: 0, audio: 0, items: 0, submitted: 0, unsubmitted: 0 },
    });

    const room = kitchen.body;
    const videoJob = await seedJob(room, 'video');
    await seedJob(room, 'photo');
    await seedJob(room, 'photo');
    await seedJob(room, 'audio');
    await seedItem(room, videoJob, { number: 1 });
    await seedItem(room, videoJob, { number: 2, submitted: true });
    await seedItem(room, videoJob, { number: 3, is_archived: true });

    const list = await bob.get(`/api/claims/${claimId}/rooms`);
    expect(list.status).toBe(200);
    const listed = list.body.find((r: any) => r.id === room.id);
    expect(listed.counts).toEqual({ video: 1, photo: 2, audio: 1, items: 2, submitted: 1, unsubmitted: 1 });

    const one = await bob.get(`/api/rooms/${room.id}`);
    expect(one.body.counts).toMatchObject({ submitted: 1, unsubmitted: 1 });

    const renamed = await bob.put(`/api/rooms/${room.id}`, { name: 'Kitchen & Pantry' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Kitchen & Pantry');
  });

  it('refuses a blank or unknown-field room body with 422 and writes nothing', async () => {
    const before = (await alice.get(`/api/claims/${claimId}/rooms`)).body.length;
    expect((await alice.post(`/api/claims/${claimId}/rooms`, { name: '   ' })).status).toBe(422);
    expect((await alice.post(`/api/claims/${claimId}/rooms`, { name: 'Den', floor: 2 })).status).toBe(422);
    expect((await alice.post(`/api/claims/${claimId}/rooms`, { name: 'x'.repeat(101) })).status).toBe(422);
    expect((await alice.get(`/api/claims/${claimId}/rooms`)).body.length).toBe(before);
  });

  it('archives a room without submitted items and refuses one with them', async () => {
    const den = (await alice.post(`/api/claims/${claimId}/rooms`, { name: 'Den' })).body;
    const archived = await alice.post(`/api/rooms/${den.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body.is_archived).toBe(true);
    expect((await alice.get(`/api/claims/${claimId}/rooms`)).body.map((r: any) => r.id)).not.toContain(den.id);
    expect((await alice.get(`/api/claims/${claimId}/rooms?archived=true`)).body.map((r: any) => r.id)).toContain(
      den.id,
    );
    expect((await alice.post(`/api/rooms/${den.id}/unarchive`)).body.is_archived).toBe(false);

    const garage = (await alice.post(`/api/claims/${claimId}/rooms`, { name: 'Garage' })).body;
    const job = await seedJob(garage, 'photo');
    await seedItem(garage, job, { number: 7, submitted: true });
    const refused = await alice.post(`/api/rooms/${garage.id}/archive`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/submitted/);
    expect((await alice.get(`/api/rooms/${garage.id}`)).body.is_archived).toBe(false);
  });

  it('refuses an undo that would archive a room holding submitted items (400), leaving it active', async () => {
    const activityOf = async (roomId: string, type: string) =>
      (await alice.get('/api/activity?limit=100')).body.items.find(
        (e: any) => e.action_type === type && e.entity_id === roomId,
      );

    // undo of an unarchive archives the room again
    const attic = (await alice.post(`/api/claims/${claimId}/rooms`, { name: 'Attic' })).body;
    expect((await alice.post(`/api/rooms/${attic.id}/archive`)).status).toBe(200);
    expect((await alice.post(`/api/rooms/${attic.id}/unarchive`)).status).toBe(200);
    await seedItem(attic, await seedJob(attic, 'photo'), { number: 1, submitted: true });
    const unarchive = await activityOf(attic.id, 'unarchive_room');
    const refused = await alice.post(`/api/activity/${unarchive.id}/restore`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/submitted/);
    expect((await alice.get(`/api/rooms/${attic.id}`)).body.is_archived).toBe(false);
    // the entry was not used up: it can be undone once the rule allows it
    expect((await activityOf(attic.id, 'unarchive_room')).restored_at ?? null).toBeNull();

    // undo of adding a room archives it too
    const cellar = (await alice.post(`/api/claims/${claimId}/rooms`, { name: 'Cellar' })).body;
    await seedItem(cellar, await seedJob(cellar, 'video'), { number: 1, submitted: true });
    const create = await activityOf(cellar.id, 'create_room');
    expect((await alice.post(`/api/activity/${create.id}/restore`)).status).toBe(400);
    expect((await alice.get(`/api/rooms/${cellar.id}`)).body.is_archived).toBe(false);
  });

  it('answers 404 for rooms that do not exist and for rooms of a missing claim', async () => {
    expect((await alice.get(`/api/rooms/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await alice.get(`/api/claims/${crypto.randomUUID()}/rooms`)).status).toBe(404);
    expect((await alice.post(`/api/claims/${crypto.randomUUID()}/rooms`, { name: 'Attic' })).status).toBe(404);
  });
});

describe('admin hard delete', () => {
  it('removes the claim at once and its rooms, jobs, items and stored files through the purge worker', async () => {
    const admin = await Client.signIn(newTeamMember({ user_id: Number(TEST_ADMIN_EXTERNAL_IDS[0]) }));
    const claim = (await alice.post('/api/claims', { claim_number: 'DEL-1' })).body;
    const room = (await alice.post(`/api/claims/${claim.id}/rooms`, { name: 'Basement' })).body;
    const job = await seedJob(room, 'video');
    const item = await seedItem(room, job, { number: 1 });
    const prefix = `teams/${claim.team_id}/claims/${claim.id}/`;
    await putObject(`${prefix}jobs/${job}/video.mp4`);
    await putObject(`${prefix}imports/list.pdf`);

    const res = await admin.delete(`/api/claims/${claim.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, id: claim.id });
    expect((await alice.get(`/api/claims/${claim.id}`)).status).toBe(404);

    await eventually(async () => (await getRow(`ROOM#${room.id}`, 'ROOM')) === null, 30_000);
    await eventually(async () => (await listKeys(prefix)).length === 0, 30_000);
    expect(await getRow(`JOB#${job}`, 'JOB')).toBeNull();
    expect(await getRow(`ITEM#${item}`, 'ITEM')).toBeNull();
    expect((await admin.delete(`/api/claims/${claim.id}`)).status).toBe(404);
  });
});
