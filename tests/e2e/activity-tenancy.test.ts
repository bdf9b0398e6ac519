/**
 * The activity feed and undo, team scoping on every id-addressed route of the
 * slice (another team's token → 404, or the spec's 403, and nothing changed),
 * and the daily purge of old archives.
 */
import { Client, eventually } from '../support/api';
import { getRow, invokeFunction, setFields } from '../support/aws';
import { newTeamMember, teammateOf } from '../support/tokens';

let alice: Client;
let bob: Client; // Alice's teammate
let mallory: Client; // another team

beforeAll(async () => {
  const member = newTeamMember();
  alice = await Client.signIn(member);
  bob = await Client.signIn(teammateOf(member));
  mallory = await Client.signIn(newTeamMember());
});

describe('activity', () => {
  it('is team-scoped, newest first, and paginated', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'ACT-1' })).body;
    await bob.patch(`/api/claims/${claim.id}`, { insured_name: 'Lee' });
    await alice.post(`/api/claims/${claim.id}/rooms`, { name: 'Hall' });

    const feed = (await bob.get('/api/activity?limit=50')).body.items;
    const types = feed
      .filter((e: any) => e.entity_id === claim.id || e.target === 'Hall')
      .map((e: any) => e.action_type);
    expect(types.slice(0, 3)).toEqual(['create_room', 'update_claim', 'create_claim']);
    expect(feed[0].created_at >= feed[feed.length - 1].created_at).toBe(true);
    const byBob = feed.find((e: any) => e.action_type === 'update_claim');
    expect(byBob).toMatchObject({ user_name: bob.claims.user_name, restorable: true, target: 'ACT-1' });

    const first = (await alice.get('/api/activity?limit=2')).body;
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await alice.get(`/api/activity?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).body;
    expect(second.items[0].id).not.toBe(first.items[1].id);
    expect(second.items[0].created_at <= first.items[1].created_at).toBe(true);

    expect((await mallory.get('/api/activity')).body.items.some((e: any) => e.entity_id === claim.id)).toBe(false);
    expect((await alice.get('/api/activity?cursor=garbage!')).status).toBe(422);
    expect((await alice.get('/api/activity?limit=0')).status).toBe(422);
  });

  it('undoes an archive once; a second undo is 409', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'UNDO-1' })).body;
    await alice.post(`/api/claims/${claim.id}/archive`);
    const entry = (await alice.get('/api/activity')).body.items.find(
      (e: any) => e.action_type === 'archive_claim' && e.entity_id === claim.id,
    );
    const undo = await bob.post(`/api/activity/${entry.id}/restore`);
    expect(undo.status).toBe(200);
    expect(undo.body.entry.restored_at).toEqual(expect.any(String));
    expect((await alice.get(`/api/claims/${claim.id}`)).body.is_archived).toBe(false);
    const again = await bob.post(`/api/activity/${entry.id}/restore`);
    expect(again.status).toBe(409);
    const feed = (await alice.get('/api/activity')).body.items;
    expect(feed[0]).toMatchObject({ action_type: 'restore', restorable: false });
  });

  it('undoes a claim edit back to the values before it', async () => {
    const claim = (
      await alice.post('/api/claims', { claim_number: 'UNDO-2', insured_name: 'Original', coverage_type: 'ACV' })
    ).body;
    await alice.patch(`/api/claims/${claim.id}`, { insured_name: 'Changed', coverage_type: 'RCV' });
    const entry = (await alice.get('/api/activity')).body.items.find(
      (e: any) => e.action_type === 'update_claim' && e.entity_id === claim.id,
    );
    expect(entry.snapshot.before).toEqual({ insured_name: 'Original', coverage_type: 'ACV' });
    expect((await alice.post(`/api/activity/${entry.id}/restore`)).status).toBe(200);
    expect((await alice.get(`/api/claims/${claim.id}`)).body).toMatchObject({
      insured_name: 'Original',
      coverage_type: 'ACV',
    });
  });

  it('undoes a room archive and a room creation', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'UNDO-3' })).body;
    const room = (await alice.post(`/api/claims/${claim.id}/rooms`, { name: 'Office' })).body;
    await alice.post(`/api/rooms/${room.id}/archive`);
    const feed = (await alice.get('/api/activity')).body.items;
    const archiveEntry = feed.find((e: any) => e.action_type === 'archive_room' && e.entity_id === room.id);
    expect((await alice.post(`/api/activity/${archiveEntry.id}/restore`)).status).toBe(200);
    expect((await alice.get(`/api/rooms/${room.id}`)).body.is_archived).toBe(false);
    const createEntry = feed.find((e: any) => e.action_type === 'create_room' && e.entity_id === room.id);
    expect((await alice.post(`/api/activity/${createEntry.id}/restore`)).status).toBe(200);
    expect((await alice.get(`/api/rooms/${room.id}`)).body.is_archived).toBe(true);
  });

  it('refuses to undo non-restorable actions (rename_room, login) with 400', async () => {
    const claim = (await alice.post('/api/claims', { claim_number: 'UNDO-4' })).body;
    const room = (await alice.post(`/api/claims/${claim.id}/rooms`, { name: 'Loft' })).body;
    await alice.put(`/api/rooms/${room.id}`, { name: 'Upper loft' });
    const rename = (await alice.get('/api/activity')).body.items.find(
      (e: any) => e.action_type === 'rename_room' && e.entity_id === room.id,
    );
    expect(rename.restorable).toBe(false);
    const res = await alice.post(`/api/activity/${rename.id}/restore`);
    expect(res.status).toBe(400);
    expect((await alice.get(`/api/rooms/${room.id}`)).body.name).toBe('Upper loft');
    expect((await alice.post(`/api/activity/${crypto.randomUUID()}/restore`)).status).toBe(404);
    expect((await alice.post('/api/activity/nope/restore')).status).toBe(422);
  });
});

describe('forged activity cursors', () => {
  const cursorOf = (value: unknown) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  let aliceTeam: string;

  beforeAll(async () => {
    aliceTeam = (await alice.get('/api/auth/me')).body.team.id;
  });

  const expect422 = async (cursor: string) => {
    const res = await alice.get(`/api/activity?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect([cursor, res.status]).toEqual([cursor, 422]);
    expect(res.body.detail).toMatch(/cursor/);
    expect(res.body.errors).toEqual([{ field: 'query.cursor', message: expect.any(String) }]);
  };

  it('answers 422 for a cursor of the wrong shape', async () => {
    const sk = `${new Date().toISOString()}#${crypto.randomUUID()}`;
    const own = {
      pk: `ACTIVITY#${crypto.randomUUID()}`,
      sk: 'ACTIVITY',
      gsi1pk: `TEAM#${aliceTeam}#ACTIVITY`,
      gsi1sk: sk,
    };
    await expect422(cursorOf({ a: 1 }));
    await expect422(cursorOf({}));
    await expect422(cursorOf({ ...own, gsi1sk: 7 }));
    await expect422(cursorOf({ ...own, extra: 'x' }));
    await expect422(cursorOf({ pk: own.pk, sk: own.sk, gsi1pk: own.gsi1pk }));
    await expect422(cursorOf({ ...own, gsi1sk: '' }));
    await expect422(cursorOf({ ...own, gsi1sk: 'x'.repeat(1100) }));
    await expect422(cursorOf([own]));
  });

  it("answers 422 for another team's cursor", async () => {
    const other = (await mallory.get('/api/activity?limit=1')).body.next_cursor;
    expect(other).toEqual(expect.any(String));
    await expect422(other);
    const malloryTeam = (await mallory.get('/api/auth/me')).body.team.id;
    await expect422(
      cursorOf({
        pk: `ACTIVITY#${crypto.randomUUID()}`,
        sk: 'ACTIVITY',
        gsi1pk: `TEAM#${malloryTeam}#ACTIVITY`,
        gsi1sk: new Date().toISOString(),
      }),
    );
  });

  it('answers 422 for a cursor that is not JSON', async () => {
    await expect422(cursorOf('not json at all'));
    await expect422(cursorOf('null'));
    await expect422('%%%');
  });

  it("still pages with the team's own cursor", async () => {
    const first = (await alice.get('/api/activity?limit=1')).body;
    const next = await alice.get(`/api/activity?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(next.status).toBe(200);
    expect(next.body.items[0].id).not.toBe(first.items[0].id);
  });
});

describe("another team's token", () => {
  let claim: any;
  let room: any;
  let archiveEntry: any;

  beforeAll(async () => {
    claim = (await alice.post('/api/claims', { claim_number: 'SCOPE-1', insured_name: 'Kept' })).body;
    room = (await alice.post(`/api/claims/${claim.id}/rooms`, { name: 'Nursery' })).body;
    await alice.post(`/api/rooms/${room.id}/archive`);
    await alice.post(`/api/rooms/${room.id}/unarchive`);
    archiveEntry = (await alice.get('/api/activity')).body.items.find((e: any) => e.action_type === 'archive_room');
  });

  it.each([
    ['GET', () => `/api/claims/${claim.id}`, undefined, 403],
    ['PATCH', () => `/api/claims/${claim.id}`, { insured_name: 'Stolen' }, 404],
    ['POST', () => `/api/claims/${claim.id}/archive`, undefined, 404],
    ['POST', () => `/api/claims/${claim.id}/unarchive`, undefined, 404],
    ['DELETE', () => `/api/claims/${claim.id}`, undefined, 403],
    ['POST', () => `/api/claims/${claim.id}/rooms`, { name: 'Intruder' }, 404],
    ['GET', () => `/api/claims/${claim.id}/rooms`, undefined, 404],
    ['GET', () => `/api/rooms/${room.id}`, undefined, 404],
    ['PUT', () => `/api/rooms/${room.id}`, { name: 'Stolen' }, 404],
    ['POST', () => `/api/rooms/${room.id}/archive`, undefined, 404],
    ['POST', () => `/api/rooms/${room.id}/unarchive`, undefined, 404],
    ['POST', () => `/api/activity/${archiveEntry.id}/restore`, undefined, 404],
  ])('%s %s is refused and changes nothing', async (method, path, body, status) => {
    const url = path();
    const res =
      method === 'GET'
        ? await mallory.get(url)
        : method === 'DELETE'
          ? await mallory.delete(url)
          : method === 'PUT'
            ? await mallory.put(url, body)
            : method === 'PATCH'
              ? await mallory.patch(url, body)
              : await mallory.post(url, body);
    expect(res.status).toBe(status);
    expect(JSON.stringify(res.body)).not.toContain('Kept');

    const claimNow = (await alice.get(`/api/claims/${claim.id}`)).body;
    expect(claimNow).toMatchObject({ insured_name: 'Kept', is_archived: false });
    const roomNow = (await alice.get(`/api/rooms/${room.id}`)).body;
    expect(roomNow).toMatchObject({ name: 'Nursery', is_archived: false });
    expect((await alice.get(`/api/claims/${claim.id}/rooms`)).body).toHaveLength(1);
    expect((await getRow(`ACTIVITY#${archiveEntry.id}`, 'ACTIVITY'))?.restored_at).toBeNull();
  });

  it("does not list another team's claims", async () => {
    expect((await mallory.get('/api/claims')).body.map((c: any) => c.id)).not.toContain(claim.id);
    expect((await mallory.get('/api/claims?archived=true')).body.map((c: any) => c.id)).not.toContain(claim.id);
  });
});

