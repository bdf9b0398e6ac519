/**
 * Grouping a photo job's staged photos before the AI runs, over real HTTP
 * (spec: Photo pipeline (live path) 2, 6, 7; Jobs: staged-photos regroup,
 * delete, restore, segment, clear-segments, details; Limits
 * MAX_PHOTOS_PER_ITEM): real uploads, the real photos worker cutting the
 * segment crops with sharp, and the quote counting the groups that reach the
 * AI. Every refusal is checked to have written nothing (rows, job, activity).
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { Client, eventually, request, type ApiResponse } from '../support/api';
import { newStagedPhoto, stagedPhotoItem } from '../../lib/photos/staged-photo-store';
import { doc, getRow, listKeys, seedJob, setFields, table } from '../support/aws';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, smallPng, type TestRoom } from '../support/uploads';

let alice: Client;
let mallory: Client; // another team
let room: TestRoom;

beforeAll(async () => {
  alice = await Client.signIn(newTeamMember());
  mallory = await Client.signIn(newTeamMember());
  room = await newRoom(alice, 'Living room');
});

const photoSk = (index: number) => `PHOTO#${String(index).padStart(6, '0')}`;
const jobPrefix = (jobId: string) => `teams/${room.team_id}/claims/${room.claim_id}/jobs/${jobId}/`;

async function photoRows(jobId: string): Promise<Record<string, any>[]> {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': `JOB#${jobId}`, ':p': 'PHOTO#' },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

async function activityFor(jobId: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: 'entity_id = :job',
        ExpressionAttributeValues: { ':pk': `TEAM#${room.team_id}#ACTIVITY`, ':job': jobId },
        ExclusiveStartKey,
      }),
    );
    out.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** Everything a grouping call could write: the photo rows, the job row, the job's activity. */
async function written(jobId: string) {
  return {
    photos: await photoRows(jobId),
    job: await getRow(`JOB#${jobId}`, 'JOB'),
    activity: (await activityFor(jobId)).length,
  };
}

/** The call answers `status` (and a detail matching `detail`) and writes nothing. */
async function refused(
  jobId: string,
  call: () => Promise<ApiResponse>,
  status: number,
  detail?: RegExp,
): Promise<ApiResponse> {
  const before = await written(jobId);
  const res = await call();
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: detail ? expect.objectContaining({ detail: expect.stringMatching(detail) }) : expect.anything(),
  });
  expect(await written(jobId)).toEqual(before);
  return res;
}

const staged = async (jobId: string) => {
  const res = await alice.get(`/api/jobs/${jobId}/staged-photos`);
  expect(res.status).toBe(200);
  return res.body as any[];
};
/** A staged photo without the fields the photos worker fills in once the crop or re-encode is made. */
const withoutWorkerFields = ({ normalized, width, height, ...rest }: any) => rest;
const byIndex = (list: any[]) => new Map<number, any>(list.map((p) => [p.index, p]));
const photoRequests = async (jobId: string) => {
  const res = await alice.get(`/api/jobs/${jobId}/quote`);
  expect(res.status).toBe(200);
  return res.body.photo_requests as number;
};

/** Waits for the worker to re-encode every upload, so no background write races the checks. */
const settled = (jobId: string) =>
  eventually(async () => {
    const list = await staged(jobId);
    return list.every((p) => p.normalized || p.deleted) ? list : null;
  }, 60_000);

const put = (client: Client, jobId: string, action: string, body: unknown) =>
  client.put(`/api/jobs/${jobId}/staged-photos/${action}`, body);

/** A 200 x 100 picture: left half one colour, right half another. */
function halves(left: [number, number, number], right: [number, number, number]): Promise<Buffer> {
  const raw = Buffer.alloc(200 * 100 * 3);
  for (let y = 0; y < 100; y++) for (let x = 0; x < 200; x++) raw.set(x < 100 ? left : right, (y * 200 + x) * 3);
  return sharp(raw, { raw: { width: 200, height: 100, channels: 3 } })
    .png()
    .toBuffer();
}

