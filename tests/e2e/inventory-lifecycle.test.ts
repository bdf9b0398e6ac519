/**
 * Manual add (with insert-between numbering), delete and merge of items over
 * real HTTP, with their undo, team scoping, the estimation freeze and bad
 * input; and an insert racing a photo job of the same claim.
 */
import { randomUUID } from 'node:crypto';
import { type Client, eventually, request } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { jobWithItems, teamWithRoom, texturedJpeg } from '../support/inventory';
import { photoJob, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

async function inventory(client: Client, jobId: string): Promise<any[]> {
  const res = await client.get(`/api/inventory/${jobId}?archived=true`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Name -> number over some jobs of one claim. */
async function numbers(client: Client, jobIds: string[]): Promise<Record<string, number>> {
  const all = (await Promise.all(jobIds.map((j) => inventory(client, j)))).flat();
  return Object.fromEntries(all.map((i) => [i.name, i.item_number]));
}

async function activityEntry(client: Client, actionType: string, entityId: string) {
  const feed = (await client.get('/api/activity?limit=100')).body.items as any[];
  const entry = feed.find((e) => e.action_type === actionType && e.entity_id === entityId);
  expect(entry).toBeDefined();
  return entry;
}

async function secondRoom(client: Client, room: TestRoom, name: string): Promise<string> {
  const res = await client.post(`/api/claims/${room.claim_id}/rooms`, { name });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A photo job of `roomId` waiting to be processed, whose photos the model reads as `photos`. */
async function stagedJob(client: Client, roomId: string, photos: string[][]): Promise<string> {
  const tag = randomUUID().slice(0, 8);
  const filenames = photos.map((_, i) => `race-${tag}-${i}.jpg`);
  for (let i = 0; i < photos.length; i++)
    await gateway.script(filenames[i], [{ items: photos[i].map((name) => modelItem(name, 0.9)) }]);
  const bytes = await Promise.all(photos.map((_, i) => texturedJpeg(i + 11)));
  return (await photoJob(client, roomId, bytes, filenames)).jobId;
}

describe('manual add with insert-between numbering', () => {
  it('adds at the end, and between 1 and 2 across two rooms of the claim, moving every later item', async () => {
    const { client, room } = await teamWithRoom('Kitchen');
    const kitchen = await jobWithItems(client, room.id, [['Sofa', 'Cushion'], ['Lamp']]);
    const garageId = await secondRoom(client, room, 'Garage');
    const garage = await jobWithItems(client, garageId, [['Drill']]);
    const jobs = [kitchen.jobId, garage.jobId];
    expect(await numbers(client, jobs)).toEqual({ Sofa: 1, Cushion: 2, Lamp: 3, Drill: 4 });

    const rug = await client.post(`/api/inventory/${kitchen.jobId}/item`, { name: 'Rug', quantity: 2, brand: 'Acme' });
    expect(rug.status).toBe(201);
    expect(rug.body).toMatchObject({
      item_number: 5,
      name: 'Rug',
      quantity: 2,
      brand: 'Acme',
      room: 'Kitchen',
      confidence: 1,
      reviewed: true,
      photo_path: null,
      photos: [],
    });

    const vase = await client.post(`/api/inventory/${garage.jobId}/item`, {
      name: 'Vase',
      insert_after_item_number: 1,
      estimated_price: 40,
    });
    expect(vase.status).toBe(201);
    expect(vase.body).toMatchObject({ item_number: 2, room: 'Garage', quantity: 1, estimated_price: 40 });
    expect(await numbers(client, jobs)).toEqual({ Sofa: 1, Vase: 2, Cushion: 3, Lamp: 4, Drill: 5, Rug: 6 });

    const first = await client.post(`/api/inventory/${kitchen.jobId}/item`, {
      name: 'Mirror',
      insert_after_item_number: 0,
    });
    expect(first.body.item_number).toBe(1);
    expect(await numbers(client, jobs)).toEqual({ Mirror: 1, Sofa: 2, Vase: 3, Cushion: 4, Lamp: 5, Drill: 6, Rug: 7 });

    // Undo of an add deletes the item; once it changed since, the undo answers 409.
    const undo = await client.post(
      `/api/activity/${(await activityEntry(client, 'add_item', first.body.id)).id}/restore`,
    );
    expect(undo.status).toBe(200);
    expect((await numbers(client, jobs)).Mirror).toBeUndefined();
    await setFields(`ITEM#${rug.body.id}`, 'ITEM', { rev: 7 });
    const stale = await client.post(
      `/api/activity/${(await activityEntry(client, 'add_item', rug.body.id)).id}/restore`,
    );
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatch(/changed since/);
    expect((await numbers(client, jobs)).Rug).toBe(7);
  });

  it('makes one item when an add is retried with the same Idempotency-Key', async () => {
    const { client, room } = await teamWithRoom('Den');
    const den = await jobWithItems(client, room.id, [['Armchair']]);
    const key = { headers: { 'Idempotency-Key': randomUUID() } };
    const first = await client.post(`/api/inventory/${den.jobId}/item`, { name: 'Footstool' }, key);
    const retry = await client.post(`/api/inventory/${den.jobId}/item`, { name: 'Footstool' }, key);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect((await inventory(client, den.jobId)).map((i) => i.name)).toEqual(['Armchair', 'Footstool']);
  });

  it('keeps numbers 1..N once when an insert races a photo job of the same claim', async () => {
    const { client, room } = await teamWithRoom('Hall');
    const first = await jobWithItems(client, room.id, [['Alpha'], ['Beta']]);
    const racingId = await stagedJob(client, room.id, [
      ['R1', 'R2'],
      ['R3', 'R4'],
      ['R5', 'R6'],
    ]);
    expect((await client.post(`/api/jobs/${racingId}/process`)).status).toBe(200);
    const inserted = [];
    for (const name of ['I1', 'I2', 'I3']) {
      const res = await client.post(`/api/inventory/${first.jobId}/item`, { name, insert_after_item_number: 1 });
      expect(res.status).toBe(201);
      inserted.push(res.body);
    }
    await eventually(async () => (await client.get(`/api/jobs/${racingId}`)).body.status === 'complete', 90_000, 300);

    const all = (await Promise.all([first.jobId, racingId].map((j) => inventory(client, j))))
      .flat()
      .sort((a, b) => a.item_number - b.item_number);
    expect(all.map((i) => i.item_number)).toEqual(Array.from({ length: 11 }, (_, k) => k + 1));
    const names = all.map((i) => i.name);
    expect(names[0]).toBe('Alpha');
    // The three inserts sit right after Alpha, the last one inserted nearest to it.
    expect(names.slice(1, 4)).toEqual(['I3', 'I2', 'I1']);
    expect(names[4]).toBe('Beta');
    expect(names.slice(5)).toEqual(['R1', 'R2', 'R3', 'R4', 'R5', 'R6']);
  });
});

describe('delete and merge', () => {
  let client: Client;
  let room: TestRoom;
  let jobId: string;

  beforeAll(async () => {
    ({ client, room } = await teamWithRoom('Den'));
    ({ jobId } = await jobWithItems(client, room.id, [['Sofa', 'Cushion'], ['Lamp'], ['Chair']]));
  });

  it('deletes an item and brings it back with the same id, number and photos on undo', async () => {
    const before = await inventory(client, jobId);
    const cushion = before.find((i) => i.name === 'Cushion');
    expect(cushion.photos).toHaveLength(1);

    const gone = await client.delete(`/api/inventory/item/${cushion.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ deleted: true, id: cushion.id });
    expect((await inventory(client, jobId)).map((i) => i.id)).not.toContain(cushion.id);
    expect(await getRow(`ITEM#${cushion.id}`, `PHOTO#${cushion.photos[0].id}`)).toBeNull();
    // The photo file stays, so undo can show it again.
    expect([200, 302, 307]).toContain((await request('GET', cushion.photos[0].url)).status);

    // Its number was taken meanwhile by an insert: undo puts it back in between.
    const filler = await client.post(`/api/inventory/${jobId}/item`, { name: 'Filler', insert_after_item_number: 1 });
    expect(filler.body.item_number).toBe(2);
    const entry = await activityEntry(client, 'delete_item', cushion.id);
    expect((await client.post(`/api/activity/${entry.id}/restore`)).status).toBe(200);
    const after = await inventory(client, jobId);
    const back = after.find((i) => i.id === cushion.id);
    expect(back).toMatchObject({ item_number: 2, name: 'Cushion' });
    expect(back.photos).toEqual(cushion.photos);
    expect([200, 302, 307]).toContain((await request('GET', back.photos[0].url)).status);
    expect(after.map((i) => [i.name, i.item_number])).toEqual([
      ['Sofa', 1],
      ['Cushion', 2],
      ['Filler', 3],
      ['Lamp', 4],
      ['Chair', 5],
    ]);
    expect((await client.delete(`/api/inventory/item/${filler.body.id}`)).status).toBe(200);
  });

  it('merges items into the lowest number and undoes it as one action', async () => {
    // Two of them made from a contents list's photos, which printed their labels.
    const before = await inventory(client, jobId);
    await setFields(`ITEM#${before.find((i) => i.name === 'Sofa').id}`, 'ITEM', { source_label: 'Item 0018' });
    await setFields(`ITEM#${before.find((i) => i.name === 'Chair').id}`, 'ITEM', { source_label: 'Item 0023' });
    const items = await inventory(client, jobId);
    const sofa = items.find((i) => i.name === 'Sofa');
    const lamp = items.find((i) => i.name === 'Lamp');
    const chair = items.find((i) => i.name === 'Chair');
    expect([sofa.source_label, lamp.source_label]).toEqual(['Item 0018', null]);
    const merged = await client.post('/api/inventory/items/merge', { item_ids: [chair.id, lamp.id, sofa.id] });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({
      id: sofa.id,
      quantity: sofa.quantity,
      photo_path: sofa.photo_path,
      source_label: 'Item 0018; Item 0023',
    });
    expect(merged.body.photos.map((p: any) => [p.id, p.is_primary, p.ordering])).toEqual([
      [sofa.photos[0].id, true, 0],
      [lamp.photos[0].id, false, 1],
      [chair.photos[0].id, false, 2],
    ]);
    const left = await inventory(client, jobId);
    expect(left.map((i) => i.name)).toEqual(['Sofa', 'Cushion']);

    const entry = await activityEntry(client, 'merge_items', sofa.id);
    expect((await client.post(`/api/activity/${entry.id}/restore`)).status).toBe(200);
    const restored = await inventory(client, jobId);
    expect(restored.map((i) => [i.id, i.item_number])).toEqual(items.map((i) => [i.id, i.item_number]));
    for (const item of restored) {
      const was = items.find((i) => i.id === item.id);
      expect(item.photos).toEqual(was.photos);
      expect(item.photo_path).toBe(was.photo_path);
      expect(item.source_label).toBe(was.source_label);
    }
  });

  it('gives a photo-less target the first moved photo as primary; undo answers 409 once the target changed', async () => {
    const manual = await client.post(`/api/inventory/${jobId}/item`, { name: 'Box' });
    const lamp = (await inventory(client, jobId)).find((i) => i.name === 'Lamp');
    const merged = await client.post('/api/inventory/items/merge', {
      item_ids: [lamp.id, manual.body.id],
      target_item_id: manual.body.id,
    });
    expect(merged.status).toBe(200);
    expect(merged.body.photos.map((p: any) => [p.id, p.is_primary])).toEqual([[lamp.photos[0].id, true]]);
    expect(merged.body.photo_path).toBe(lamp.photo_path);

    await setFields(`ITEM#${manual.body.id}`, 'ITEM', { rev: 99 });
    const entry = await activityEntry(client, 'merge_items', manual.body.id);
    const undo = await client.post(`/api/activity/${entry.id}/restore`);
    expect(undo.status).toBe(409);
    expect(undo.body.detail).toMatch(/changed since/);
    expect((await inventory(client, jobId)).map((i) => i.id)).not.toContain(lamp.id);
  });

  it('answers 404 to another team on every route and changes nothing', async () => {
    const other = (await teamWithRoom()).client;
    const items = await inventory(client, jobId);
    expect((await other.post(`/api/inventory/${jobId}/item`, { name: 'X' })).status).toBe(404);
    expect((await other.delete(`/api/inventory/item/${items[0].id}`)).status).toBe(404);
    const merge = await other.post('/api/inventory/items/merge', { item_ids: items.slice(0, 2).map((i) => i.id) });
    expect(merge.status).toBe(404);
    expect(await inventory(client, jobId)).toEqual(items);
  });

  it('refuses bad input with 400 or 422 and writes nothing', async () => {
    const items = await inventory(client, jobId);
    const one = await client.post('/api/inventory/items/merge', { item_ids: [items[0].id] });
    expect(one.status).toBe(400);
    expect(one.body.detail).toBe('Choose at least two items to merge.');
    const twice = await client.post('/api/inventory/items/merge', { item_ids: [items[0].id, items[0].id] });
    expect(twice.status).toBe(400);
    const outside = await client.post('/api/inventory/items/merge', {
      item_ids: [items[0].id, items[1].id],
      target_item_id: randomUUID(),
    });
    expect(outside.status).toBe(400);
    expect((await client.post('/api/inventory/items/merge', { item_ids: items.map((i) => i.id), x: 1 })).status).toBe(
      422,
    );

    // Items of two claims: one from another claim of the same team.
    const otherClaim = await client.post('/api/claims', { claim_number: `T-${randomUUID().slice(0, 8)}` });
    const otherRoom = await client.post(`/api/claims/${otherClaim.body.id}/rooms`, { name: 'Attic' });
    const { jobId: otherJob } = await photoJob(client, otherRoom.body.id, [await texturedJpeg(5)]);
    const stray = await client.post(`/api/inventory/${otherJob}/item`, { name: 'Trunk' });
    expect(stray.status).toBe(201);
    expect(stray.body.item_number).toBe(1);
    const twoClaims = await client.post('/api/inventory/items/merge', { item_ids: [items[0].id, stray.body.id] });
    expect(twoClaims.status).toBe(400);

    for (const body of [
      { name: 'X', colour: 'red' },
      { name: 'X', quantity: -1 },
      { name: 'X', quantity: 0 },
      { name: 'X', quantity: 1.5 },
      { name: 'X', estimated_price: -3 },
      { quantity: 2 },
      { name: 'X', insert_after_item_number: -1 },
    ])
      expect((await client.post(`/api/inventory/${jobId}/item`, body)).status).toBe(422);
    const missing = await client.post(`/api/inventory/${jobId}/item`, { name: 'X', insert_after_item_number: 999 });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toBe('Item #999 does not exist in this claim.');
    expect(await inventory(client, jobId)).toEqual(items);
  });

  it('answers 409 for frozen items on delete and merge, and still allows adding', async () => {
    const { client: frozenClient, room: frozenRoom } = await teamWithRoom('Study');
    const { jobId: frozenJob, items } = await jobWithItems(frozenClient, frozenRoom.id, [['Desk'], ['Globe']]);
    await setFields(`CLAIM#${frozenRoom.claim_id}`, 'CLAIM', { estimation_submitted_at: new Date().toISOString() });
    await setFields(`ITEM#${items[0].id}`, 'ITEM', { estimation_sent_at: new Date().toISOString() });
    expect((await frozenClient.delete(`/api/inventory/item/${items[0].id}`)).status).toBe(409);
    const merge = await frozenClient.post('/api/inventory/items/merge', { item_ids: items.map((i) => i.id) });
    expect(merge.status).toBe(409);
    expect((await inventory(frozenClient, frozenJob)).map((i) => i.id)).toEqual(items.map((i) => i.id));
    const added = await frozenClient.post(`/api/inventory/${frozenJob}/item`, { name: 'Lamp' });
    expect(added.status).toBe(201);
    expect(added.body.item_number).toBe(3);
  });
});
