/**
 * Item numbers under contention (lib/inventory/numbering/item-number-store.ts allocateItemNumbers,
 * on the shared retry policy): batches of one claim racing for numbers each
 * get their own consecutive range, a repeated batch gets its first range
 * back, and a claim that is gone fails instead of retrying. Insert-between
 * (lib/inventory/numbering/item-placement-store.ts) racing pipeline batches keeps every
 * number once, and a renumber whose holder died is finished by the next caller.
 */
import { randomUUID } from 'node:crypto';
import { putNewClaim } from '../../lib/claims/store';
import { allocateItemNumbers } from '../../lib/inventory/numbering/item-number-store';
import { placeItemRows } from '../../lib/inventory/numbering/item-placement-store';
import { itemRowOf, saveItemBatch } from '../../lib/inventory/item-store';
import { manualItem } from '../../lib/inventory/editing/lifecycle-rules';
import { listRoomItems } from '../../lib/inventory/numbering/room-item-store';
import { putNewRoom } from '../../lib/rooms/store';
import { getRow, setFields } from '../support/aws';

describe('allocateItemNumbers', () => {
  it('gives racing batches of one claim disjoint consecutive ranges after the claim maximum', async () => {
    const claim = await putNewClaim(randomUUID(), randomUUID(), { claim_number: 'IT-numbers' });
    const jobId = randomUUID();
    const sizes = [3, 1, 4, 1, 5, 9, 2, 6];
    const ranges = await Promise.all(
      sizes.map((count, i) => allocateItemNumbers(claim.id, jobId, `pass1#${i}`, count)),
    );

    expect(ranges.map((r) => r.count)).toEqual(sizes);
    const numbers = ranges.flatMap((r) => Array.from({ length: r.count }, (_, k) => r.first + k)).sort((a, b) => a - b);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(numbers).toEqual(Array.from({ length: total }, (_, k) => k + 1));
    expect((await getRow(`CLAIM#${claim.id}`, 'CLAIM'))?.item_number_max).toBe(total);

    // The same batch again: its first range, nothing new taken.
    await expect(allocateItemNumbers(claim.id, jobId, 'pass1#5', 9)).resolves.toEqual(ranges[5]);
    expect((await getRow(`CLAIM#${claim.id}`, 'CLAIM'))?.item_number_max).toBe(total);
  });

  it('fails at once for a claim that does not exist', async () => {
    await expect(allocateItemNumbers(randomUUID(), randomUUID(), 'pass1#0', 2)).rejects.toThrow(/no longer exists/);
  });
});