async function newPhotoJob(count: number) {
  const { jobId } = await photoJob(
    alice,
    room.id,
    await Promise.all(Array.from({ length: count }, (_, i) => smallPng(i + 1))),
  );
  const list = await settled(jobId);
  return { jobId, ids: list.map((p) => p.id as string) };
}

describe('PUT .../staged-photos/regroup', () => {
  let jobId: string;
  let ids: string[];

  beforeAll(async () => {
    ({ jobId, ids } = await newPhotoJob(7));
  });

  it('merges listed photos into groups numbered by their smallest index; the rest stay on their own', async () => {
    expect(await photoRequests(jobId)).toBe(7);
    const res = await put(alice, jobId, 'regroup', {
      groups: [
        [ids[1], ids[0]],
        [ids[5], ids[3], ids[4]],
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(await staged(jobId)); // the job's full staged-photo list
    expect(res.body.map((p: any) => p.group_index)).toEqual([0, 0, 2, 3, 3, 3, 6]);
    expect(await photoRequests(jobId)).toBe(4);
    const rows = await photoRows(jobId);
    expect(rows.map((r) => r.group_index)).toEqual([0, 0, 2, 3, 3, 3, 6]);
    expect((await activityFor(jobId)).map((a) => a.action_type)).toContain('regroup_photos');

    // a second regroup replaces all assignments: the old groups are gone
    const again = await put(alice, jobId, 'regroup', { groups: [[ids[6], ids[4]]] });
    expect(again.status).toBe(200);
    expect(again.body.map((p: any) => p.group_index)).toEqual([0, 1, 2, 3, 4, 5, 4]);
  });

  it('takes a group of exactly MAX_PHOTOS_PER_ITEM (5) and a deleted photo, which stays deleted', async () => {
    expect((await put(alice, jobId, 'delete', { ids: [ids[2]] })).status).toBe(200);
    const res = await put(alice, jobId, 'regroup', { groups: [[ids[2], ids[3], ids[4], ids[5], ids[6]]] });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.group_index, p.deleted])).toEqual([
      [0, false],
      [1, false],
      [2, true],
      [2, false],
      [2, false],
      [2, false],
      [2, false],
    ]);
    expect(await photoRequests(jobId)).toBe(3);
    expect((await put(alice, jobId, 'restore', { ids: [ids[2]] })).status).toBe(200);
  });

  it('refuses bad groups with a 400 that says what is wrong, writing nothing', async () => {
    await refused(
      jobId,
      () => put(alice, jobId, 'regroup', { groups: [ids.slice(0, 6)] }),
      400,
      /group 1 has 6 photos; a group can have at most 5/i,
    );
    await refused(jobId, () => put(alice, jobId, 'regroup', { groups: [[ids[0]], []] }), 400, /group 2 is empty/i);
    await refused(
      jobId,
      () =>
        put(alice, jobId, 'regroup', {
          groups: [
            [ids[0], ids[1]],
            [ids[1], ids[2]],
          ],
        }),
      400,
      new RegExp(`more than once: ${ids[1]}`),
    );
    const stranger = randomUUID();
    await refused(
      jobId,
      () => put(alice, jobId, 'regroup', { groups: [[ids[0], stranger]] }),
      400,
      new RegExp(`not photos of this job: ${stranger}`, 'i'),
    );
    // a photo of another job of the same team is not a photo of this job
    const other = await newPhotoJob(1);
    await refused(
      jobId,
      () => put(alice, jobId, 'regroup', { groups: [[ids[0], other.ids[0]]] }),
      400,
      new RegExp(other.ids[0]),
    );
    await refused(jobId, () => put(alice, jobId, 'regroup', { groups: 'all' }), 422);
    await refused(jobId, () => put(alice, jobId, 'regroup', {}), 422);
  });
});

