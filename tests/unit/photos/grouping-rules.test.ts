/**
 * Covers: lib/photos/grouping-rules.ts (the pure grouping rules and the groups that reach the AI),
 * lib/photos/staged-photo-store.ts (new photo and segment records), lib/photos/rules.ts segmentFilename and
 * lib/media/images.ts (the crop helper, cropJpeg, on real sharp).
 */
import sharp from 'sharp';
import {
  aiGroups,
  boxProblem,
  clearSegmentsProblem,
  detailsGroup,
  groupingBlocked,
  isVisiblePhoto,
  manualName,
  planSegments,
  regroupChanges,
  regroupProblem,
  restoreProblem,
  segmentBoxCount,
  segmentItemsProblem,
  segmentsOf,
  segmentTargetProblem,
  unknownIds,
} from '../../../lib/photos/grouping-rules';
import { cropJpeg, cropRect } from '../../../lib/media/images';
import { segmentFilename } from '../../../lib/photos/rules';
import { newSegmentPhoto, newStagedPhoto } from '../../../lib/photos/staged-photo-store';

interface P {
  id: string;
  index: number;
  group_index: number;
  is_segment: boolean;
  segment_of: number | null;
  deleted: boolean;
  hidden_by_segments: boolean;
  manual_name: string | null;
}

const photo = (index: number, over: Partial<P> = {}): P => ({
  id: `p${index}`,
  index,
  group_index: index,
  is_segment: false,
  segment_of: null,
  deleted: false,
  hidden_by_segments: false,
  manual_name: null,
  ...over,
});

describe('groupingBlocked', () => {
  it('allows a photo job awaiting grouping or in error, and nothing else', () => {
    expect(groupingBlocked({ source_type: 'photo', status: 'awaiting_grouping' })).toBeNull();
    expect(groupingBlocked({ source_type: 'photo', status: 'error' })).toBeNull();
    for (const status of ['pending', 'analyzing', 'complete', 'importing_pdf', 'awaiting_confirmation'] as const) {
      expect(groupingBlocked({ source_type: 'photo', status })).toMatch(new RegExp(`this job is ${status}`));
    }
    expect(groupingBlocked({ source_type: 'video', status: 'awaiting_confirmation' })).toMatch(/only a photo job/i);
  });
});

describe('regroup', () => {
  const photos = [
    photo(0),
    photo(1),
    photo(2, { deleted: true }),
    photo(3),
    photo(7, { is_segment: true, segment_of: 3, group_index: 7 }),
    photo(8, { hidden_by_segments: true }),
  ];

  it('refuses an empty group, an id twice, an unknown id (named), a segment and a group over the cap', () => {
    expect(regroupProblem(photos, [['p0'], []], 5)).toMatch(/group 2 is empty/i);
    expect(regroupProblem(photos, [['p0', 'p1'], ['p1']], 5)).toMatch(/more than once: p1/);
    expect(regroupProblem(photos, [['p0', 'p0']], 5)).toMatch(/more than once: p0/);
    expect(regroupProblem(photos, [['p0', 'nope', 'p1', 'gone']], 5)).toBe('Not photos of this job: nope, gone.');
    expect(regroupProblem(photos, [['p0', 'p7']], 5)).toMatch(/segments .*cannot be regrouped.*p7/i);
    expect(regroupProblem(photos, [['p0', 'p1', 'p3']], 2)).toMatch(
      /group 1 has 3 photos; a group can have at most 2 \(MAX_PHOTOS_PER_ITEM\)/i,
    );
  });

  it('accepts a deleted photo, a hidden photo and a group exactly at the cap', () => {
    expect(
      regroupProblem(
        photos,
        [
          ['p0', 'p2'],
          ['p8', 'p1'],
        ],
        2,
      ),
    ).toBeNull();
    expect(regroupProblem(photos, [], 5)).toBeNull();
  });

  it('numbers a group by its smallest index, sends unlisted whole photos home and leaves segments alone', () => {
    const grouped = photos.map((p) =>
      p.index === 1 ? { ...p, group_index: 0 } : p.index === 3 ? { ...p, group_index: 0 } : p,
    );
    // p3 and p1 were in group 0 with p0; now p3 joins p2, p0 and p1 are listed nowhere
    expect(regroupChanges(grouped, [['p3', 'p2']])).toEqual([
      { index: 1, group_index: 1 }, // back to its own group
      { index: 3, group_index: 2 }, // p2 (already in group 2) is the smallest index
    ]);
    expect(regroupChanges(photos, [['p8', 'p3', 'p1']])).toEqual([
      { index: 3, group_index: 1 },
      { index: 8, group_index: 1 },
    ]);
    // nothing listed: everything back to its own group; the segment keeps group 7
    expect(regroupChanges(grouped, [])).toEqual([
      { index: 1, group_index: 1 },
      { index: 3, group_index: 3 },
    ]);
  });
});

