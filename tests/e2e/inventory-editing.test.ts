/**
 * Item editing over HTTP: edit, archive/unarchive, approve and flag,
 * auto-approve and bulk patch; team scoping (another team's token → 404, nothing
 * changed), the estimation-platform freeze (409; approval still allowed), bad
 * input (422/400, nothing written) and the undo of every action through
 * POST /api/activity/{log_id}/restore.
 */
import type { Client } from '../support/api';
import { setFields } from '../support/aws';
import { jobWithItems, teamWithRoom } from '../support/inventory';
import { newRoom, type TestRoom } from '../support/uploads';

const ITEM_CHANGED_SINCE = 'This item has changed since; undoing would overwrite newer work.';

let alice: Client;
let mallory: Client; // another team
let room: TestRoom;
let job: { jobId: string; items: any[] }; // Sofa, Cushion | Lamp | Table, Chair, Rug
let autoJob: { jobId: string; items: any[] }; // same claim: Vase, Clock | Mirror
let frozenRoom: TestRoom; // a second claim of Alice's team, sent to the estimation platform below
let frozenJob: { jobId: string; items: any[] }; // Piano | Bench

beforeAll(async () => {
  const a = await teamWithRoom('Living room');
  alice = a.client;
  room = a.room;
  mallory = (await teamWithRoom()).client;
  frozenRoom = await newRoom(alice, 'Music room');
  [job, autoJob, frozenJob] = await Promise.all([
    jobWithItems(alice, room.id, [['Sofa', 'Cushion'], ['Lamp'], ['Table', 'Chair', 'Rug']]),
    jobWithItems(alice, room.id, [['Vase', 'Clock'], ['Mirror']]),
    jobWithItems(alice, frozenRoom.id, [['Piano'], ['Bench']]),
  ]);
}, 180_000);

const byName = (j: { items: any[] }, name: string) => j.items.find((i) => i.name === name);

/** The item as GET /api/inventory/{job_id}?archived=true shows it now. */
async function readItem(jobId: string, itemId: string) {
  const list = await alice.get(`/api/inventory/${jobId}?archived=true`);
  return list.body.find((i: any) => i.id === itemId);
}

/** Alice's newest feed entry of this type about this entity. */
async function entryOf(actionType: string, entityId: string) {
  const feed = (await alice.get('/api/activity?limit=100')).body.items;
  const entry = feed.find((e: any) => e.action_type === actionType && e.entity_id === entityId);
  if (!entry) throw new Error(`no ${actionType} entry for ${entityId}`);
  return entry;
}

const undo = (logId: string, client = alice) => client.post(`/api/activity/${logId}/restore`);

describe('PUT /api/inventory/item/{item_id}', () => {
  it('edits fields (title as name), marks reviewed, answers the list shape, and undoes', async () => {
    const sofa = byName(job, 'Sofa');
    expect(sofa.reviewed).toBe(false);
    const res = await alice.put(`/api/inventory/item/${sofa.id}`, {
      title: 'Leather sofa',
      quantity: 2,
      brand: 'Ikea',
      estimated_price: 450.5,
      notes: 'Left arm scuffed',
      room: 'Lounge',
      model: 'KIVIK',
      serial: 'SN-1',
      damage: 'Water',
      sku: 'SKU-9',
      condition: 'Fair',
      age: '3 years',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: sofa.id,
      name: 'Leather sofa',
      quantity: 2,
      brand: 'Ikea',
      estimated_price: 450.5,
      room: 'Lounge',
      reviewed: true,
      photos: sofa.photos,
    });
    expect(await readItem(job.jobId, sofa.id)).toEqual(res.body);

    const entry = await entryOf('update_item', sofa.id);
    // Named as the item is called now.
    expect(entry).toMatchObject({
      restorable: true,
      entity_type: 'item',
      target: `Item #${sofa.item_number} Leather sofa`,
    });
    expect(entry.snapshot.before).toMatchObject({ name: 'Sofa', quantity: 1, brand: null, reviewed: false });
    expect((await undo(entry.id)).status).toBe(200);
    expect(await readItem(job.jobId, sofa.id)).toMatchObject({
      name: 'Sofa',
      quantity: 1,
      brand: null,
      estimated_price: sofa.estimated_price,
      room: sofa.room,
      reviewed: false,
    });
  });

  it('refuses unknown fields, wrong types, bad quantities and an empty body with 422, writing nothing', async () => {
    const lamp = byName(job, 'Lamp');
    const before = await readItem(job.jobId, lamp.id);
    for (const body of [
      { colour: 'red' },
      { name: 'Lamp 2', colour: 'red' },
      { quantity: -1 },
      { quantity: 0 },
      { quantity: 1.5 },
      { quantity: '2' },
      { estimated_price: -5 },
      { estimated_price: 'cheap' },
      { name: 42 },
      { name: null },
      { name: 'A', title: 'B' },
      {},
    ]) {
      const res = await alice.put(`/api/inventory/item/${lamp.id}`, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 422]);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    expect(await readItem(job.jobId, lamp.id)).toEqual(before);
  });

  it('answers 409 to the undo of an edit when the item changed again since', async () => {
    const chair = byName(job, 'Chair');
    await alice.put(`/api/inventory/item/${chair.id}`, { notes: 'first' });
    const first = await entryOf('update_item', chair.id);
    await alice.put(`/api/inventory/item/${chair.id}`, { notes: 'second' });
    const res = await undo(first.id);
    expect(res.status).toBe(409);
    expect(res.body.detail).toBe(ITEM_CHANGED_SINCE);
    expect((await readItem(job.jobId, chair.id)).notes).toBe('second');
    // The refused undo is not spent: it stays available.
    expect(
      (await alice.get('/api/activity?limit=100')).body.items.find((e: any) => e.id === first.id).restored_at,
    ).toBe(null);
  });
});

