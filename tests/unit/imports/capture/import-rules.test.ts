import { createHmac } from 'node:crypto';
import {
  captureSignatureValid,
  claimNumberOf,
  downloadCap,
  downloadUnits,
  photoPlaces,
  roomNameOf,
  runStatus,
  selectMedia,
  settledGroups,
  type SourceMedia,
  UNSORTED_ROOM,
  uploadLimit,
} from '../../../../lib/imports/capture/import-rules';

const media = (id: string, over: Partial<SourceMedia> = {}): SourceMedia => ({
  id,
  type: 'photo',
  location_id: 'kitchen',
  group_id: null,
  filename: `${id}.jpg`,
  content_type: 'image/jpeg',
  size_bytes: 10,
  captured_at: null,
  synced: true,
  submitted: false,
  ...over,
});

const all = [
  media('a', { group_id: 'fridge' }),
  media('b', { group_id: 'fridge', submitted: true }),
  media('c', { location_id: 'garage', type: 'video' }),
  media('d', { synced: false }),
  media('e', { location_id: null, type: 'audio', submitted: true }),
  media('a'),
];
const ids = (list: SourceMedia[]) => list.map((m) => m.id);

describe('capture import rules', () => {
  it('selects synced media, the whole assignment by default, each once, in capture order', () => {
    expect(ids(selectMedia(all, { assignment_id: 'x', target: { mode: 'new_claim' } }))).toEqual(['a', 'b', 'c', 'e']);
    expect(ids(selectMedia(all, { assignment_id: 'x', target: { mode: 'new_claim' }, select: [] }))).toEqual([
      'a',
      'b',
      'c',
      'e',
    ]);
  });

  it('unions the select scopes, removes the exclude scopes, and applies the filters', () => {
    const base = { assignment_id: 'x', target: { mode: 'new_claim' as const } };
    expect(
      ids(
        selectMedia(all, {
          ...base,
          select: [
            { scope: 'location', id: 'garage' },
            { scope: 'group', id: 'fridge' },
          ],
        }),
      ),
    ).toEqual(['a', 'b', 'c']);
    expect(
      ids(
        selectMedia(all, {
          ...base,
          select: [{ scope: 'assignment' }],
          exclude: [
            { scope: 'media', ids: ['b', 'c'] },
            { scope: 'location', id: 'nowhere' },
          ],
        }),
      ),
    ).toEqual(['a', 'e']);
    expect(ids(selectMedia(all, { ...base, filters: { types: ['video', 'audio'] } }))).toEqual(['c', 'e']);
    expect(ids(selectMedia(all, { ...base, filters: { types: [], submitted_only: true } }))).toEqual(['b', 'e']);
    expect(ids(selectMedia(all, { ...base, select: [{ scope: 'media', ids: ['d', 'e'] }] }))).toEqual(['e']);
  });

  it('names rooms after locations, an unknown or missing one Unsorted, and claims after the reference', () => {
    const locations = new Map([
      ['kitchen', ' Kitchen '],
      ['blank', ' '],
    ]);
    expect(roomNameOf(media('a'), locations)).toBe('Kitchen');
    expect(roomNameOf(media('a', { location_id: null }), locations)).toBe(UNSORTED_ROOM);
    expect(roomNameOf(media('a', { location_id: 'blank' }), locations)).toBe(UNSORTED_ROOM);
    expect(roomNameOf(media('a', { location_id: 'gone' }), locations)).toBe(UNSORTED_ROOM);
    expect(claimNumberOf({ id: 'a1', reference: ' CLM-1 ', title: 'Visit' })).toBe('CLM-1');
    expect(claimNumberOf({ id: 'a1', reference: '', title: '12 Elm' })).toBe('12 Elm');
    expect(claimNumberOf({ id: 'a1', reference: '', title: '' })).toBe('Assignment a1');
  });

  it('numbers a room job’s photos and groups a capture group under its first photo; settles groups missing photos', () => {
    const places = photoPlaces(['g1', null, 'g1', 'g2', 'g2'], 3);
    expect(places).toEqual([
      { index: 3, group_index: 3 },
      { index: 4, group_index: 4 },
      { index: 5, group_index: 3 },
      { index: 6, group_index: 6 },
      { index: 7, group_index: 6 },
    ]);
    expect(photoPlaces([null])).toEqual([{ index: 0, group_index: 0 }]);
    // Photo 3 did not arrive: its group is named by photo 5 now.
    const settled = settledGroups(places.filter((p) => p.index !== 3));
    expect(Object.fromEntries(settled)).toEqual({ 4: 4, 5: 5, 6: 6, 7: 6 });
  });

  it('cuts downloads into units by count and bytes, a large item alone', () => {
    const sizes = [5, 5, 5, 50, 1, 1, 1].map((size_bytes) => ({ size_bytes }));
    expect(downloadUnits(sizes, 3, 12).map((u) => u.map((x) => x.size_bytes))).toEqual([[5, 5], [5], [50], [1, 1, 1]]);
    expect(downloadUnits([], 3, 12)).toEqual([]);
  });

  it("holds a download to the bytes declared for it, within its type's upload limit", () => {
    const MB = 1024 * 1024;
    const limits = { photoBytes: 100 * MB, recordingBytes: 2000 * MB };
    expect(downloadCap({ type: 'photo', size_bytes: 123_456 }, limits)).toEqual({
      maxBytes: 123_456,
      words: 'the 123456 bytes the capture source declared',
    });
    expect(downloadCap({ type: 'video', size_bytes: 2000 * MB }, limits)).toMatchObject({ maxBytes: 2000 * MB });
    expect(downloadCap({ type: 'photo', size_bytes: 0 }, limits)).toMatchObject({ maxBytes: 0 });
    // Declared over the limit: not downloaded at all.
    expect(downloadCap({ type: 'photo', size_bytes: 100 * MB + 1 }, limits)).toBe(
      'Not downloaded: the capture source declares 104857601 bytes, over the 100 MB limit for a single photo.',
    );
    expect(downloadCap({ type: 'audio', size_bytes: 2100 * MB }, { ...limits, recordingBytes: 1.5 * MB })).toBe(
      'Not downloaded: the capture source declares 2202009600 bytes, over the 1.5 MB limit for video and audio.',
    );
    // A photo's proxy declares nothing: the photo limit holds it.
    expect(uploadLimit('photo', limits)).toEqual({ maxBytes: 100 * MB, words: 'the 100 MB limit for a single photo' });
  });

  it('ends a run complete, partial or failed', () => {
    expect(runStatus({ imported: 3, failed: 0 })).toBe('complete');
    expect(runStatus({ imported: 0, failed: 0 })).toBe('complete');
    expect(runStatus({ imported: 2, failed: 1 })).toBe('partial');
    expect(runStatus({ imported: 0, failed: 1 })).toBe('failed');
  });

  it('checks the webhook signature on the raw bytes', () => {
    const body = Buffer.from('{"id":"evt"}');
    const good = `sha256=${createHmac('sha256', 'secret').update(body).digest('hex')}`;
    expect(captureSignatureValid(body, good, 'secret')).toBe(true);
    expect(captureSignatureValid(body, ` ${good.toUpperCase().replace('SHA256', 'sha256')} `, 'secret')).toBe(true);
    expect(captureSignatureValid(Buffer.from('{"id":"evt2"}'), good, 'secret')).toBe(false);
    expect(captureSignatureValid(body, good, 'other')).toBe(false);
    expect(captureSignatureValid(body, good, '')).toBe(false);
    expect(captureSignatureValid(body, undefined, 'secret')).toBe(false);
    expect(captureSignatureValid(body, 'sha1=abc', 'secret')).toBe(false);
  });
});