describe('grouping edits larger than one transaction', () => {
  const PHOTOS = 150;
  let jobId: string;
  let ids: string[];

  /** A groupable photo job with 150 staged rows written straight to the table (no uploads needed to regroup). */
  beforeAll(async () => {
    jobId = await seedJob(room, 'photo');
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'awaiting_grouping' });
    const rows = Array.from({ length: PHOTOS }, (_, index) =>
      stagedPhotoItem(
        newStagedPhoto({
          jobId,
          index,
          filename: `orig_${String(index).padStart(4, '0')}.jpg`,
          key: `${jobPrefix(jobId)}photos/${index}.jpg`,
          incomingKey: `${jobPrefix(jobId)}incoming/${index}`,
          originalFilename: `IMG_${index}.jpg`,
          capturedAt: null,
          sizeBytes: 10,
        }),
      ),
    );
    for (let i = 0; i < rows.length; i += 25) {
      await doc.send(
        new BatchWriteCommand({
          RequestItems: { [table()]: rows.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }
    ids = (await staged(jobId)).map((p) => p.id);
    expect(ids).toHaveLength(PHOTOS);
  });

  it('regroups 150 photos into 30 groups of 5 in one request, and ungroups them again', async () => {
    const groups = Array.from({ length: 30 }, (_, k) => [0, 30, 60, 90, 120].map((offset) => ids[k + offset]));
    const res = await put(alice, jobId, 'regroup', { groups });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => p.group_index)).toEqual(Array.from({ length: PHOTOS }, (_, i) => i % 30));
    expect((await photoRows(jobId)).map((r) => r.group_index)).toEqual(
      Array.from({ length: PHOTOS }, (_, i) => i % 30),
    );
    expect(await getRow(`JOB#${jobId}`, 'JOB')).not.toHaveProperty('photo_write_lock');

    const back = await put(alice, jobId, 'regroup', { groups: [] });
    expect(back.status).toBe(200);
    expect(back.body.map((p: any) => p.group_index)).toEqual(Array.from({ length: PHOTOS }, (_, i) => i));
  });

  it('deletes and restores 150 photos in one request each', async () => {
    expect((await put(alice, jobId, 'delete', { ids })).body.every((p: any) => p.deleted)).toBe(true);
    expect((await put(alice, jobId, 'restore', { ids })).body.every((p: any) => !p.deleted)).toBe(true);
  });

  it('answers 409 and writes nothing while another large edit of the job is being saved', async () => {
    await setFields(`JOB#${jobId}`, 'JOB', {
      photo_write_lock: 'another-edit',
      photo_write_lock_until: Date.now() + 60_000,
    });
    await refused(
      jobId,
      () => put(alice, jobId, 'regroup', { groups: [[ids[0], ids[1]]] }),
      409,
      /still being saved; try again/,
    );
    await setFields(`JOB#${jobId}`, 'JOB', { photo_write_lock_until: 0 });
  });
});

describe('PUT .../staged-photos/delete and /restore', () => {
  let jobId: string;
  let ids: string[];

  beforeAll(async () => {
    ({ jobId, ids } = await newPhotoJob(3));
  });

  it('soft-deletes and restores by id; a deleted photo reaches no AI call', async () => {
    const deleted = await put(alice, jobId, 'delete', { ids: [ids[0], ids[2]] });
    expect(deleted.status).toBe(200);
    expect(deleted.body.map((p: any) => p.deleted)).toEqual([true, false, true]);
    expect((await photoRows(jobId)).map((r) => r.deleted)).toEqual([true, false, true]);
    expect(await photoRequests(jobId)).toBe(1);
    const restored = await put(alice, jobId, 'restore', { ids: [ids[2]] });
    expect(restored.status).toBe(200);
    expect(restored.body.map((p: any) => p.deleted)).toEqual([true, false, false]);
    expect(await photoRequests(jobId)).toBe(2);
    expect((await activityFor(jobId)).map((a) => a.action_type)).toEqual(
      expect.arrayContaining(['delete_photos', 'restore_photos']),
    );
    expect((await put(alice, jobId, 'restore', { ids: [ids[0]] })).status).toBe(200);
  });

  it('names unknown ids (400) and writes nothing, even for the known ones listed beside them', async () => {
    const a = randomUUID();
    const b = 'not-even-a-uuid';
    await refused(jobId, () => put(alice, jobId, 'delete', { ids: [ids[0], a, b] }), 400, new RegExp(`${a}, ${b}`));
    await refused(jobId, () => put(alice, jobId, 'restore', { ids: [a] }), 400, new RegExp(a));
    await refused(jobId, () => put(alice, jobId, 'delete', { ids: [] }), 422);
    await refused(jobId, () => put(alice, jobId, 'delete', { ids: Array.from({ length: 1001 }, () => ids[0]) }), 422);
  });

  it('never restores a photo that could not be read', async () => {
    await setFields(`JOB#${jobId}`, photoSk(1), { deleted: true, unreadable_reason: 'cannot decode png: bad data' });
    await refused(
      jobId,
      () => put(alice, jobId, 'restore', { ids: [ids[1], ids[0]] }),
      400,
      /could not be read cannot be restored/i,
    );
  });
});