describe('archive and unarchive', () => {
  const roomCounts = async () =>
    (await alice.get(`/api/claims/${room.claim_id}/rooms`)).body.find((r: any) => r.id === room.id).counts.items;

  it('archives out of the default list and the room counts, unarchives, and undoes both', async () => {
    const rug = byName(job, 'Rug');
    const countBefore = await roomCounts();
    const archived = await alice.post(`/api/inventory/item/${rug.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ is_archived: true, archived_at: expect.any(String) });
    expect((await alice.get(`/api/inventory/${job.jobId}`)).body.some((i: any) => i.id === rug.id)).toBe(false);
    expect((await readItem(job.jobId, rug.id)).is_archived).toBe(true);
    expect(await roomCounts()).toBe(countBefore - 1);

    const archiveEntry = await entryOf('archive_item', rug.id);
    expect((await undo(archiveEntry.id)).status).toBe(200);
    expect(await readItem(job.jobId, rug.id)).toMatchObject({ is_archived: false, archived_at: null });
    expect(await roomCounts()).toBe(countBefore);

    await alice.post(`/api/inventory/item/${rug.id}/archive`);
    const restored = await alice.post(`/api/inventory/item/${rug.id}/unarchive`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ is_archived: false, archived_at: null });
    expect((await alice.get(`/api/inventory/${job.jobId}`)).body.some((i: any) => i.id === rug.id)).toBe(true);

    const unarchiveEntry = await entryOf('unarchive_item', rug.id);
    expect((await undo(unarchiveEntry.id)).status).toBe(200);
    expect(await readItem(job.jobId, rug.id)).toMatchObject({ is_archived: true, archived_at: expect.any(String) });
    expect(await roomCounts()).toBe(countBefore - 1);
    await alice.post(`/api/inventory/item/${rug.id}/unarchive`);
  });

  it('refuses to archive an item submitted to the claims platform (400), writing nothing', async () => {
    const cushion = byName(job, 'Cushion');
    await setFields(`ITEM#${cushion.id}`, 'ITEM', { claims_platform_submitted_at: new Date().toISOString() });
    const before = await readItem(job.jobId, cushion.id);
    const res = await alice.post(`/api/inventory/item/${cushion.id}/archive`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('This item has been submitted and cannot be archived.');
    expect(await readItem(job.jobId, cushion.id)).toEqual(before);
  });
});

describe('POST /api/inventory/{job_id}/approve', () => {
  it('approves and unapproves, flags, undoes, and answers 404 for an item of another job', async () => {
    const table = byName(job, 'Table');
    const approved = await alice.post(`/api/inventory/${job.jobId}/approve`, { item_id: table.id, approved: true });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: table.id, approved: true });
    const entry = await entryOf('approve_item', table.id);
    expect(entry.action_label).toBe('Approved item');
    expect((await undo(entry.id)).status).toBe(200);
    expect((await readItem(job.jobId, table.id)).approved).toBe(false);

    const flagged = await alice.post(`/api/inventory/${job.jobId}/approve`, { item_id: table.id, needs_review: true });
    expect(flagged.body).toMatchObject({ approved: false, needs_review: true });
    await alice.post(`/api/inventory/${job.jobId}/approve`, { item_id: table.id, approved: true, needs_review: false });
    expect(await readItem(job.jobId, table.id)).toMatchObject({ approved: true, needs_review: false });
    const unapproved = await alice.post(`/api/inventory/${job.jobId}/approve`, { item_id: table.id, approved: false });
    expect(unapproved.body.approved).toBe(false);

    const otherJobs = await alice.post(`/api/inventory/${job.jobId}/approve`, {
      item_id: byName(autoJob, 'Vase').id,
      approved: true,
    });
    expect(otherJobs.status).toBe(404);
    expect((await readItem(autoJob.jobId, byName(autoJob, 'Vase').id)).approved).toBe(false);
    for (const body of [
      { item_id: table.id },
      { item_id: table.id, approved: 'yes' },
      { item_id: 'x', approved: true },
    ])
      expect((await alice.post(`/api/inventory/${job.jobId}/approve`, body)).status).toBe(422);
  });
});

