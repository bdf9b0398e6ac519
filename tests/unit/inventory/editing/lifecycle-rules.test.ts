import type { InventoryItem, ItemPhoto } from '../../../../lib/inventory/item-record-rules';
import {
  MERGE_TARGET_OUTSIDE,
  MERGE_TOO_FEW,
  itemTarget,
  manualItem,
  mergePlan,
  mergeSelectionProblem,
  removedItemOf,
  restoredItem,
} from '../../../../lib/inventory/editing/lifecycle-rules';

const job = { id: 'job-1', room_id: 'room-1', claim_id: 'claim-1', team_id: 'team-1' };
const now = new Date('2026-02-01T10:00:00.000Z');

const item = (id: string, item_number: number, extra: Partial<InventoryItem> = {}): InventoryItem => ({
  ...manualItem({ name: id, quantity: 1 }, { id, job, roomName: 'Kitchen', itemNumber: item_number, now }),
  ...extra,
});

const photo = (item_id: string, id: string, ordering: number, is_primary = ordering === 0): ItemPhoto => ({
  id,
  item_id,
  filename: `${id}.jpg`,
  job_id: 'job-1',
  key: `k/${id}.jpg`,
  is_primary,
  ordering,
});

describe('manualItem', () => {
  it('is confident, reviewed, made by no pass, without photos, in the job room by default', () => {
    const made = manualItem(
      { name: 'Lamp', quantity: 2, brand: 'Acme', estimated_price: 12.5 },
      { id: 'x', job, roomName: 'Kitchen', itemNumber: 5, now },
    );
    expect(made).toMatchObject({
      id: 'x',
      job_id: 'job-1',
      room_id: 'room-1',
      claim_id: 'claim-1',
      team_id: 'team-1',
      item_number: 5,
      name: 'Lamp',
      quantity: 2,
      brand: 'Acme',
      model: null,
      estimated_price: 12.5,
      room: 'Kitchen',
      confidence: 1,
      needs_review: false,
      reviewed: true,
      approved: false,
      photo_path: null,
      created_pass: 0,
      rev: 0,
      created_at: now.toISOString(),
    });
  });

  it('takes the room given, also an explicit null', () => {
    const at = { id: 'x', job, roomName: 'Kitchen', itemNumber: 1, now };
    expect(manualItem({ name: 'A', quantity: 1, room: 'Garage' }, at).room).toBe('Garage');
    expect(manualItem({ name: 'A', quantity: 1, room: null }, at).room).toBeNull();
  });
});

describe('itemTarget', () => {
  it('names the item by number and name', () => {
    expect(itemTarget({ item_number: 12, name: 'Sofa' })).toBe('Item #12 Sofa');
  });
});

describe('mergeSelectionProblem', () => {
  it('needs two distinct items', () => {
    expect(mergeSelectionProblem([], undefined)).toBe(MERGE_TOO_FEW);
    expect(mergeSelectionProblem(['a'], undefined)).toBe(MERGE_TOO_FEW);
    expect(mergeSelectionProblem(['a', 'a'], undefined)).toBe(MERGE_TOO_FEW);
    expect(mergeSelectionProblem(['a', 'b'], undefined)).toBeNull();
  });

  it('needs the target among them', () => {
    expect(mergeSelectionProblem(['a', 'b'], 'c')).toBe(MERGE_TARGET_OUTSIDE);
    expect(mergeSelectionProblem(['a', 'b'], 'b')).toBeNull();
  });
});

describe('mergePlan', () => {
  it('keeps the lowest number and appends the others photos in number then photo order', () => {
    const a = item('a', 3, { photo_path: '/p/a0' });
    const b = item('b', 1, { photo_path: '/p/b0' });
    const c = item('c', 7);
    const photos = new Map([
      ['a', [photo('a', 'a1', 1), photo('a', 'a0', 0)]],
      ['b', [photo('b', 'b0', 0), photo('b', 'b1', 4, false)]],
    ]);
    const plan = mergePlan([a, b, c], photos, undefined);
    expect(plan.winner.id).toBe('b');
    expect(plan.losers.map((l) => l.id)).toEqual(['a', 'c']);
    expect(plan.moved.map((p) => [p.id, p.item_id, p.ordering, p.is_primary])).toEqual([
      ['a0', 'b', 5, false],
      ['a1', 'b', 6, false],
    ]);
    expect(plan.winnerFields).toEqual({ photo_path: '/p/b0', source_label: null });
  });

  it("keeps every contents-list label of the merged items, the winner's first, each once", () => {
    const a = item('a', 3, { source_label: 'Item 0019' });
    const b = item('b', 1, { source_label: 'Item 0018' });
    const c = item('c', 7, { source_label: 'item  0018' });
    const d = item('d', 9);
    expect(mergePlan([a, b, c, d], new Map(), undefined).winnerFields.source_label).toBe('Item 0018; Item 0019');
    expect(mergePlan([a, b, c, d], new Map(), 'd').winnerFields.source_label).toBe('Item 0018; Item 0019');
    expect(mergePlan([d, item('e', 10)], new Map(), undefined).winnerFields.source_label).toBeNull();
  });

  it('makes the first moved photo primary when the winner had none', () => {
    const a = item('a', 1);
    const b = item('b', 2, { photo_path: '/p/b0' });
    const plan = mergePlan([a, b], new Map([['b', [photo('b', 'b0', 0), photo('b', 'b1', 1)]]]), 'a');
    expect(plan.winner.id).toBe('a');
    expect(plan.moved.map((p) => [p.id, p.ordering, p.is_primary])).toEqual([
      ['b0', 0, true],
      ['b1', 1, false],
    ]);
    expect(plan.winnerFields.photo_path).toBe('/api/photos/job-1/b0.jpg');
  });

  it('keeps the winner photo_path when nothing moves', () => {
    const plan = mergePlan([item('a', 1), item('b', 2)], new Map(), 'b');
    expect(plan.winner.id).toBe('b');
    expect(plan.moved).toEqual([]);
    expect(plan.winnerFields.photo_path).toBeNull();
  });
});

describe('removedItemOf', () => {
  it('reads a snapshot back', () => {
    const a = item('a', 2);
    const photos = [photo('a', 'p', 0)];
    expect(removedItemOf({ item: a, photos })).toEqual({ item: a, photos });
    expect(removedItemOf({ item: a })).toEqual({ item: a, photos: [] });
  });

  it('refuses what is not one', () => {
    expect(removedItemOf(null)).toBeNull();
    expect(removedItemOf({ item: { id: 'a' } })).toBeNull();
    expect(removedItemOf({})).toBeNull();
  });
});

describe('restoredItem', () => {
  it('takes the number and moves the revision on', () => {
    const back = restoredItem(item('a', 2, { rev: 3 }), 4, now);
    expect(back).toMatchObject({ item_number: 4, rev: 4, updated_at: now.toISOString() });
    const { rev, ...withoutRev } = item('b', 1);
    void rev;
    expect(restoredItem(withoutRev as InventoryItem, 1, now).rev).toBe(1);
  });
});