describe('the daily purge', () => {
  it('permanently deletes claims and rooms archived more than 30 days ago, and nothing newer', async () => {
    const old = (await alice.post('/api/claims', { claim_number: 'OLD-1' })).body;
    const oldRoom = (await alice.post(`/api/claims/${old.id}/rooms`, { name: 'Old room' })).body;
    const recent = (await alice.post('/api/claims', { claim_number: 'RECENT-1' })).body;
    const keep = (await alice.post('/api/claims', { claim_number: 'KEEP-1' })).body;
    const archivedRoom = (await alice.post(`/api/claims/${keep.id}/rooms`, { name: 'Archived long ago' })).body;
    await alice.post(`/api/claims/${old.id}/archive`);
    await alice.post(`/api/claims/${recent.id}/archive`);
    await alice.post(`/api/rooms/${archivedRoom.id}/archive`);
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await setFields(`CLAIM#${old.id}`, 'CLAIM', { archived_at: longAgo, archsk: `${longAgo}#claim#${old.id}` });
    await setFields(`ROOM#${archivedRoom.id}`, 'ROOM', {
      archived_at: longAgo,
      archsk: `${longAgo}#room#${archivedRoom.id}`,
    });

    const run = await invokeFunction('dailyPurge');
    expect(run.error).toBeUndefined();
    expect(run.payload.queued).toBeGreaterThanOrEqual(2);

    await eventually(async () => (await getRow(`CLAIM#${old.id}`, 'CLAIM')) === null);
    await eventually(async () => (await getRow(`ROOM#${archivedRoom.id}`, 'ROOM')) === null);
    expect(await getRow(`ROOM#${oldRoom.id}`, 'ROOM')).toBeNull();
    expect((await alice.get(`/api/claims/${recent.id}`)).status).toBe(200);
    expect((await alice.get(`/api/claims/${keep.id}`)).status).toBe(200);
  });
});
