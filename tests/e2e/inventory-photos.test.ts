/**
 * Photo operations on items over HTTP: attach and replace (two calls around a
 * presigned POST), delete, set primary, reorder and move, each undone through
 * the activity feed; exactly one primary under concurrent calls; bad uploads,
 * another team's token and frozen items change nothing.
 */
import sharp from 'sharp';
import type { Client } from '../support/api';
import { eventually, request } from '../support/api';
import { setFields } from '../support/aws';
import { jobWithItems, teamWithRoom, texturedJpeg } from '../support/inventory';
import { postToBucket, type TestRoom } from '../support/uploads';

jest.setTimeout(180_000);

let client: Client;
let room: TestRoom;
let jobId: string;
let items: any[];
let other: Client;
let otherItems: any[];

beforeAll(async () => {
  ({ client, room } = await teamWithRoom('Den'));
  ({ jobId, items } = await jobWithItems(client, room.id, [
    ['Sofa'],
    ['Lamp'],
    ['Chair'],
    ['Table'],
    ['Rug'],
    ['Desk'],
  ]));
  const theirs = await teamWithRoom('Attic');
  other = theirs.client;
  ({ items: otherItems } = await jobWithItems(other, theirs.room.id, [['Trunk']]));
});

const itemNamed = (name: string) => items.find((i) => i.name === name);

async function getItem(id: string): Promise<any> {
  const list = await client.get(`/api/inventory/${jobId}?archived=true`);
  return list.body.find((i: any) => i.id === id);
}

/** The photos in order as "<filename>*" for the primary, and whether photo_path is the primary's url. */
function summary(item: any) {
  const ordered = [...item.photos].sort((a: any, b: any) => a.ordering - b.ordering);
  const primaries = ordered.filter((p: any) => p.is_primary);
  expect(ordered.map((p: any) => p.ordering)).toEqual(ordered.map((_: any, i: number) => i));
  if (ordered.length) {
    expect(primaries).toHaveLength(1);
    expect(item.photo_path).toBe(primaries[0].url);
  } else expect(item.photo_path).toBeNull();
  return ordered.map((p: any) => `${p.id}${p.is_primary ? '*' : ''}`);
}

/** The first call of an upload route: the upload key and the form to POST. */
async function issue(c: Client, itemId: string, route: 'photos' | 'photo', file = { filename: 'new.jpg', size: 0 }) {
  const method = route === 'photos' ? 'post' : 'put';
  return c[method](`/api/inventory/item/${itemId}/${route}`, file);
}

/** Both calls of an upload route with real bytes; answers the confirm response. */
async function upload(itemId: string, bytes: Buffer, route: 'photos' | 'photo' = 'photos', filename = 'new.jpg') {
  const issued = await issue(client, itemId, route, { filename, size: bytes.length });
  expect(issued.status).toBe(200);
  const posted = await postToBucket(
    { ...issued.body.upload, original_filename: filename, index: 0, filename, max_bytes: bytes.length },
    bytes,
  );
  expect(posted.status).toBe(204);
  const method = route === 'photos' ? 'post' : 'put';
  const confirmed = await client[method](`/api/inventory/item/${itemId}/${route}`, {
    upload_key: issued.body.upload_key,
  });
  return { confirmed, uploadKey: issued.body.upload_key as string };
}

/** The newest activity entry of this type on this item. */
async function entryOf(actionType: string, itemId: string) {
  const feed = await client.get('/api/activity?limit=100');
  return feed.body.items.find((e: any) => e.action_type === actionType && e.entity_id === itemId);
}

async function undo(actionType: string, itemId: string) {
  const entry = await entryOf(actionType, itemId);
  expect(entry).toBeDefined();
  return client.post(`/api/activity/${entry.id}/restore`);
}