describe('ids, delete and restore', () => {
  it('names unknown ids once each, in order', () => {
    expect(unknownIds([photo(0), photo(1)], ['x', 'p0', 'y', 'x'])).toEqual(['x', 'y']);
  });

  it('never restores an unreadable photo', () => {
    expect(restoreProblem([{ id: 'a', original_filename: 'a.jpg', unreadable_reason: null }])).toBeNull();
    expect(restoreProblem([{ id: 'b', original_filename: 'b.jpg', unreadable_reason: 'not an image' }])).toMatch(
      /cannot be restored: b \(b\.jpg: not an image\)/,
    );
  });
});

describe('segments', () => {
  const box = { x: 0, y: 0, width: 0.5, height: 0.5 };

  it('checks boxes: inside 0..1 with a positive size', () => {
    expect(boxProblem(box)).toBeNull();
    expect(boxProblem({ x: 0.1, y: 0.2, width: 0.9, height: 0.8 })).toBeNull(); // 0.1 + 0.9 in floating point
    expect(boxProblem({ x: 0, y: 0, width: 1, height: 1 })).toBeNull();
    expect(boxProblem({ x: 0, y: 0, width: 0, height: 0.5 })).toMatch(/greater than 0/);
    expect(boxProblem({ x: 0, y: 0, width: 0.5, height: -0.1 })).toMatch(/greater than 0/);
    expect(boxProblem({ x: -0.1, y: 0, width: 0.5, height: 0.5 })).toMatch(/between 0 and 1/);
    expect(boxProblem({ x: 0.6, y: 0, width: 0.5, height: 0.5 })).toMatch(/inside the photo/);
    expect(boxProblem({ x: 0, y: 0.9, width: 0.5, height: 0.2 })).toMatch(/inside the photo/);
    expect(boxProblem({ x: 1.2, y: 0, width: 0.1, height: 0.1 })).toMatch(/between 0 and 1/);
    expect(boxProblem({ x: Number.NaN, y: 0, width: 0.1, height: 0.1 })).toMatch(/numbers/);
  });

  it('checks items: 1..cap boxes each, each box valid, naming the item and box', () => {
    expect(segmentItemsProblem([{ name: '', boxes: [box] }], 5)).toBeNull();
    expect(segmentItemsProblem([{ name: 'a', boxes: [] }], 5)).toMatch(/item 1 has no box/i);
    expect(
      segmentItemsProblem(
        [
          { name: 'a', boxes: [box] },
          { name: 'b', boxes: [box, box, box] },
        ],
        2,
      ),
    ).toMatch(/item 2 has 3 boxes; .* at most 2/i);
    expect(segmentItemsProblem([{ name: 'a', boxes: [box, { ...box, x: 0.9 }] }], 5)).toMatch(
      /item 1, box 2: .*inside the photo/i,
    );
  });

  it('refuses an unknown, segment, unreadable or deleted target', () => {
    expect(segmentTargetProblem(undefined, 'zz')).toBe('Not a photo of this job: zz.');
    expect(segmentTargetProblem({ id: 's', is_segment: true, deleted: false, unreadable_reason: null }, 's')).toMatch(
      /itself a segment/,
    );
    expect(segmentTargetProblem({ id: 'u', is_segment: false, deleted: true, unreadable_reason: 'bad' }, 'u')).toMatch(
      /could not be read/,
    );
    expect(segmentTargetProblem({ id: 'd', is_segment: false, deleted: true, unreadable_reason: null }, 'd')).toMatch(
      /is deleted/,
    );
    expect(
      segmentTargetProblem({ id: 'ok', is_segment: false, deleted: false, unreadable_reason: null }, 'ok'),
    ).toBeNull();
  });

  it('numbers new rows in order; all boxes of one item share the item’s smallest index as their group', () => {
    const items = [
      { name: '  Lamp ', quantity: 2, boxes: [box, { x: 0.5, y: 0.5, width: 0.5, height: 0.5 }] },
      { name: '   ', boxes: [box] },
      { name: 'Chair', boxes: [box, box, box] },
    ];
    expect(segmentBoxCount(items)).toBe(6);
    expect(planSegments(items, 10).map((s) => [s.index, s.group_index, s.manual_name, s.quantity])).toEqual([
      [10, 10, 'Lamp', 2],
      [11, 10, 'Lamp', 2],
      [12, 12, null, 1],
      [13, 13, 'Chair', 1],
      [14, 13, 'Chair', 1],
      [15, 13, 'Chair', 1],
    ]);
    expect(planSegments(items, 10)[1].box).toEqual({ x: 0.5, y: 0.5, width: 0.5, height: 0.5 });
  });

  it('finds a photo’s segments and refuses to clear what has none', () => {
    const photos = [
      photo(0, { hidden_by_segments: true }),
      photo(1),
      photo(5, { is_segment: true, segment_of: 0 }),
      photo(6, { is_segment: true, segment_of: 0 }),
    ];
    expect(segmentsOf(photos, 0).map((p) => p.index)).toEqual([5, 6]);
    expect(segmentsOf(photos, 1)).toEqual([]);
    expect(clearSegmentsProblem(photos[0], 'p0', photos)).toBeNull();
    expect(clearSegmentsProblem(photos[1], 'p1', photos)).toMatch(/no segments/);
    expect(clearSegmentsProblem(photos[2], 'p5', photos)).toMatch(/itself a segment/);
    expect(clearSegmentsProblem(undefined, 'x', photos)).toMatch(/Not a photo of this job: x/);
  });

  it('builds a segment row from its original: own file next to it, provenance kept, hidden nothing', () => {
    const original = {
      ...newStagedPhoto({
        jobId: 'job',
        index: 3,
        filename: 'orig_0003.jpg',
        key: 'teams/t/claims/c/jobs/job/photos/orig_0003.jpg',
        incomingKey: 'in/3',
        originalFilename: 'lamp.png',
        capturedAt: '2024-01-02T03:04:05',
        sizeBytes: 10,
      }),
      source_description: 'a note',
      source_item_key: 'k',
      source_room: 'Kitchen',
    };
    const row = newSegmentPhoto(original, {
      index: 12,
      group_index: 12,
      box: { x: 0.1, y: 0.2, width: 0.3, height: 0.4 },
      manual_name: null,
      quantity: 3,
    });
    expect(segmentFilename(12)).toBe('seg_0012.jpg');
    expect(segmentFilename(12345)).toBe('seg_12345.jpg');
    expect(row).toMatchObject({
      job_id: 'job',
      index: 12,
      filename: 'seg_0012.jpg',
      key: 'teams/t/claims/c/jobs/job/photos/seg_0012.jpg',
      incoming_key: 'teams/t/claims/c/jobs/job/photos/seg_0012.jpg',
      original_filename: 'lamp.png',
      captured_at: '2024-01-02T03:04:05',
      group_index: 12,
      is_segment: true,
      segment_of: 3,
      crop: { x: 0.1, y: 0.2, width: 0.3, height: 0.4 },
      hidden_by_segments: false,
      manual_name: null,
      quantity: 3,
      deleted: false,
      normalized: false,
      size_bytes: 0,
      source_description: 'a note',
      source_item_key: 'k',
      source_room: 'Kitchen',
    });
    expect(row.id).not.toBe(original.id);
  });
});