describe('POST /api/inventory/{job_id}/auto-approve', () => {
  it("approves the job's unapproved items the saved rules allow, and undoes as one action", async () => {
    const mirror = byName(autoJob, 'Mirror');
    const off = await alice.post(`/api/inventory/${autoJob.jobId}/auto-approve`);
    expect(off.body).toEqual({ approved: 0, item_ids: [] });

    const rules = { enabled: true, min_confidence: 0.85, exclude_name_keywords: ['clock'] };
    expect((await alice.put('/api/settings/automation', { auto_approve: rules })).status).toBe(200);
    await alice.post(`/api/inventory/item/${mirror.id}/archive`);
    const res = await alice.post(`/api/inventory/${autoJob.jobId}/auto-approve`);
    expect(res.status).toBe(200);
    const vase = byName(autoJob, 'Vase');
    expect(res.body).toEqual({ approved: 1, item_ids: [vase.id] });
    expect((await readItem(autoJob.jobId, vase.id)).approved).toBe(true);
    expect((await readItem(autoJob.jobId, mirror.id)).approved).toBe(false);

    const entry = await entryOf('auto_approve_items', autoJob.jobId);
    expect((await undo(entry.id)).status).toBe(200);
    expect((await readItem(autoJob.jobId, vase.id)).approved).toBe(false);
    await alice.put('/api/settings/automation', { auto_approve: { enabled: false } });
  });
});