describe('insert-between numbering under the claim numbering lease', () => {
  const draft = (name: string) => ({ name, quantity: 1, confidence: 0.9, source_group_index: 0, photos: [] });

  async function claimWithRooms() {
    const teamId = randomUUID();
    const claim = await putNewClaim(teamId, randomUUID(), { claim_number: 'IT-insert' });
    const rooms = [await putNewRoom(claim, 'Kitchen'), await putNewRoom(claim, 'Garage')];
    const jobIn = (room: { id: string }) => ({
      id: randomUUID(),
      room_id: room.id,
      claim_id: claim.id,
      team_id: teamId,
    });
    return { claim, rooms, jobIn };
  }

  /** Every item of the claim, by number. */
  async function claimItems(claimId: string, roomIds: string[]) {
    const rows = [];
    for (const roomId of roomIds) rows.push(...(await listRoomItems(roomId, { archived: true })));
    expect(rows.every((r) => r.claim_id === claimId)).toBe(true);
    return rows.sort((a, b) => a.item_number - b.item_number);
  }

  async function insertManual(
    job: { id: string; room_id: string; claim_id: string; team_id: string },
    name: string,
    after: number,
  ) {
    return placeItemRows(job.claim_id, { kind: 'after', number: after }, (itemNumber) => [
      itemRowOf(
        manualItem({ name, quantity: 1 }, { id: randomUUID(), job, roomName: 'Kitchen', itemNumber, now: new Date() }),
      ),
    ]);
  }

  it('keeps numbers 1..N exactly once while inserts race pipeline batches of the same claim', async () => {
    const { claim, rooms, jobIn } = await claimWithRooms();
    const first = jobIn(rooms[0]);
    const originals = await saveItemBatch(first, 'Kitchen', 'pass1#seed', 1, ['o1', 'o2', 'o3', 'o4'].map(draft));
    originals.push(...(await saveItemBatch(jobIn(rooms[1]), 'Garage', 'pass1#seed', 1, ['o5', 'o6'].map(draft))));
    expect(originals.map((i) => i.item_number)).toEqual([1, 2, 3, 4, 5, 6]);

    const sizes = [2, 3, 1, 4, 2];
    const batches = sizes.map((n, b) =>
      saveItemBatch(
        jobIn(rooms[b % 2]),
        null,
        `pass1#${b}`,
        1,
        Array.from({ length: n }, (_, i) => draft(`b${b}-${i}`)),
      ),
    );
    const inserts = ['x', 'y', 'z'].map((name) => insertManual(first, name, 0));
    const [saved, placed] = await Promise.all([Promise.all(batches), Promise.all(inserts)]);
    expect(placed).toEqual([1, 1, 1]);

    const all = await claimItems(
      claim.id,
      rooms.map((r) => r.id),
    );
    const total = 6 + 3 + sizes.reduce((a, b) => a + b, 0);
    expect(all.map((i) => i.item_number)).toEqual(Array.from({ length: total }, (_, k) => k + 1));
    // The inserts went before the first item; the originals kept their order right after them.
    expect(
      all
        .slice(0, 3)
        .map((i) => i.name)
        .sort(),
    ).toEqual(['x', 'y', 'z']);
    expect(all.slice(3, 9).map((i) => i.name)).toEqual(['o1', 'o2', 'o3', 'o4', 'o5', 'o6']);
    // Each batch's items stayed together and in order.
    for (const batch of saved) {
      const numbers = batch.map((b) => all.find((i) => i.id === b.id)?.item_number as number);
      expect(numbers).toEqual(numbers.map((_, k) => numbers[0] + k));
    }
    // Both list indexes moved with the numbers.
    for (const item of all) {
      const row = await getRow(`ITEM#${item.id}`, 'ITEM');
      expect(row?.gsi1sk).toBe(String(item.item_number).padStart(8, '0'));
      expect(row?.gsi2sk).toBe(String(item.item_number).padStart(8, '0'));
    }
    expect((await getRow(`CLAIM#${claim.id}`, 'CLAIM'))?.item_number_max).toBe(total);
  });

  it('inserts between two items across rooms, moving every later item of the claim, and refuses a missing number', async () => {
    const { claim, rooms, jobIn } = await claimWithRooms();
    const kitchen = jobIn(rooms[0]);
    await saveItemBatch(kitchen, 'Kitchen', 'pass1#a', 1, ['k1', 'k2'].map(draft));
    await saveItemBatch(jobIn(rooms[1]), 'Garage', 'pass1#a', 1, ['g3', 'g4'].map(draft));
    await expect(insertManual(kitchen, 'nope', 9)).resolves.toBeNull();
    await expect(insertManual(kitchen, 'between', 1)).resolves.toBe(2);
    const all = await claimItems(
      claim.id,
      rooms.map((r) => r.id),
    );
    expect(all.map((i) => [i.item_number, i.name, i.rev ?? 0])).toEqual([
      [1, 'k1', 0],
      [2, 'between', 0],
      [3, 'k2', 1],
      [4, 'g3', 1],
      [5, 'g4', 1],
    ]);
  });

  it('rolls forward a renumber whose holder died part way', async () => {
    const { claim, rooms, jobIn } = await claimWithRooms();
    const job = jobIn(rooms[0]);
    const items = await saveItemBatch(job, 'Kitchen', 'pass1#a', 1, ['a', 'b', 'c', 'd', 'e'].map(draft));
    // The dead holder was placing 'new' at 3: it moved e (5 -> 6) and d (4 -> 5), then stopped.
    for (const [item, to] of [
      [items[4], 6],
      [items[3], 5],
    ] as const) {
      const sk = String(to).padStart(8, '0');
      await setFields(`ITEM#${item.id}`, 'ITEM', { item_number: to, gsi1sk: sk, gsi2sk: sk });
    }
    const placedRow = itemRowOf(
      manualItem(
        { name: 'new', quantity: 1 },
        { id: randomUUID(), job, roomName: 'Kitchen', itemNumber: 3, now: new Date() },
      ),
    );
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', {
      item_number_max: 6,
      numbering_seq: 1,
      numbering_lease: {
        holder: 'dead',
        expires_at: Date.now() - 1000,
        pending_plan: { at: 3, next_number: 3, rows: [placedRow] },
      },
    });

    // The next caller of any kind finishes it first: here a pipeline batch.
    const [later] = await saveItemBatch(job, 'Kitchen', 'pass1#b', 1, [draft('f')]);
    expect(later.item_number).toBe(7);
    const all = await claimItems(
      claim.id,
      rooms.map((r) => r.id),
    );
    expect(all.map((i) => [i.item_number, i.name])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'new'],
      [4, 'c'],
      [5, 'd'],
      [6, 'e'],
      [7, 'f'],
    ]);
    const row = await getRow(`CLAIM#${claim.id}`, 'CLAIM');
    expect(row?.numbering_lease).toBeUndefined();
    expect(row?.item_number_max).toBe(7);
  });

  it('waits for a live holder rather than taking its lease', async () => {
    const { claim, rooms, jobIn } = await claimWithRooms();
    await setFields(`CLAIM#${claim.id}`, 'CLAIM', {
      numbering_lease: { holder: 'alive', expires_at: Date.now() + 1500, pending_plan: null },
    });
    const started = Date.now();
    const [item] = await saveItemBatch(jobIn(rooms[0]), null, 'pass1#a', 1, [draft('a')]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(item.item_number).toBe(1);
  });
});
