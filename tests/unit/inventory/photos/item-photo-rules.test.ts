import {
  inOrder,
  isIssuedUpload,
  itemPhotoFilename,
  itemUploadProblem,
  moveProblem,
  parseUploadKey,
  PHOTO_NOT_FOUND,
  photoOfItemProblem,
  photoWrites,
  primaryOf,
  SAME_ITEM_MOVE,
  settled,
  uploadKeyOf,
  withAppended,
  withPosition,
  withPrimary,
  withPrimaryReplaced,
  withRemoved,
} from '../../../../lib/inventory/photos/item-photo-rules';

type P = { id: string; is_primary: boolean; ordering: number; item_id?: string };

/** Photos a, b, c... in order, the first primary unless told. */
const photos = (ids: string, primary = ids[0]): P[] =>
  [...ids].map((id, ordering) => ({ id, ordering, is_primary: id === primary }));
const shape = (list: P[]) => list.map((p) => `${p.id}${p.ordering}${p.is_primary ? '*' : ''}`).join(' ');
/** Exactly one primary and ordering 0..n-1. */
const wellFormed = (list: P[]) =>
  list.length === 0 || (list.filter((p) => p.is_primary).length === 1 && list.every((p, i) => p.ordering === i));

describe('inOrder and settled', () => {
  it('sorts by ordering, ties by id', () => {
    const list = [
      { id: 'b', ordering: 1, is_primary: false },
      { id: 'c', ordering: 0, is_primary: false },
      { id: 'a', ordering: 1, is_primary: false },
    ];
    expect(inOrder(list).map((p) => p.id)).toEqual(['c', 'a', 'b']);
    expect(inOrder([list[0], list[0]]).map((p) => p.id)).toEqual(['b', 'b']);
  });

  it('renumbers gaps and keeps exactly one primary', () => {
    expect(
      shape(
        settled([
          { id: 'a', ordering: 3, is_primary: false },
          { id: 'b', ordering: 7, is_primary: true },
          { id: 'c', ordering: 9, is_primary: true },
        ]),
      ),
    ).toBe('a0 b1* c2');
    expect(shape(settled([{ id: 'a', ordering: 4, is_primary: false }]))).toBe('a0*');
    expect(settled([])).toEqual([]);
  });

  it('does not change its input', () => {
    const list = photos('ab', 'b');
    settled(list);
    expect(shape(list)).toBe('a0 b1*');
  });
});

describe('primaryOf', () => {
  it('is the primary photo, or null without photos', () => {
    expect(primaryOf(photos('abc', 'b'))?.id).toBe('b');
    expect(primaryOf([])).toBeNull();
  });
});

describe('withAppended', () => {
  it('adds at the end without taking the primary role', () => {
    const after = withAppended(photos('ab', 'b'), { id: 'n', ordering: 0, is_primary: true });
    expect(shape(after)).toBe('a0 b1* n2');
  });

  it('makes the only photo primary', () => {
    expect(shape(withAppended([], { id: 'n', ordering: 5, is_primary: false }))).toBe('n0*');
  });
});

describe('withPrimaryReplaced', () => {
  it('puts the new photo in the old primary place, primary', () => {
    expect(shape(withPrimaryReplaced(photos('abc', 'b'), { id: 'n', ordering: 9, is_primary: false }))).toBe(
      'a0 n1* c2',
    );
  });

  it('is the only photo of an item without photos', () => {
    expect(shape(withPrimaryReplaced([], { id: 'n', ordering: 3, is_primary: false }))).toBe('n0*');
  });
});

describe('withRemoved', () => {
  it('promotes the next photo when the primary goes', () => {
    expect(shape(withRemoved(photos('abc', 'a'), 'a'))).toBe('b0* c1');
    expect(shape(withRemoved(photos('abc', 'b'), 'b'))).toBe('a0 c1*');
  });

  it('promotes the one before when the last photo was primary', () => {
    expect(shape(withRemoved(photos('abc', 'c'), 'c'))).toBe('a0 b1*');
  });

  it('keeps the primary when another photo goes', () => {
    expect(shape(withRemoved(photos('abc', 'c'), 'a'))).toBe('b0 c1*');
  });

  it('leaves nothing when the only photo goes, and ignores an unknown id', () => {
    expect(withRemoved(photos('a'), 'a')).toEqual([]);
    expect(shape(withRemoved(photos('ab'), 'x'))).toBe('a0* b1');
  });
});

describe('withPrimary', () => {
  it('demotes every other photo', () => {
    expect(shape(withPrimary(photos('abc', 'a'), 'c'))).toBe('a0 b1 c2*');
  });
});