describe('attach', () => {
  it('uploads through a presigned POST, appends, serves the photo, is idempotent and undoable', async () => {
    const sofa = itemNamed('Sofa');
    const before = summary(await getItem(sofa.id));
    // A PNG: the photos worker re-encodes it to an upright JPEG after the attach.
    const png = await sharp(await texturedJpeg(7, 200, 150))
      .png()
      .toBuffer();
    const { confirmed, uploadKey } = await upload(sofa.id, png, 'photos', 'new.png');
    expect(confirmed.status).toBe(200);
    const after = summary(confirmed.body);
    expect(after.slice(0, 1)).toEqual(before);
    expect(after).toHaveLength(2);
    expect(after[1].endsWith('*')).toBe(false);

    // The new photo is served by the job photo route at once (the upload), then as the upright JPEG.
    const added = confirmed.body.photos.find((p: any) => p.ordering === 1);
    const servedFormat = async () => {
      const served = await request('GET', added.url);
      expect(served.status).toBe(302);
      const fetched = await fetch(served.headers.get('location')!);
      // The worker may replace the upload between the redirect and the fetch: then the upload is gone.
      if (!fetched.ok) return null;
      return sharp(Buffer.from(await fetched.arrayBuffer())).metadata();
    };
    expect(['png', 'jpeg', undefined]).toContain((await servedFormat())?.format);
    await eventually(async () => (await servedFormat())?.format === 'jpeg', 30_000);
    expect(await servedFormat()).toMatchObject({ format: 'jpeg', width: 200, height: 150 });

    // Confirming again attaches nothing more.
    const again = await client.post(`/api/inventory/item/${sofa.id}/photos`, { upload_key: uploadKey });
    expect(again.status).toBe(200);
    expect(summary(await getItem(sofa.id))).toEqual(after);

    // Another item cannot use the key.
    const foreign = await client.post(`/api/inventory/item/${itemNamed('Lamp').id}/photos`, { upload_key: uploadKey });
    expect(foreign.status).toBe(400);
    expect(summary(await getItem(itemNamed('Lamp').id))).toHaveLength(1);

    expect((await undo('attach_item_photo', sofa.id)).status).toBe(200);
    expect(summary(await getItem(sofa.id))).toEqual(before);
  });

  it('makes the first photo of an item without photos primary', async () => {
    const rug = itemNamed('Rug');
    const only = (await getItem(rug.id)).photos[0];
    expect((await client.delete(`/api/inventory/item/${rug.id}/photos/${only.id}`)).status).toBe(200);
    expect((await getItem(rug.id)).photo_path).toBeNull();
    const { confirmed } = await upload(rug.id, await texturedJpeg(8));
    expect(summary(confirmed.body)).toEqual([expect.stringMatching(/\*$/)]);
  });

  it('refuses a non-image: extension 422, over the limit 413, undecodable bytes 422 with nothing attached', async () => {
    const lamp = itemNamed('Lamp');
    const before = summary(await getItem(lamp.id));
    expect((await issue(client, lamp.id, 'photos', { filename: 'notes.txt', size: 10 })).status).toBe(422);
    expect((await issue(client, lamp.id, 'photos', { filename: 'huge.jpg', size: 101 * 1024 * 1024 })).status).toBe(
      413,
    );
    expect((await issue(client, lamp.id, 'photos', { filename: 'a.jpg', size: 10, extra: 1 } as any)).status).toBe(422);
    const { confirmed } = await upload(lamp.id, Buffer.from('this is not an image at all'), 'photos', 'fake.jpg');
    expect(confirmed.status).toBe(422);
    expect(confirmed.body.detail).toMatch(/not a readable image/i);
    expect(summary(await getItem(lamp.id))).toEqual(before);
  });

  it('answers 400 for an upload that never arrived', async () => {
    const lamp = itemNamed('Lamp');
    const issued = await issue(client, lamp.id, 'photos', { filename: 'x.jpg', size: 100 });
    const res = await client.post(`/api/inventory/item/${lamp.id}/photos`, { upload_key: issued.body.upload_key });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/Upload not found/);
  });
});

describe('replace primary', () => {
  it('puts the upload in the primary place and undoes back', async () => {
    const chair = itemNamed('Chair');
    // A key issued by the attach route is not good for replace.
    const { uploadKey } = await upload(chair.id, await texturedJpeg(10), 'photos');
    expect((await client.put(`/api/inventory/item/${chair.id}/photo`, { upload_key: uploadKey })).status).toBe(400);
    expect((await undo('attach_item_photo', chair.id)).status).toBe(200);

    const before = summary(await getItem(chair.id));
    const { confirmed } = await upload(chair.id, await texturedJpeg(9), 'photo');
    expect(confirmed.status).toBe(200);
    const after = summary(confirmed.body);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toEqual(before[0]);
    expect(after[0].endsWith('*')).toBe(true);

    expect((await undo('replace_item_photo', chair.id)).status).toBe(200);
    expect(summary(await getItem(chair.id))).toEqual(before);
  });
});

