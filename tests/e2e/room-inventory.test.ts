/**
 * GET /api/rooms/{room_id}/inventory over real HTTP: every item of the room
 * across its jobs (two photo jobs run through the real pipeline against the
 * fake AI gateway), with photos, ordered by item number, in the shape of a
 * job's inventory; archived items only with ?archived=true; another team's
 * room is 404.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually } from '../support/api';
import { setFields } from '../support/aws';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, smallPng, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

/** A photo job of the room processed to completion, the model finding `names` on its one photo. */
async function processedJob(client: Client, roomId: string, names: string[], seed: number): Promise<string> {
  const filename = `room-inv-${randomUUID().slice(0, 8)}.png`;
  await gateway.script(filename, [{ items: names.map((n) => modelItem(n)) }]);
  const { jobId } = await photoJob(client, roomId, [await smallPng(seed)], [filename]);
  expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
  await eventually(async () => (await client.get(`/api/jobs/${jobId}`)).body.status === 'complete', 90_000, 300);
  return jobId;
}

describe('GET /api/rooms/{room_id}/inventory', () => {
  let alice: Client;
  let mallory: Client;
  let room: TestRoom;
  let jobs: string[];

  beforeAll(async () => {
    alice = await Client.signIn(newTeamMember());
    mallory = await Client.signIn(newTeamMember());
    room = await newRoom(alice, 'Den');
    jobs = [
      await processedJob(alice, room.id, ['Bookcase', 'Reading lamp'], 1),
      await processedJob(alice, room.id, ['Rug'], 2),
    ];
  });

  it("lists the items of all the room's jobs by item number, each as the job inventory shows it", async () => {
    const res = await alice.get(`/api/rooms/${room.id}/inventory`);
    expect(res.status).toBe(200);
    const perJob = (await Promise.all(jobs.map((j) => alice.get(`/api/inventory/${j}`)))).flatMap((r) => r.body);
    expect(res.body).toEqual(perJob.sort((a: any, b: any) => a.item_number - b.item_number));
    expect(res.body.map((i: any) => i.name)).toEqual(['Bookcase', 'Reading lamp', 'Rug']);
    expect(res.body.map((i: any) => i.item_number)).toEqual([1, 2, 3]);
    expect(new Set(res.body.map((i: any) => i.job_id))).toEqual(new Set(jobs));
    for (const item of res.body) {
      expect(item.room_id).toBe(room.id);
      expect(item.photos).toHaveLength(1);
      expect(item.photos[0]).toMatchObject({ is_primary: true, ordering: 0 });
      expect(item.photo_path).toBe(item.photos[0].url);
      expect(item).not.toHaveProperty('team_id');
    }
  });

  it('leaves archived items out unless archived=true', async () => {
    const items = (await alice.get(`/api/rooms/${room.id}/inventory`)).body;
    const lamp = items.find((i: any) => i.name === 'Reading lamp');
    const archivedAt = new Date().toISOString();
    await setFields(`ITEM#${lamp.id}`, 'ITEM', { is_archived: true, archived_at: archivedAt });

    const active = (await alice.get(`/api/rooms/${room.id}/inventory`)).body;
    expect(active.map((i: any) => i.name)).toEqual(['Bookcase', 'Rug']);
    const all = await alice.get(`/api/rooms/${room.id}/inventory?archived=true`);
    expect(all.status).toBe(200);
    expect(all.body.map((i: any) => i.name)).toEqual(['Bookcase', 'Reading lamp', 'Rug']);
    expect(all.body[1]).toMatchObject({ is_archived: true, archived_at: archivedAt });
    expect((await alice.get(`/api/rooms/${room.id}/inventory?archived=false`)).body).toHaveLength(2);
  });

  it('answers an empty list for a room without items', async () => {
    const empty = await newRoom(alice, 'Attic');
    const res = await alice.get(`/api/rooms/${empty.id}/inventory`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it("answers 404 for another team's room and for a room that does not exist", async () => {
    const theirs = await mallory.get(`/api/rooms/${room.id}/inventory`);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ detail: 'Room not found' });
    expect((await mallory.get(`/api/rooms/${room.id}/inventory?archived=true`)).status).toBe(404);
    expect((await alice.get(`/api/rooms/${randomUUID()}/inventory`)).status).toBe(404);
  });

  it('answers 422 for a malformed room id or archived flag', async () => {
    expect((await alice.get('/api/rooms/not-a-uuid/inventory')).status).toBe(422);
    expect((await alice.get(`/api/rooms/${room.id}/inventory?archived=maybe`)).status).toBe(422);
  });
});