describe('details', () => {
  const photos = [
    photo(0),
    photo(1, { group_index: 0 }),
    photo(2, { group_index: 0, deleted: true }),
    photo(3),
    photo(4, { group_index: 3, hidden_by_segments: true }),
  ];

  it('takes exactly one whole group (deleted and hidden members may be left out)', () => {
    expect(detailsGroup(photos, ['p0', 'p1'])).toEqual({ group_index: 0 });
    expect(detailsGroup(photos, ['p1', 'p0', 'p2'])).toEqual({ group_index: 0 });
    expect(detailsGroup(photos, ['p3'])).toEqual({ group_index: 3 });
  });

  it('names what is wrong', () => {
    expect(detailsGroup(photos, ['p0'])).toEqual({ problem: 'List the whole group; missing from it: p1.' });
    expect(detailsGroup(photos, ['p0', 'p1', 'p3'])).toEqual({
      problem: expect.stringMatching(/must all be in one group; these are in 2 groups/),
    });
    expect(detailsGroup(photos, ['p0', 'p1', 'who'])).toEqual({ problem: 'Not photos of this job: who.' });
  });

  it('trims the manual name; blank is none', () => {
    expect(manualName('  Sofa  ')).toBe('Sofa');
    expect(manualName('   ')).toBeNull();
    expect(manualName('')).toBeNull();
    expect(manualName(null)).toBeNull();
  });
});