describe('delete, set primary, reorder', () => {
  let table: any;
  let ids: string[];

  beforeAll(async () => {
    table = itemNamed('Table');
    await upload(table.id, await texturedJpeg(11));
    await upload(table.id, await texturedJpeg(12));
    ids = (await getItem(table.id)).photos.sort((a: any, b: any) => a.ordering - b.ordering).map((p: any) => p.id);
    expect(ids).toHaveLength(3);
  });

  it('promotes the next photo when the primary is deleted, and undoes', async () => {
    const before = summary(await getItem(table.id));
    const res = await client.delete(`/api/inventory/item/${table.id}/photos/${ids[0]}`);
    expect(res.status).toBe(200);
    expect(summary(res.body)).toEqual([`${ids[1]}*`, ids[2]]);
    expect((await undo('delete_item_photo', table.id)).status).toBe(200);
    expect(summary(await getItem(table.id))).toEqual(before);
  });

  it('sets the primary and undoes', async () => {
    const res = await client.put(`/api/inventory/item/${table.id}/photos/${ids[2]}`, { is_primary: true });
    expect(res.status).toBe(200);
    expect(summary(res.body)).toEqual([ids[0], ids[1], `${ids[2]}*`]);
    expect((await undo('update_item_photo', table.id)).status).toBe(200);
    expect(summary(await getItem(table.id))).toEqual([`${ids[0]}*`, ids[1], ids[2]]);
  });

  it('reorders and undoes', async () => {
    const res = await client.put(`/api/inventory/item/${table.id}/photos/${ids[2]}`, { ordering: 0 });
    expect(res.status).toBe(200);
    expect(summary(res.body)).toEqual([ids[2], `${ids[0]}*`, ids[1]]);
    expect((await undo('update_item_photo', table.id)).status).toBe(200);
    expect(summary(await getItem(table.id))).toEqual([`${ids[0]}*`, ids[1], ids[2]]);
  });

  it('refuses bad bodies and another item photo', async () => {
    const url = `/api/inventory/item/${table.id}/photos/${ids[1]}`;
    expect((await client.put(url, {})).status).toBe(422);
    expect((await client.put(url, { is_primary: false })).status).toBe(422);
    expect((await client.put(url, { ordering: -1 })).status).toBe(422);
    expect((await client.put(url, { ordering: 1, color: 'red' })).status).toBe(422);
    const lampPhoto = (await getItem(itemNamed('Lamp').id)).photos[0].id;
    expect((await client.put(`/api/inventory/item/${table.id}/photos/${lampPhoto}`, { is_primary: true })).status).toBe(
      404,
    );
    expect((await client.delete(`/api/inventory/item/${table.id}/photos/${lampPhoto}`)).status).toBe(404);
    expect(summary(await getItem(table.id))).toEqual([`${ids[0]}*`, ids[1], ids[2]]);
  });

  it('answers 409 when undone after a newer change', async () => {
    await client.put(`/api/inventory/item/${table.id}/photos/${ids[1]}`, { is_primary: true });
    const entry = await entryOf('update_item_photo', table.id);
    await client.put(`/api/inventory/item/${table.id}/photos/${ids[1]}`, { ordering: 2 });
    const res = await client.post(`/api/activity/${entry.id}/restore`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/changed since/);
    expect(summary(await getItem(table.id))).toEqual([ids[0], ids[2], `${ids[1]}*`]);
  });

  it('keeps exactly one primary under concurrent set-primary calls', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = round % 2 ? [ids[0], ids[2]] : [ids[2], ids[1]];
      const results = await Promise.all(
        [a, b].map((id) => client.put(`/api/inventory/item/${table.id}/photos/${id}`, { is_primary: true })),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const primaries = summary(await getItem(table.id)).filter((s) => s.endsWith('*'));
      expect(primaries).toHaveLength(1);
      expect([`${a}*`, `${b}*`]).toContain(primaries[0]);
    }
  });
});