describe('PUT .../staged-photos/segment and /clear-segments', () => {
  let jobId: string;
  let a: any; // the photo the boxes are drawn on (200 x 100: red | blue)
  let b: any;

  const items = [
    {
      name: ' Lamp ',
      quantity: 2,
      boxes: [
        { x: 0, y: 0, width: 0.5, height: 0.5 },
        { x: 0.25, y: 0.5, width: 0.75, height: 0.5 },
      ],
    },
    { name: '', boxes: [{ x: 0.5, y: 0, width: 0.5, height: 1 }] },
    { name: '   ', quantity: 3, boxes: [{ x: 0, y: 0, width: 1, height: 1 }] },
  ];
  /** index → [width, height] of its crop. */
  const cropSizes: Record<number, [number, number]> = { 2: [100, 50], 3: [150, 50], 4: [100, 100], 5: [200, 100] };

  async function fetchCrop(photo: any): Promise<Buffer> {
    const redirect = await request('GET', photo.url);
    expect(redirect.status).toBe(302);
    const res = await fetch(redirect.headers.get('location')!);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  }

  beforeAll(async () => {
    const { jobId: id } = await photoJob(alice, room.id, [await halves([255, 0, 0], [0, 0, 255]), await smallPng(9)]);
    jobId = id;
    const list = await settled(jobId);
    [a, b] = list;
  });

  it('cuts each box into a segment photo, one group per item, and hides the original', async () => {
    expect(await photoRequests(jobId)).toBe(2);
    const res = await put(alice, jobId, 'segment', { photo_id: a.id, items });
    expect(res.status).toBe(200);
    // The worker may crop a segment between the answer and this read: compare what the edit wrote.
    expect(res.body.map(withoutWorkerFields)).toEqual((await staged(jobId)).map(withoutWorkerFields));
    const list = byIndex(res.body);
    expect([...list.keys()]).toEqual([0, 1, 2, 3, 4, 5]);
    expect(list.get(0)).toMatchObject({
      id: a.id,
      hidden_by_segments: true,
      deleted: false,
      is_segment: false,
      group_index: 0,
    });
    expect(list.get(1)).toMatchObject({ hidden_by_segments: false, is_segment: false });
    const segments = [2, 3, 4, 5].map((i) => list.get(i));
    expect(
      segments.map((s) => [
        s.index,
        s.filename,
        s.group_index,
        s.manual_name,
        s.quantity,
        s.segment_of,
        s.is_segment,
        s.hidden_by_segments,
      ]),
    ).toEqual([
      [2, 'seg_0002.jpg', 2, 'Lamp', 2, 0, true, false],
      [3, 'seg_0003.jpg', 2, 'Lamp', 2, 0, true, false],
      [4, 'seg_0004.jpg', 4, null, 1, 0, true, false],
      [5, 'seg_0005.jpg', 5, null, 3, 0, true, false],
    ]);
    expect(segments.map((s) => s.crop)).toEqual([...items[0].boxes, ...items[1].boxes, ...items[2].boxes]);
    for (const s of segments)
      expect(s).toMatchObject({
        original_filename: a.original_filename,
        captured_at: a.captured_at,
        deleted: false,
        url: `/api/photos/${jobId}/${s.filename}`,
      });
    // numbers come from the job's counter
    expect((await getRow(`JOB#${jobId}`, 'JOB'))!.photo_next_index).toBe(6);
    expect((await activityFor(jobId)).map((x) => x.action_type)).toContain('segment_photo');
  });

  it('crops in the background: each box becomes an upright JPEG of the box’s pixel size, next to the original', async () => {
    const list = await eventually(async () => {
      const now = byIndex(await staged(jobId));
      return [2, 3, 4, 5].every((i) => now.get(i)?.normalized) ? now : null;
    }, 60_000);
    for (const index of [2, 3, 4, 5]) {
      const photo = list.get(index);
      expect([photo.width, photo.height]).toEqual(cropSizes[index]);
      const jpeg = await fetchCrop(photo);
      const meta = await sharp(jpeg).metadata();
      expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['jpeg', ...cropSizes[index], 3]);
      const row = await getRow(`JOB#${jobId}`, photoSk(index));
      expect(row!.size_bytes).toBe(jpeg.length);
      expect(row!.key).toBe(`${jobPrefix(jobId)}photos/${photo.filename}`);
    }
    // the item's second box and the right half are blue; the first box is red
    const pixel = async (index: number) => {
      const { data, info } = await sharp(await fetchCrop(list.get(index)))
        .raw()
        .toBuffer({ resolveWithObject: true });
      const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
      return [...data.subarray(at, at + 3)];
    };
    expect((await pixel(2))[0]).toBeGreaterThan(200);
    expect((await pixel(4))[2]).toBeGreaterThan(200);
    expect((await pixel(4))[0]).toBeLessThan(60);
  });

  it('counts the groups that reach the AI: not the hidden original nor the named item, but each blank-named one', async () => {
    // b, the blank item (index 4) and the blank item with quantity 3 (index 5)
    expect(await photoRequests(jobId)).toBe(3);
  });

  it('refuses a bad segment request with 400 or 422, writing nothing', async () => {
    const box = { x: 0, y: 0, width: 0.5, height: 0.5 };
    const stranger = randomUUID();
    await refused(
      jobId,
      () => put(alice, jobId, 'segment', { photo_id: stranger, items: [{ name: '', boxes: [box] }] }),
      400,
      new RegExp(`not a photo of this job: ${stranger}`, 'i'),
    );
    const segmentId = (await staged(jobId)).find((p) => p.index === 2).id;
    await refused(
      jobId,
      () => put(alice, jobId, 'segment', { photo_id: segmentId, items: [{ name: '', boxes: [box] }] }),
      400,
      /itself a segment/,
    );
    await refused(
      jobId,
      () =>
        put(alice, jobId, 'segment', {
          photo_id: a.id,
          items: [{ name: '', boxes: [{ x: 0.8, y: 0, width: 0.5, height: 0.5 }] }],
        }),
      400,
      /item 1, box 1: .*inside the photo/i,
    );
    await refused(
      jobId,
      () =>
        put(alice, jobId, 'segment', {
          photo_id: a.id,
          items: [
            { name: '', boxes: [box] },
            { name: '', boxes: [{ x: -0.1, y: 0, width: 0.5, height: 0.5 }] },
          ],
        }),
      400,
      /item 2, box 1/i,
    );
    await refused(
      jobId,
      () =>
        put(alice, jobId, 'segment', {
          photo_id: a.id,
          items: [{ name: '', boxes: [{ x: 0.2, y: 0.2, width: 0, height: 0.5 }] }],
        }),
      400,
      /greater than 0/,
    );
    await refused(
      jobId,
      () =>
        put(alice, jobId, 'segment', {
          photo_id: a.id,
          items: [{ name: 'Chairs', boxes: Array.from({ length: 6 }, () => box) }],
        }),
      400,
      /6 boxes; .*at most 5/,
    );
    await refused(
      jobId,
      () => put(alice, jobId, 'segment', { photo_id: a.id, items: [{ name: '', boxes: [] }] }),
      400,
      /no box/,
    );
    await refused(
      jobId,
      () => put(alice, jobId, 'segment', { photo_id: a.id, items: [{ name: 'x'.repeat(201), boxes: [box] }] }),
      422,
    );
    await refused(
      jobId,
      () => put(alice, jobId, 'segment', { photo_id: a.id, items: [{ name: '', quantity: 0, boxes: [box] }] }),
      422,
    );
    await refused(jobId, () => put(alice, jobId, 'segment', { photo_id: a.id, items: [] }), 422);
    await refused(
      jobId,
      () =>
        put(alice, jobId, 'segment', {
          photo_id: a.id,
          items: Array.from({ length: 51 }, () => ({ name: '', boxes: [box] })),
        }),
      422,
    );
    // a deleted photo is restored before it can be segmented
    expect((await put(alice, jobId, 'delete', { ids: [b.id] })).status).toBe(200);
    await refused(
      jobId,
      () => put(alice, jobId, 'segment', { photo_id: b.id, items: [{ name: '', boxes: [box] }] }),
      400,
      /is deleted/,
    );
    expect((await put(alice, jobId, 'restore', { ids: [b.id] })).status).toBe(200);
  });

  it('regroup leaves the segments alone and will not take one', async () => {
    const segmentId = (await staged(jobId)).find((p) => p.index === 3).id;
    await refused(
      jobId,
      () => put(alice, jobId, 'regroup', { groups: [[b.id, segmentId]] }),
      400,
      new RegExp(`segments .*cannot be regrouped.*${segmentId}`, 'i'),
    );
    const res = await put(alice, jobId, 'regroup', { groups: [[b.id, a.id]] });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.index, p.group_index])).toEqual([
      [0, 0],
      [1, 0],
      [2, 2],
      [3, 2],
      [4, 4],
      [5, 5],
    ]);
    expect(await photoRequests(jobId)).toBe(3); // the group of a (hidden) and b still reaches the AI through b
    expect((await put(alice, jobId, 'regroup', { groups: [] })).body.map((p: any) => p.group_index)).toEqual([
      0, 1, 2, 2, 4, 5,
    ]);
  });

  it('names a segment group through details and hands it back with an empty name', async () => {
    const blank = (await staged(jobId)).find((p) => p.index === 4);
    let res = await put(alice, jobId, 'details', { ids: [blank.id], name: 'Vase', quantity: 2 });
    expect(res.status).toBe(200);
    expect(byIndex(res.body).get(4)).toMatchObject({ manual_name: 'Vase', quantity: 2 });
    expect(await photoRequests(jobId)).toBe(2);
    res = await put(alice, jobId, 'details', { ids: [blank.id], name: '', quantity: null });
    expect(byIndex(res.body).get(4)).toMatchObject({ manual_name: null, quantity: null });
    expect(await photoRequests(jobId)).toBe(3);
  });

  it('allows deleting a photo that has segments', async () => {
    const res = await put(alice, jobId, 'delete', { ids: [a.id] });
    expect(res.status).toBe(200);
    expect(byIndex(res.body).get(0)).toMatchObject({ deleted: true, hidden_by_segments: true });
    expect(res.body).toHaveLength(6);
    expect((await put(alice, jobId, 'restore', { ids: [a.id] })).status).toBe(200);
  });

  it('replaces the earlier segments when the photo is segmented again', async () => {
    const res = await put(alice, jobId, 'segment', {
      photo_id: a.id,
      items: [{ name: 'Rug', boxes: [{ x: 0, y: 0, width: 0.5, height: 1 }] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.index, p.group_index, p.is_segment, p.manual_name, p.quantity])).toEqual([
      [0, 0, false, null, null],
      [1, 1, false, null, null],
      [6, 6, true, 'Rug', 1],
    ]);
    for (const index of [2, 3, 4, 5]) expect(await getRow(`JOB#${jobId}`, photoSk(index))).toBeNull();
    expect(await photoRequests(jobId)).toBe(1); // only b: the original is hidden and Rug is named
    const crop = await eventually(async () => {
      const p = byIndex(await staged(jobId)).get(6);
      return p?.normalized ? p : null;
    }, 60_000);
    expect([crop.width, crop.height]).toEqual([100, 100]);
    // the old crops are gone from the bucket
    await eventually(async () => {
      const keys = await listKeys(`${jobPrefix(jobId)}photos/`);
      return (
        keys.filter((k) => k.includes('/seg_')).every((k) => k.endsWith('seg_0006.jpg')) &&
        keys.some((k) => k.endsWith('seg_0006.jpg'))
      );
    });
  });

  it('clear-segments refuses a segment and a photo without segments (400, nothing written)', async () => {
    const segment = byIndex(await staged(jobId)).get(6);
    await refused(jobId, () => put(alice, jobId, 'clear-segments', { photo_id: segment.id }), 400, /itself a segment/);
    await refused(jobId, () => put(alice, jobId, 'clear-segments', { photo_id: b.id }), 400, /has no segments/);
    await refused(
      jobId,
      () => put(alice, jobId, 'clear-segments', { photo_id: randomUUID() }),
      400,
      /not a photo of this job/i,
    );
    await refused(jobId, () => put(alice, jobId, 'clear-segments', {}), 422);
  });

  it('clear-segments removes the crops and restores the whole photo in its group', async () => {
    const res = await put(alice, jobId, 'clear-segments', { photo_id: a.id });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.index, p.group_index, p.hidden_by_segments, p.is_segment])).toEqual([
      [0, 0, false, false],
      [1, 1, false, false],
    ]);
    expect(await getRow(`JOB#${jobId}`, photoSk(6))).toBeNull();
    expect(await photoRequests(jobId)).toBe(2);
    await eventually(async () => (await listKeys(`${jobPrefix(jobId)}photos/`)).every((k) => !k.includes('/seg_')));
    expect((await activityFor(jobId)).map((x) => x.action_type)).toContain('clear_segments');
    await refused(jobId, () => put(alice, jobId, 'clear-segments', { photo_id: a.id }), 400, /has no segments/);
  });
});