describe('aiGroups with segments', () => {
  it('counts neither a hidden original nor a named segment group, but a blank-named one', () => {
    const photos = [
      photo(0, { hidden_by_segments: true }),
      photo(1),
      photo(5, { is_segment: true, segment_of: 0, group_index: 5, manual_name: 'Lamp' }),
      photo(6, { is_segment: true, segment_of: 0, group_index: 5, manual_name: 'Lamp' }),
      photo(7, { is_segment: true, segment_of: 0, group_index: 7 }),
      photo(8, { group_index: 8, deleted: true }),
    ];
    expect(aiGroups(photos)).toEqual([1, 7]);
    expect(isVisiblePhoto(photos[0])).toBe(false);
    expect(aiGroups(photos.map((p) => ({ ...p, hidden_by_segments: false })))).toEqual([0, 1, 7]);
  });
});

describe('cropJpeg', () => {
  it('maps fractions to pixels, clamped inside, at least 1 x 1', () => {
    expect(cropRect({ x: 0, y: 0, width: 0.5, height: 0.5 }, 200, 100)).toEqual({
      left: 0,
      top: 0,
      width: 100,
      height: 50,
    });
    expect(cropRect({ x: 0.25, y: 0.5, width: 0.75, height: 0.5 }, 200, 100)).toEqual({
      left: 50,
      top: 50,
      width: 150,
      height: 50,
    });
    expect(cropRect({ x: 0.999, y: 0.999, width: 0.0001, height: 0.0001 }, 200, 100)).toEqual({
      left: 199,
      top: 99,
      width: 1,
      height: 1,
    });
    expect(() => cropRect({ x: 0, y: 0, width: 0, height: 1 }, 10, 10)).toThrow(RangeError);
  });

  it('cuts the box out of a real JPEG', async () => {
    // 200x100: left half red, right half blue
    const raw = Buffer.alloc(200 * 100 * 3);
    for (let y = 0; y < 100; y++)
      for (let x = 0; x < 200; x++) raw.set(x < 100 ? [255, 0, 0] : [0, 0, 255], (y * 200 + x) * 3);
    const jpeg = await sharp(raw, { raw: { width: 200, height: 100, channels: 3 } })
      .jpeg({ quality: 95 })
      .toBuffer();
    const crop = await cropJpeg(jpeg, { x: 0.5, y: 0.2, width: 0.5, height: 0.6 });
    expect([crop.width, crop.height]).toEqual([100, 60]);
    const meta = await sharp(crop.jpeg).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['jpeg', 100, 60, 3]);
    const { data } = await sharp(crop.jpeg).raw().toBuffer({ resolveWithObject: true });
    const centre = (30 * 100 + 50) * 3;
    expect(data[centre + 2]).toBeGreaterThan(200); // blue: the right half
    expect(data[centre]).toBeLessThan(60);
  });
});