describe('POST /api/inventory/{job_id}/bulk', () => {
  it('patches many items, skips submitted ones, undoes as one action, and refuses the undo after a newer edit', async () => {
    const [table, chair, cushion] = ['Table', 'Chair', 'Cushion'].map((n) => byName(job, n)); // Cushion is submitted
    const before = await Promise.all([table, chair].map((i) => readItem(job.jobId, i.id)));
    const res = await alice.post(`/api/inventory/${job.jobId}/bulk`, {
      item_ids: [table.id, chair.id, cushion.id],
      patch: { condition: 'Water damaged', age: '10 years' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: [table.id, chair.id], skipped: [cushion.id] });
    for (const i of [table, chair])
      expect(await readItem(job.jobId, i.id)).toMatchObject({
        condition: 'Water damaged',
        age: '10 years',
        reviewed: true,
      });
    expect((await readItem(job.jobId, cushion.id)).condition).not.toBe('Water damaged');

    const entry = await entryOf('bulk_update_items', job.jobId);
    expect((await undo(entry.id)).status).toBe(200);
    for (const b of before)
      expect(await readItem(job.jobId, b.id)).toMatchObject({
        condition: b.condition,
        age: b.age,
        reviewed: b.reviewed,
      });

    await alice.post(`/api/inventory/${job.jobId}/bulk`, { item_ids: [table.id, chair.id], patch: { quantity: 4 } });
    const second = await entryOf('bulk_update_items', job.jobId);
    await alice.put(`/api/inventory/item/${chair.id}`, { quantity: 5 });
    const refused = await undo(second.id);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(ITEM_CHANGED_SINCE);
    // All or nothing: the table keeps the patch too.
    expect((await readItem(job.jobId, table.id)).quantity).toBe(4);
  });

  it('refuses bad patches (422) and items of another claim (400), writing nothing', async () => {
    const lamp = byName(job, 'Lamp');
    const before = await readItem(job.jobId, lamp.id);
    for (const body of [
      { item_ids: [lamp.id], patch: {} },
      { item_ids: [lamp.id], patch: { colour: 'red' } },
      { item_ids: [lamp.id], patch: { quantity: -3 } },
      { item_ids: [lamp.id], patch: { quantity: 'many' } },
      { item_ids: [], patch: { notes: 'x' } },
      { item_ids: ['not-a-uuid'], patch: { notes: 'x' } },
      { item_ids: [lamp.id], patch: { notes: 'x' }, extra: true },
    ])
      expect([JSON.stringify(body), (await alice.post(`/api/inventory/${job.jobId}/bulk`, body)).status]).toEqual([
        JSON.stringify(body),
        422,
      ]);
    const otherClaim = await alice.post(`/api/inventory/${job.jobId}/bulk`, {
      item_ids: [byName(frozenJob, 'Bench').id],
      patch: { notes: 'x' },
    });
    expect(otherClaim.status).toBe(400);
    const twoClaims = await alice.post(`/api/inventory/${job.jobId}/bulk`, {
      item_ids: [lamp.id, byName(frozenJob, 'Bench').id],
      patch: { notes: 'x' },
    });
    expect(twoClaims.status).toBe(400);
    expect(await readItem(job.jobId, lamp.id)).toEqual(before);
  });
});

describe('another team', () => {
  it('gets 404 on every route and changes nothing', async () => {
    const lamp = byName(job, 'Lamp');
    const before = await Promise.all(job.items.map((i) => readItem(job.jobId, i.id)));
    const calls = [
      mallory.put(`/api/inventory/item/${lamp.id}`, { name: 'Mine' }),
      mallory.post(`/api/inventory/item/${lamp.id}/archive`),
      mallory.post(`/api/inventory/item/${lamp.id}/unarchive`),
      mallory.post(`/api/inventory/${job.jobId}/approve`, { item_id: lamp.id, approved: true }),
      mallory.post(`/api/inventory/${job.jobId}/auto-approve`),
      mallory.post(`/api/inventory/${job.jobId}/bulk`, { item_ids: [lamp.id], patch: { notes: 'x' } }),
    ];
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404]);
    expect(await Promise.all(job.items.map((i) => readItem(job.jobId, i.id)))).toEqual(before);

    await alice.put(`/api/inventory/item/${lamp.id}`, { notes: 'for undo' });
    const entry = await entryOf('update_item', lamp.id);
    expect((await undo(entry.id, mallory)).status).toBe(404);
    expect((await readItem(job.jobId, lamp.id)).notes).toBe('for undo');
  });
});

describe('items sent to the estimation platform', () => {
  it('refuse edit, bulk, archive, unarchive and the undo of an edit (409); approval stays allowed', async () => {
    const [piano, bench] = ['Piano', 'Bench'].map((n) => byName(frozenJob, n));
    await alice.put(`/api/inventory/item/${piano.id}`, { notes: 'tuned' });
    const edit = await entryOf('update_item', piano.id);
    const now = new Date().toISOString();
    await setFields(`CLAIM#${frozenRoom.claim_id}`, 'CLAIM', { estimation_submitted_at: now });
    await setFields(`ITEM#${piano.id}`, 'ITEM', { estimation_sent_at: now });
    const before = await Promise.all([piano, bench].map((i) => readItem(frozenJob.jobId, i.id)));

    const refused = [
      await alice.put(`/api/inventory/item/${piano.id}`, { name: 'Grand piano' }),
      await alice.post(`/api/inventory/item/${piano.id}/archive`),
      await alice.post(`/api/inventory/item/${piano.id}/unarchive`),
      await alice.post(`/api/inventory/${frozenJob.jobId}/bulk`, {
        item_ids: [bench.id, piano.id],
        patch: { condition: 'New' },
      }),
      await undo(edit.id),
    ];
    expect(refused.map((r) => r.status)).toEqual([409, 409, 409, 409, 409]);
    expect(refused[0].body.detail).toMatch(/sent to the estimation platform/);
    expect(await Promise.all([piano, bench].map((i) => readItem(frozenJob.jobId, i.id)))).toEqual(before);

    // The unsent item of the same claim stays editable.
    expect((await alice.put(`/api/inventory/item/${bench.id}`, { condition: 'New' })).status).toBe(200);

    const approved = await alice.post(`/api/inventory/${frozenJob.jobId}/approve`, {
      item_id: piano.id,
      approved: true,
      needs_review: true,
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ approved: true, needs_review: true });
    expect((await undo((await entryOf('approve_item', piano.id)).id)).status).toBe(200);
    expect(await readItem(frozenJob.jobId, piano.id)).toMatchObject({ approved: false, needs_review: false });
  });
});