describe('PUT .../staged-photos/details', () => {
  let jobId: string;
  let ids: string[];

  beforeAll(async () => {
    ({ jobId, ids } = await newPhotoJob(3));
    expect((await put(alice, jobId, 'regroup', { groups: [[ids[0], ids[1]]] })).status).toBe(200);
  });

  it('names a whole group (no AI call for it) and hands it back to the AI with an empty name', async () => {
    expect(await photoRequests(jobId)).toBe(2);
    let res = await put(alice, jobId, 'details', { ids: [ids[1], ids[0]], name: '  Blue sofa ', quantity: 2 });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.group_index, p.manual_name, p.quantity])).toEqual([
      [0, 'Blue sofa', 2],
      [0, 'Blue sofa', 2],
      [2, null, null],
    ]);
    expect((await photoRows(jobId)).map((r) => r.manual_name)).toEqual(['Blue sofa', 'Blue sofa', null]);
    expect(await photoRequests(jobId)).toBe(1);
    expect((await activityFor(jobId)).map((x) => x.action_type)).toContain('describe_photo_group');

    res = await put(alice, jobId, 'details', { ids: [ids[0], ids[1]], name: '   ', quantity: 2 });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.manual_name, p.quantity])).toEqual([
      [null, 2],
      [null, 2],
      [null, null],
    ]);
    expect(await photoRequests(jobId)).toBe(2);

    res = await put(alice, jobId, 'details', { ids: [ids[2]], name: 'Lamp', quantity: null });
    expect(res.body.map((p: any) => [p.manual_name, p.quantity])).toEqual([
      [null, 2],
      [null, 2],
      ['Lamp', null],
    ]);
    res = await put(alice, jobId, 'details', { ids: [ids[2]], name: null, quantity: null });
    expect(res.body[2]).toMatchObject({ manual_name: null, quantity: null });
  });

  it('takes only one whole group: 400 naming what is missing or wrong, nothing written', async () => {
    await refused(
      jobId,
      () => put(alice, jobId, 'details', { ids: [ids[0]], name: 'Sofa', quantity: 1 }),
      400,
      new RegExp(`missing from it: ${ids[1]}`),
    );
    await refused(
      jobId,
      () => put(alice, jobId, 'details', { ids: [ids[0], ids[1], ids[2]], name: 'Sofa', quantity: 1 }),
      400,
      /in one group/,
    );
    const stranger = randomUUID();
    await refused(
      jobId,
      () => put(alice, jobId, 'details', { ids: [ids[2], stranger], name: 'Sofa', quantity: 1 }),
      400,
      new RegExp(stranger),
    );
    await refused(
      jobId,
      () => put(alice, jobId, 'details', { ids: [ids[2]], name: 'x'.repeat(201), quantity: 1 }),
      422,
    );
    await refused(jobId, () => put(alice, jobId, 'details', { ids: [ids[2]], name: 'Sofa', quantity: 0 }), 422);
    await refused(jobId, () => put(alice, jobId, 'details', { ids: [], name: 'Sofa', quantity: 1 }), 422);
  });
});

