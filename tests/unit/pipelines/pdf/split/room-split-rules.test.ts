/** Covers: lib/pipelines/pdf/split/room-split-rules.ts (a claim-level import's photos split by room). */
import {
  documentRoomName,
  renumberedGroups,
  roomBuckets,
  roomMatchKey,
} from '../../../../../lib/pipelines/pdf/split/room-split-rules';

const room = (id: string, name: string, created_at = '2026-01-01T00:00:00.000Z') => ({ id, name, created_at });

describe('roomMatchKey', () => {
  it('ignores case, surrounding spaces and runs of spaces', () => {
    expect(roomMatchKey('  Living   Room ')).toBe('living room');
    expect(roomMatchKey('KITCHEN')).toBe(roomMatchKey('kitchen'));
  });
});

describe('documentRoomName', () => {
  it('is the file name without .pdf, underscores read as spaces', () => {
    expect(documentRoomName('Garage_contents.PDF')).toBe('Garage contents');
    expect(documentRoomName('list.pdf')).toBe('list');
  });
  it('falls back to "Contents list" for a name that is only an extension, and caps the length', () => {
    expect(documentRoomName('.pdf')).toBe('Contents list');
    expect(documentRoomName(`${'a'.repeat(300)}.pdf`)).toHaveLength(200);
  });
});

describe('roomBuckets', () => {
  it('matches printed room names case-insensitively against the claim rooms (the oldest of a name wins)', () => {
    const rooms = [room('r2', 'kitchen', '2026-02-01T00:00:00.000Z'), room('r1', 'Kitchen'), room('r3', 'Bedroom')];
    const buckets = roomBuckets(
      [
        { room: 'KITCHEN', documentFilename: 'a.pdf' },
        { room: 'Garage', documentFilename: 'a.pdf' },
        { room: ' kitchen ', documentFilename: 'b.pdf' },
        { room: 'bedroom', documentFilename: 'a.pdf' },
      ],
      rooms,
    );
    expect(buckets).toEqual([
      { key: 'kitchen', name: 'KITCHEN', roomId: 'r1', positions: [0, 2] },
      { key: 'garage', name: 'Garage', roomId: null, positions: [1] },
      { key: 'bedroom', name: 'bedroom', roomId: 'r3', positions: [3] },
    ]);
  });
  it('sends photos with no room to a room named after their file, spelled as first printed', () => {
    const buckets = roomBuckets(
      [
        { room: null, documentFilename: 'Vendor_list.pdf' },
        { room: '   ', documentFilename: 'Vendor_list.pdf' },
        { room: 'Den   Area', documentFilename: 'x.pdf' },
        { room: 'den area', documentFilename: 'x.pdf' },
      ],
      [],
    );
    expect(buckets).toEqual([
      { key: 'vendor list', name: 'Vendor list', roomId: null, positions: [0, 1] },
      { key: 'den area', name: 'Den Area', roomId: null, positions: [2, 3] },
    ]);
  });
  it('makes no bucket without photos', () => {
    expect(roomBuckets([], [room('r1', 'Kitchen')])).toEqual([]);
  });
});

describe('renumberedGroups', () => {
  it("numbers each group by its first photo's new index, order kept", () => {
    expect(renumberedGroups([7, 7, 9, 7, 12, 9])).toEqual([0, 0, 2, 0, 4, 2]);
    expect(renumberedGroups([])).toEqual([]);
  });
});