describe('withPosition', () => {
  it('moves a photo and renumbers the others', () => {
    expect(shape(withPosition(photos('abcd'), 'd', 1))).toBe('a0* d1 b2 c3');
    expect(shape(withPosition(photos('abcd'), 'a', 2))).toBe('b0 c1 a2* d3');
  });

  it('takes a position past the end as last', () => {
    expect(shape(withPosition(photos('abc'), 'a', 99))).toBe('b0 c1 a2*');
  });

  it('ignores an unknown photo', () => {
    expect(shape(withPosition(photos('ab'), 'x', 0))).toBe('a0* b1');
  });

  it('keeps the list well formed whatever the operations', () => {
    let list = photos('abcde', 'c');
    for (const [id, pos] of [
      ['e', 0],
      ['c', 4],
      ['a', 2],
      ['b', 0],
    ] as const) {
      list = withPosition(list, id, pos);
      expect(wellFormed(list)).toBe(true);
    }
    list = withRemoved(withPrimary(list, 'e'), 'e');
    expect(wellFormed(list)).toBe(true);
  });
});

describe('problems', () => {
  it('knows the photos of the item', () => {
    expect(photoOfItemProblem(photos('ab'), 'b')).toBeNull();
    expect(photoOfItemProblem(photos('ab'), 'x')).toBe(PHOTO_NOT_FOUND);
  });

  it('refuses a move onto the same item', () => {
    expect(moveProblem('i1', 'i1')).toBe(SAME_ITEM_MOVE);
    expect(moveProblem('i1', 'i2')).toBeNull();
  });
});

describe('photoWrites', () => {
  it('puts new and changed rows and removes the rows that left', () => {
    const from: P[] = [
      { id: 'a', ordering: 0, is_primary: true, item_id: 'i' },
      { id: 'b', ordering: 1, is_primary: false, item_id: 'i' },
      { id: 'c', ordering: 2, is_primary: false, item_id: 'i' },
    ];
    const to = withAppended(withRemoved(from, 'a'), { id: 'n', ordering: 0, is_primary: false, item_id: 'i' });
    const writes = photoWrites(from, to);
    expect(writes.remove.map((p) => p.id)).toEqual(['a']);
    expect(shape(writes.put)).toBe('b0* c1 n2');
  });

  it('writes nothing for the same list, and sees a field that only one side has', () => {
    const list = photos('ab');
    expect(photoWrites(list, settled(list))).toEqual({ put: [], remove: [] });
    const moved = { ...list[1], item_id: 'other' };
    expect(photoWrites(list, [list[0], moved]).put).toEqual([moved]);
  });
});

describe('uploads', () => {
  it('takes image extensions within the single-photo limit', () => {
    expect(itemUploadProblem({ filename: 'sofa.HEIC', size: 10 })).toBeNull();
    expect(itemUploadProblem({ filename: 'notes.txt', size: 10 })).toMatchObject({ status: 422 });
    expect(itemUploadProblem({ filename: 'list.pdf', size: 10 })).toMatchObject({ status: 422 });
    expect(itemUploadProblem({ filename: 'big.jpg', size: 100 * 1024 * 1024 + 1 })).toMatchObject({
      status: 413,
      detail: expect.stringContaining('100 MB'),
    });
  });

  it('round-trips upload keys and refuses anything else', () => {
    const id = '0b9f4c1e-8a3d-4c2b-9e1f-123456789abc';
    expect(parseUploadKey(uploadKeyOf(id, 42))).toEqual({ uploadId: id, index: 42 });
    expect(parseUploadKey(id)).toBeNull();
    expect(parseUploadKey(`${id}.1234567`)).toBeNull();
    expect(parseUploadKey(`../${id}.1`)).toBeNull();
  });

  it('accepts only an upload issued for this item, route and number', () => {
    const meta = { 'item-id': 'i1', 'upload-purpose': 'attach', 'photo-index': '7' };
    expect(isIssuedUpload(meta, { item_id: 'i1', purpose: 'attach', index: 7 })).toBe(true);
    expect(isIssuedUpload(meta, { item_id: 'i2', purpose: 'attach', index: 7 })).toBe(false);
    expect(isIssuedUpload(meta, { item_id: 'i1', purpose: 'replace', index: 7 })).toBe(false);
    expect(isIssuedUpload(meta, { item_id: 'i1', purpose: 'attach', index: 8 })).toBe(false);
    expect(isIssuedUpload({}, { item_id: 'i1', purpose: 'attach', index: 7 })).toBe(false);
  });

  it('names item photos in the job numbering', () => {
    expect(itemPhotoFilename(42)).toBe('item_0042.jpg');
    expect(itemPhotoFilename(123456)).toBe('item_123456.jpg');
  });
});