describe('move', () => {
  it('moves a photo to another item of the team, and undoes', async () => {
    const desk = itemNamed('Desk');
    const sofa = itemNamed('Sofa');
    const deskBefore = summary(await getItem(desk.id));
    const sofaBefore = summary(await getItem(sofa.id));
    const photoId = (await getItem(desk.id)).photos[0].id;
    const res = await client.put(`/api/inventory/item/${desk.id}/photos/${photoId}/move`, { target_item_id: sofa.id });
    expect(res.status).toBe(200);
    expect(summary(res.body.item)).toEqual([]);
    expect(summary(res.body.target_item)).toEqual([...sofaBefore, photoId]);
    expect(summary(await getItem(sofa.id))).toEqual([...sofaBefore, photoId]);

    expect((await undo('move_item_photo', desk.id)).status).toBe(200);
    expect(summary(await getItem(desk.id))).toEqual(deskBefore);
    expect(summary(await getItem(sofa.id))).toEqual(sofaBefore);
  });

  it("refuses the same item (400) and another team's item (404), changing nothing", async () => {
    const desk = itemNamed('Desk');
    const before = summary(await getItem(desk.id));
    const photoId = (await getItem(desk.id)).photos[0].id;
    const url = `/api/inventory/item/${desk.id}/photos/${photoId}/move`;
    expect((await client.put(url, { target_item_id: desk.id })).status).toBe(400);
    expect((await client.put(url, { target_item_id: otherItems[0].id })).status).toBe(404);
    expect(summary(await getItem(desk.id))).toEqual(before);
    const theirs = await other.get(`/api/inventory/${otherItems[0].job_id}`);
    expect(theirs.body[0].photos).toHaveLength(1);
  });
});

describe('tenancy and freeze', () => {
  /** One call of every route on `itemId` (photo `photoId`, move target `targetId`). */
  async function everyRoute(c: Client, itemId: string, photoId: string, targetId: string) {
    const base = `/api/inventory/item/${itemId}`;
    return [
      (await c.post(`${base}/photos`, { filename: 'a.jpg', size: 100 })).status,
      (await c.put(`${base}/photo`, { filename: 'a.jpg', size: 100 })).status,
      (await c.delete(`${base}/photos/${photoId}`)).status,
      (await c.put(`${base}/photos/${photoId}`, { is_primary: true })).status,
      (await c.put(`${base}/photos/${photoId}/move`, { target_item_id: targetId })).status,
    ];
  }

  it("answers 404 to another team's token on every route and changes nothing", async () => {
    const sofa = await getItem(itemNamed('Sofa').id);
    const photoId = sofa.photos[0].id;
    expect(await everyRoute(other, sofa.id, photoId, otherItems[0].id)).toEqual([404, 404, 404, 404, 404]);
    expect(await getItem(sofa.id)).toEqual(sofa);
  });

  it('answers 409 on every route for a frozen item, and for a frozen move target', async () => {
    const lamp = await getItem(itemNamed('Lamp').id);
    const chair = await getItem(itemNamed('Chair').id);
    await setFields(`CLAIM#${room.claim_id}`, 'CLAIM', { estimation_submitted_at: new Date().toISOString() });
    await setFields(`ITEM#${lamp.id}`, 'ITEM', { estimation_sent_at: new Date().toISOString() });
    try {
      const frozen = await getItem(lamp.id);
      expect(await everyRoute(client, lamp.id, lamp.photos[0].id, chair.id)).toEqual([409, 409, 409, 409, 409]);
      const intoFrozen = await client.put(`/api/inventory/item/${chair.id}/photos/${chair.photos[0].id}/move`, {
        target_item_id: lamp.id,
      });
      expect(intoFrozen.status).toBe(409);
      expect(await getItem(lamp.id)).toEqual(frozen);
      expect(await getItem(chair.id)).toEqual(chair);
    } finally {
      await setFields(`CLAIM#${room.claim_id}`, 'CLAIM', { estimation_submitted_at: null });
    }
  });
});