describe('who and when', () => {
  let jobId: string;
  let ids: string[];
  /** A valid call of each of the six routes. */
  const calls = (photoIds: string[]): [string, unknown][] => [
    ['regroup', { groups: [[photoIds[0], photoIds[1]]] }],
    ['delete', { ids: [photoIds[0]] }],
    ['restore', { ids: [photoIds[1]] }],
    ['segment', { photo_id: photoIds[0], items: [{ name: 'Box', boxes: [{ x: 0, y: 0, width: 0.5, height: 0.5 }] }] }],
    ['clear-segments', { photo_id: photoIds[0] }],
    ['details', { ids: [photoIds[1]], name: 'Box', quantity: 1 }],
  ];

  beforeAll(async () => {
    ({ jobId, ids } = await newPhotoJob(2));
    // give clear-segments something to clear, so only the tenancy or the status can refuse it
    expect(
      (
        await put(alice, jobId, 'segment', {
          photo_id: ids[0],
          items: [{ name: 'Cup', boxes: [{ x: 0, y: 0, width: 1, height: 1 }] }],
        })
      ).status,
    ).toBe(200);
    await eventually(async () => (await staged(jobId)).every((p) => p.normalized));
    expect((await put(alice, jobId, 'delete', { ids: [ids[1]] })).status).toBe(200); // so restore has something to do
  });

  it('answers 404 to another team on all six routes and changes nothing', async () => {
    for (const [action, body] of calls(ids)) {
      const res = await refused(jobId, () => put(mallory, jobId, action, body), 404, /job not found/i);
      expect(res.body).toEqual({ detail: 'Job not found' });
    }
    // an unknown job is the same 404
    expect((await put(alice, randomUUID(), 'regroup', { groups: [] })).status).toBe(404);
  });

  it('answers 409 once the job is past grouping, on all six routes, and changes nothing', async () => {
    for (const status of ['complete', 'awaiting_confirmation']) {
      await setFields(`JOB#${jobId}`, 'JOB', { status });
      for (const [action, body] of calls(ids)) {
        await refused(
          jobId,
          () => put(alice, jobId, action, body),
          409,
          new RegExp(`awaiting grouping or has failed; this job is ${status}`),
        );
      }
    }
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'awaiting_grouping' });
  });

  it('lets a failed job (error) be regrouped before it is processed again', async () => {
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'error' });
    const res = await put(alice, jobId, 'regroup', { groups: [[ids[0], ids[1]]] });
    expect(res.status).toBe(200);
    expect(res.body.filter((p: any) => !p.is_segment).map((p: any) => p.group_index)).toEqual([0, 0]);
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'awaiting_grouping' });
  });
});
