/**
 * Photo uploads over real HTTP, as the browser does them (spec: Uploads,
 * Photo pipeline (live path) 1, States: upload-photos rows, Errors 400/409/413,
 * Limits):
 *
 *   manifest → POST each file to its presigned POST → confirm → the photo
 *   worker re-encodes each to an upright JPEG → staged-photos list → the
 *   capability URL 302s to S3, which serves Range.
 *
 * Every refusal is checked to have written nothing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import type { UploadSlot } from '../../lib/photos/schemas';
import { Client, eventually, request } from '../support/api';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { bucket, doc, getRow, listKeys, objectExists, s3, setFields, table } from '../support/aws';
import { newTeamMember, teammateOf } from '../support/tokens';

const MIB = 1024 * 1024;

let alice: Client;
let bob: Client; // Alice's teammate
let mallory: Client; // another team
let room: { id: string; claim_id: string; team_id: string; name: string };

/** 64x48 "quadrants": top-left red, top-right green, bottom-left blue, bottom-right white. */
function quadrants(width = 64, height = 48) {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const top = y < height / 2;
      const left = x < width / 2;
      raw.set(
        top && left ? [255, 0, 0] : top ? [0, 255, 0] : left ? [0, 0, 255] : [255, 255, 255],
        (y * width + x) * 3,
      );
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

let orientedJpeg: Buffer; // 64x48 stored, EXIF Orientation 6 (upright 48x64), DateTimeOriginal 2023:06:15 14:30:00
let png: Buffer; // 40x30
let webp: Buffer; // 50x20
const fakeJpeg = Buffer.from('This is a text file that somebody renamed to .jpg\n'.repeat(4));

beforeAll(async () => {
  const member = newTeamMember();
  alice = await Client.signIn(member);
  bob = await Client.signIn(teammateOf(member));
  mallory = await Client.signIn(newTeamMember());
  room = await newRoom(alice, 'Kitchen');
  orientedJpeg = await quadrants()
    .jpeg({ quality: 92 })
    .withExif({ IFD2: { DateTimeOriginal: '2023:06:15 14:30:00' } })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  png = await quadrants(40, 30).png().toBuffer();
  webp = await quadrants(50, 20).webp().toBuffer();
  expect((await sharp(orientedJpeg).metadata()).orientation).toBe(6);
});

async function newRoom(client: Client, name: string) {
  const claim = await client.post('/api/claims', { claim_number: `PH-${randomUUID().slice(0, 8)}` });
  expect(claim.status).toBe(201);
  const created = await client.post(`/api/claims/${claim.body.id}/rooms`, { name });
  expect(created.status).toBe(201);
  const row = await getRow(`ROOM#${created.body.id}`, 'ROOM');
  return { id: created.body.id as string, claim_id: claim.body.id as string, team_id: row!.team_id as string, name };
}

type Slot = UploadSlot;

/** What the browser does with a slot: a multipart form, every signed field first, then the file. */
async function postToBucket(slot: Slot, bytes: Buffer): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), slot.original_filename);
  const res = await fetch(slot.url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text() };
}

const jobRow = (id: string) => getRow(`JOB#${id}`, 'JOB');

async function jobsInRoom(roomId: string): Promise<number> {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `ROOM#${roomId}#JOBS` },
    }),
  );
  return (Items ?? []).length;
}

async function stagedRows(jobId: string) {
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

async function jobLogLines(jobId: string): Promise<string[]> {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :l)',
      ExpressionAttributeValues: { ':pk': `JOBLOG#${jobId}`, ':l': 'LINE#' },
    }),
  );
  return (Items ?? []).map((i) => String(i.message));
}

/** A photo job with one uploaded, confirmed photo. */
async function photoJob(client: Client, roomId: string) {
  const started = await client.post('/api/upload-photos', {
    room_id: roomId,
    files: [{ filename: 'one.png', size: png.length }],
  });
  expect(started.status).toBe(201);
  expect(await postToBucket(started.body.uploads[0], png)).toMatchObject({ status: 204 });
  const confirmed = await client.post(`/api/upload-photos/${started.body.job.id}/confirm`, {
    indices: [started.body.uploads[0].index],
  });
  expect(confirmed.status).toBe(200);
  return started.body.job.id as string;
}

describe('the browser flow: manifest, presigned POSTs, confirm, re-encode, serve', () => {
  let jobId: string;
  let staged: any[];

  it('takes 3 real images and a renamed text file, keeps the images each in its own group, and skips the fake', async () => {
    const files = [
      { filename: 'Kitchen shelf.JPG', size: orientedJpeg.length, content_type: 'image/jpeg' },
      { filename: 'lamp.png', size: png.length },
      { filename: 'Küche – chair.webp', size: webp.length },
      { filename: 'notes.jpg', size: fakeJpeg.length },
    ];
    const started = await alice.post('/api/upload-photos', {
      room_id: room.id,
      files,
      photo_count_hint: 4,
      captured_ats: ['2020-01-01T00:00:00Z', '2022-01-02T03:04:05+02:00', 1700000000000, null],
    });
    expect(started.status).toBe(201);
    jobId = started.body.job.id;
    expect(started.body.job).toMatchObject({
      source_type: 'photo',
      status: 'awaiting_grouping',
      room_id: room.id,
      claim_id: room.claim_id,
    });
    expect(started.body.skipped_photos).toEqual([]);
    expect(started.body.documents).toEqual([]);
    expect(started.body.job).toMatchObject({ photo_count_hint: 4, pdf_documents: [], preparation_error: null });
    const uploads: Slot[] = started.body.uploads;
    expect(uploads.map((u) => [u.index, u.filename, u.original_filename, u.max_bytes])).toEqual([
      [0, 'orig_0000.jpg', 'Kitchen shelf.JPG', orientedJpeg.length],
      [1, 'orig_0001.jpg', 'lamp.png', png.length],
      [2, 'orig_0002.jpg', 'Küche – chair.webp', webp.length],
      [3, 'orig_0003.jpg', 'notes.jpg', fakeJpeg.length],
    ]);
    for (const u of uploads) {
      expect(u.fields).toMatchObject({
        key: expect.stringContaining(`/jobs/${jobId}/incoming/`),
        Policy: expect.any(String),
        'x-amz-meta-index': String(u.index),
      });
    }
    const row = await jobRow(jobId);
    expect(row).toMatchObject({
      photo_bytes_reserved: files.reduce((s, f) => s + f.size, 0),
      photo_next_index: 4,
      photo_count_hint: 4,
      file_size_bytes: 0,
    });

    // the upload is a non-restorable activity entry
    const feed = (await bob.get('/api/activity?limit=20')).body.items;
    expect(feed.find((e: any) => e.entity_id === jobId)).toMatchObject({
      action_type: 'upload_photos',
      restorable: false,
      target: 'Kitchen',
    });

    const bytes = [orientedJpeg, png, webp, fakeJpeg];
    for (const [i, u] of uploads.entries()) expect(await postToBucket(u, bytes[i])).toMatchObject({ status: 204 });

    const confirmed = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [0, 1, 2, 3] });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.skipped_photos).toEqual([
      { filename: 'notes.jpg', index: 3, reason: expect.stringMatching(/not a readable image/i) },
    ]);
    staged = confirmed.body.staged_photos;
    expect(
      staged.map((p) => [
        p.index,
        p.filename,
        p.original_filename,
        p.group_index,
        p.is_segment,
        p.deleted,
        p.manual_name,
        p.quantity,
      ]),
    ).toEqual([
      [0, 'orig_0000.jpg', 'Kitchen shelf.JPG', 0, false, false, null, null],
      [1, 'orig_0001.jpg', 'lamp.png', 1, false, false, null, null],
      [2, 'orig_0002.jpg', 'Küche – chair.webp', 2, false, false, null, null],
    ]);
    expect(new Set(staged.map((p) => p.group_index)).size).toBe(3);
    expect(confirmed.body.job.file_size_bytes).toBe(orientedJpeg.length + png.length + webp.length);
    // the fake is gone from the bucket
    expect(await objectExists(uploads[3].fields.key)).toBe(false);
  });

  it('is idempotent: a repeated confirm neither duplicates rows nor counts bytes twice', async () => {
    const again = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [2, 1, 0, 0] });
    expect(again.status).toBe(200);
    expect(again.body.staged_photos.map((p: any) => p.id)).toEqual(staged.map((p) => p.id));
    expect(again.body.job.file_size_bytes).toBe(orientedJpeg.length + png.length + webp.length);
    expect(await stagedRows(jobId)).toHaveLength(3);
  });

  it('re-encodes every photo to an upright JPEG in the background; EXIF dates win over the browser’s', async () => {
    const list = await eventually(async () => {
      const res = await bob.get(`/api/jobs/${jobId}/staged-photos`);
      return res.status === 200 && res.body.length === 3 && res.body.every((p: any) => p.normalized) ? res.body : null;
    }, 60_000);
    expect(list.map((p: any) => [p.index, p.width, p.height, p.captured_at])).toEqual([
      [0, 48, 64, '2023-06-15T14:30:00'], // EXIF Orientation 6 applied; EXIF date beats the browser's 2020 date
      [1, 40, 30, '2022-01-02T03:04:05'], // the browser's date (offset dropped, wall clock kept)
      [2, 50, 20, '2023-11-14T22:13:20'], // File.lastModified in ms
    ]);
    for (const p of list) {
      expect(p).toMatchObject({
        job_id: jobId,
        url: `/api/photos/${jobId}/${p.filename}`,
        source_description: null,
        source_item_key: null,
        source_room: null,
      });
    }
    // the incoming originals are removed once re-encoded
    await eventually(
      async () =>
        (await listKeys(`teams/${room.team_id}/claims/${room.claim_id}/jobs/${jobId}/incoming/`)).length === 0,
    );
    expect(await listKeys(`teams/${room.team_id}/claims/${room.claim_id}/jobs/${jobId}/photos/`)).toHaveLength(3);
  });

  it('serves each photo through its capability URL: 302 to S3, a real upright JPEG, with Range support', async () => {
    const list = (await alice.get(`/api/jobs/${jobId}/staged-photos`)).body;
    const sizes: Record<string, [number, number]> = {
      'orig_0000.jpg': [48, 64],
      'orig_0001.jpg': [40, 30],
      'orig_0002.jpg': [50, 20],
    };
    for (const p of list) {
      const redirect = await request('GET', p.url); // no token: the uuid is the credential
      expect(redirect.status).toBe(302);
      const location = redirect.headers.get('location')!;
      expect(location).toMatch(/X-Amz-Signature=/);
      const res = await fetch(location);
      expect(res.status).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      expect([...body.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      const meta = await sharp(body).metadata();
      expect(meta.format).toBe('jpeg');
      expect([meta.width, meta.height]).toEqual(sizes[p.filename]);
      expect(meta.orientation ?? 1).toBe(1);
      expect(meta.channels).toBe(3);

      const ranged = await fetch(location, { headers: { Range: 'bytes=0-9' } });
      expect(ranged.status).toBe(206);
      const part = Buffer.from(await ranged.arrayBuffer());
      expect(part.length).toBe(10);
      expect(part.equals(body.subarray(0, 10))).toBe(true);
    }
    // the upright one really is upright: the top-left corner shows the bottom-left quadrant (blue) after a 90° clockwise turn
    const upright = Buffer.from(
      await (await fetch((await request('GET', list[0].url)).headers.get('location')!)).arrayBuffer(),
    );
    const { data, info } = await sharp(upright).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    expect(at(4, 4)[2]).toBeGreaterThan(200); // blue top-left
    expect(at(4, 4)[0]).toBeLessThan(60);
    expect(at(info.width - 4, 4)[0]).toBeGreaterThan(200); // red top-right
  });

  it('never serves anything for unknown, skipped or unsafe names', async () => {
    const base = `/api/photos/${jobId}`;
    for (const path of [
      `${base}/orig_0003.jpg`, // the skipped fake
      `${base}/orig_0999.jpg`,
      `${base}/orig_1.jpg`,
      `${base}/..%2F..%2Fphotos%2Forig_0000.jpg`,
      `${base}/..%2F..%2F..%2F..%2Fteam_settings%2Fx%2Fprompt_settings.json`,
      `${base}/photos%2Forig_0000.jpg`,
      `${base}/%2e%2e%2forig_0000.jpg`,
      `${base}/.orig_0000.jpg`,
      `${base}/orig_0000.jpg%00`,
      `${base}/orig_0000.jpg%2F..`,
      `${base}/..`,
      `${base}/photos/orig_0000.jpg`,
      `${base}/incoming/000000`,
      `/api/photos/${randomUUID()}/orig_0000.jpg`,
    ]) {
      const res = await request('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('location')).toBeNull();
    }
    const bad = await request('GET', '/api/photos/not-a-uuid/orig_0000.jpg');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('location')).toBeNull();
  });
});

describe('appends', () => {
  let jobId: string;

  beforeAll(async () => {
    jobId = await photoJob(alice, room.id);
  });

  it('continue the numbering after the last number issued, or use start_index', async () => {
    const serial = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [{ filename: 'b.png', size: png.length }],
    });
    expect(serial.status).toBe(200);
    expect(serial.body.uploads.map((u: Slot) => [u.index, u.filename])).toEqual([[1, 'orig_0001.jpg']]);
    expect(serial.body.skipped_photos).toEqual([]);
    expect(serial.body.job).toMatchObject({ id: jobId, status: 'awaiting_grouping' });

    const explicit = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [
        { filename: 'c.png', size: png.length },
        { filename: 'd.webp', size: webp.length },
      ],
      start_index: 10,
    });
    expect(explicit.status).toBe(200);
    expect(explicit.body.uploads.map((u: Slot) => [u.index, u.filename])).toEqual([
      [10, 'orig_0010.jpg'],
      [11, 'orig_0011.jpg'],
    ]);

    // a later serial append continues past the start_index batch
    const after = await bob.post(`/api/upload-photos/${jobId}/append`, {
      files: [
        { filename: 'e.png', size: png.length },
        { filename: 'empty.png', size: 0 },
      ],
    });
    expect(after.status).toBe(200);
    expect(after.body.uploads.map((u: Slot) => u.index)).toEqual([12]);
    expect(after.body.skipped_photos).toEqual([
      { filename: 'empty.png', index: 13, reason: expect.stringMatching(/empty/) },
    ]);

    for (const [slot, bytes] of [
      [serial.body.uploads[0], png],
      [explicit.body.uploads[0], png],
      [explicit.body.uploads[1], webp],
    ] as const) {
      expect(await postToBucket(slot, bytes)).toMatchObject({ status: 204 });
    }
    // 12 was never uploaded: reported, not staged
    const confirmed = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [1, 10, 11, 12] });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.staged_photos.map((p: any) => [p.index, p.group_index, p.original_filename])).toEqual([
      [1, 1, 'b.png'],
      [10, 10, 'c.png'],
      [11, 11, 'd.webp'],
    ]);
    expect(confirmed.body.skipped_photos).toEqual([
      { filename: 'orig_0012.jpg', index: 12, reason: expect.stringMatching(/did not arrive/) },
    ]);
    const row = await jobRow(jobId);
    expect(row).toMatchObject({
      photo_next_index: 14,
      file_size_bytes: png.length * 3 + webp.length,
      photo_bytes_reserved: png.length * 4 + webp.length,
    });
  });

  it('refuses a PDF with 400 (contents lists come only with the start of an upload) and reserves nothing', async () => {
    const before = await jobRow(jobId);
    const res = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [
        { filename: 'a.png', size: 10 },
        { filename: 'Contents list.pdf', size: 1000 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(
      'A PDF cannot be appended to a photo upload: contents lists are accepted only when an upload starts. (Contents list.pdf)',
    );
    const after = await jobRow(jobId);
    expect([after!.photo_bytes_reserved, after!.photo_next_index]).toEqual([
      before!.photo_bytes_reserved,
      before!.photo_next_index,
    ]);
  });

  it('refuses a non-image with 400 naming it, and a photo over 100 MB with 413', async () => {
    const before = await jobRow(jobId);
    const text = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [{ filename: 'readme.txt', size: 10 }],
    });
    expect(text.status).toBe(400);
    expect(text.body.detail).toContain('readme.txt');
    const huge = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [{ filename: 'big.tif', size: 100 * MIB + 1 }],
    });
    expect(huge.status).toBe(413);
    expect(huge.body.detail).toContain('big.tif');
    const after = await jobRow(jobId);
    expect([after!.photo_bytes_reserved, after!.photo_next_index]).toEqual([
      before!.photo_bytes_reserved,
      before!.photo_next_index,
    ]);
  });

  it('holds the MAX_PHOTO_UPLOAD_MB running total: 413 with nothing reserved once a batch would pass it', async () => {
    const job = await photoJob(alice, room.id);
    const hundred = (n: number) => Array.from({ length: n }, (_, i) => ({ filename: `big-${i}.jpg`, size: 100 * MIB }));
    // a single batch past 8000 MB
    const before = await jobRow(job);
    const tooMuch = await alice.post(`/api/upload-photos/${job}/append`, { files: hundred(81) });
    expect(tooMuch.status).toBe(413);
    expect(tooMuch.body.detail).toMatch(/MAX_PHOTO_UPLOAD_MB/);
    expect((await jobRow(job))!.photo_bytes_reserved).toBe(before!.photo_bytes_reserved);

    // 7900 MB fits; the running total then refuses 200 MB more, and the parallel appends cannot overshoot
    const fits = await alice.post(`/api/upload-photos/${job}/append`, { files: hundred(79) });
    expect(fits.status).toBe(200);
    const reserved = (await jobRow(job))!.photo_bytes_reserved;
    expect(reserved).toBe(before!.photo_bytes_reserved + 79 * 100 * MIB);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => alice.post(`/api/upload-photos/${job}/append`, { files: hundred(1) })),
    );
    const accepted = results.filter((r) => r.status === 200).length;
    expect(results.every((r) => r.status === 200 || r.status === 413)).toBe(true);
    const capBytes = 8000 * MIB;
    expect(accepted).toBe(Math.floor((capBytes - reserved) / (100 * MIB)));
    const finalRow = await jobRow(job);
    expect(finalRow!.photo_bytes_reserved).toBe(reserved + accepted * 100 * MIB);
    expect(finalRow!.photo_bytes_reserved).toBeLessThanOrEqual(capBytes);
  });

  it('answers 409 when the job is not taking photos, and changes nothing', async () => {
    const job = await photoJob(alice, room.id);
    await setFields(`JOB#${job}`, 'JOB', { status: 'complete' });
    const before = await jobRow(job);
    const append = await alice.post(`/api/upload-photos/${job}/append`, {
      files: [{ filename: 'late.png', size: png.length }],
    });
    expect(append.status).toBe(409);
    expect(append.body.detail).toMatch(/awaiting grouping/);
    const confirm = await alice.post(`/api/upload-photos/${job}/confirm`, { indices: [0] });
    expect(confirm.status).toBe(409);
    const after = await jobRow(job);
    expect([after!.photo_bytes_reserved, after!.photo_next_index, after!.file_size_bytes]).toEqual([
      before!.photo_bytes_reserved,
      before!.photo_next_index,
      before!.file_size_bytes,
    ]);

    // importing_pdf still takes appends
    await setFields(`JOB#${job}`, 'JOB', { status: 'importing_pdf' });
    expect(
      (await alice.post(`/api/upload-photos/${job}/append`, { files: [{ filename: 'late.png', size: png.length }] }))
        .status,
    ).toBe(200);
  });
});

describe('POST /api/upload-photos refusals write nothing', () => {
  let emptyRoom: Awaited<ReturnType<typeof newRoom>>;
  beforeAll(async () => {
    emptyRoom = await newRoom(alice, 'Garage');
  });

  it.each([
    [
      'a PDF contents list over 512 MiB',
      [
        { filename: 'a.jpg', size: 10 },
        { filename: 'list.pdf', size: 512 * MIB + 1 },
      ],
      413,
      /^list\.pdf is larger than the 512 MiB limit/,
    ],
    [
      'more than 20 PDF contents lists',
      Array.from({ length: 21 }, (_, i) => ({ filename: `list-${i}.pdf`, size: 10 })),
      400,
      /At most 20 PDF contents lists per upload/,
    ],
    ['a non-image', [{ filename: 'clip.mov', size: 10 }], 400, /clip\.mov/],
    ['a photo over 100 MB', [{ filename: 'huge.heic', size: 101 * MIB }], 413, /huge\.heic/],
    [
      'a batch over MAX_PHOTO_UPLOAD_MB',
      Array.from({ length: 81 }, (_, i) => ({ filename: `p${i}.jpg`, size: 100 * MIB })),
      413,
      /MAX_PHOTO_UPLOAD_MB/,
    ],
  ])('%s', async (_label, files, status, detail) => {
    const res = await alice.post('/api/upload-photos', { room_id: emptyRoom.id, files });
    expect(res.status).toBe(status);
    expect(res.body.detail).toMatch(detail);
    expect(await jobsInRoom(emptyRoom.id)).toBe(0);
    expect(await listKeys(`teams/${emptyRoom.team_id}/claims/${emptyRoom.claim_id}/`)).toEqual([]);
  });

  it('takes a PDF contents list among the photos: the job starts in importing_pdf with a slot for it', async () => {
    // The whole contents-list flow is followed in tests/e2e/pdf-upload.test.ts.
    const pdfRoom = await newRoom(alice, 'Attic');
    const res = await alice.post('/api/upload-photos', {
      room_id: pdfRoom.id,
      files: [
        { filename: 'a.jpg', size: 10 },
        { filename: 'list.pdf', size: 10 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.job.status).toBe('importing_pdf');
    expect(res.body.uploads).toHaveLength(1);
    expect(res.body.documents).toEqual([expect.objectContaining({ document: 0, original_filename: 'list.pdf' })]);
  });

  it('answers 422 for a malformed manifest and 404 for an unknown room', async () => {
    expect((await alice.post('/api/upload-photos', { room_id: emptyRoom.id, files: [] })).status).toBe(422);
    expect(
      (
        await alice.post('/api/upload-photos', {
          room_id: emptyRoom.id,
          files: [{ filename: 'a.jpg', size: 5 }],
          captured_ats: [],
        })
      ).status,
    ).toBe(422);
    expect(
      (await alice.post('/api/upload-photos', { room_id: randomUUID(), files: [{ filename: 'a.jpg', size: 5 }] }))
        .status,
    ).toBe(404);
    expect(await jobsInRoom(emptyRoom.id)).toBe(0);
  });
});

describe('the bucket enforces each presigned POST', () => {
  it('refuses more bytes than the slot allows and stores nothing', async () => {
    const started = await alice.post('/api/upload-photos', {
      room_id: room.id,
      files: [{ filename: 'small.png', size: png.length }],
    });
    expect(started.status).toBe(201);
    const slot: Slot = started.body.uploads[0];
    const bigger = Buffer.concat([png, randomBytes(1024)]);
    const refused = await postToBucket(slot, bigger);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/EntityTooLarge/);
    expect(await objectExists(slot.fields.key)).toBe(false);
    // the declared size itself is fine
    expect(await postToBucket(slot, png)).toMatchObject({ status: 204 });
  });
});

describe('content types', () => {
  /** The Content-Type a capability URL is served with, and the bytes. */
  async function served(url: string) {
    const redirect = await request('GET', url);
    expect(redirect.status).toBe(302);
    const res = await fetch(redirect.headers.get('location')!);
    expect(res.status).toBe(200);
    return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it('signs the declared image type into the POST policy, and a neutral type for anything else', async () => {
    const started = await alice.post('/api/upload-photos', {
      room_id: room.id,
      files: [
        { filename: 'a.png', size: png.length, content_type: 'image/png' },
        { filename: 'b.png', size: png.length, content_type: 'text/html' },
      ],
    });
    expect(started.status).toBe(201);
    const [declared, claimedHtml]: Slot[] = started.body.uploads;
    expect(declared.fields['Content-Type']).toBe('image/png');
    expect(claimedHtml.fields['Content-Type']).toBe('application/octet-stream');

    // The browser cannot swap the type: the policy holds it.
    const swapped = await postToBucket(
      { ...claimedHtml, fields: { ...claimedHtml.fields, 'Content-Type': 'text/html' } },
      png,
    );
    expect(swapped.status).toBe(403);
    expect(swapped.text).toMatch(/Policy Condition failed/);
    expect(await objectExists(claimedHtml.fields.key)).toBe(false);
  });

  it('serves a PNG claimed as image/jpeg or text/html with the type its bytes have', async () => {
    const started = await alice.post('/api/upload-photos', {
      room_id: room.id,
      files: [
        { filename: 'claims-jpeg.jpg', size: png.length, content_type: 'image/jpeg' },
        { filename: 'claims-html.png', size: png.length, content_type: 'text/html' },
      ],
    });
    const slots: Slot[] = started.body.uploads;
    for (const slot of slots) expect(await postToBucket(slot, png)).toMatchObject({ status: 204 });
    const jobId = started.body.job.id as string;
    expect(
      (await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: slots.map((s) => s.index) })).status,
    ).toBe(200);
    const rows = await eventually(async () => {
      const all = await stagedRows(jobId);
      return all.length === 2 && all.every((r) => r.normalized) ? all : null;
    });

    // After the re-encode: the JPEG the service wrote.
    for (const row of rows) {
      const after = await served(`/api/photos/${jobId}/${row.filename}`);
      expect(after.type).toBe('image/jpeg');
      expect(after.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }

    // Before the re-encode the original is served: put each back as it was
    // uploaded, stored with the browser's claimed type.
    for (const [row, claimed] of rows.map((r, i) => [r, i === 0 ? 'image/jpeg' : 'text/html'] as const)) {
      await s3.send(new PutObjectCommand({ Bucket: bucket(), Key: row.incoming_key, Body: png, ContentType: claimed }));
      await setFields(row.pk, row.sk, { normalized: false });
      const before = await served(`/api/photos/${jobId}/${row.filename}`);
      expect(before.type).toBe('image/png');
      expect(before.bytes.equals(png)).toBe(true);
    }
  });
});

describe('unreadable photos', () => {
  it('are soft-deleted with a job log line when the header passes but the image cannot be decoded', async () => {
    const broken = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
      Buffer.from('JFIF\0'),
      randomBytes(300),
    ]);
    const started = await alice.post('/api/upload-photos', {
      room_id: room.id,
      files: [{ filename: 'broken.jpg', size: broken.length }],
    });
    const jobId = started.body.job.id;
    expect(await postToBucket(started.body.uploads[0], broken)).toMatchObject({ status: 204 });
    const confirmed = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [0] });
    expect(confirmed.body.staged_photos).toHaveLength(1);
    const photo = await eventually(async () => {
      const list = (await alice.get(`/api/jobs/${jobId}/staged-photos`)).body;
      return list[0]?.deleted ? list[0] : null;
    }, 60_000);
    expect(photo).toMatchObject({ normalized: false, original_filename: 'broken.jpg' });
    expect((await request('GET', photo.url)).status).toBe(404);
    // The worker marks the photo, then writes the log line: wait for the line too.
    await eventually(
      async () => (await jobLogLines(jobId)).some((l) => /broken\.jpg could not be read/.test(l)),
      10_000,
    );
    const row = (await stagedRows(jobId))[0];
    expect(row.unreadable_reason).toEqual(expect.any(String));
  });
});

describe('team scoping', () => {
  it('answers 404 to another team on every id route and changes nothing', async () => {
    const jobId = await photoJob(alice, room.id);
    const appended = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [{ filename: 'x.png', size: png.length }],
    });
    expect(await postToBucket(appended.body.uploads[0], png)).toMatchObject({ status: 204 });
    // let the background re-encode of the first photo finish so the rows hold still
    await eventually(async () => (await stagedRows(jobId)).every((r) => r.normalized));
    const before = await jobRow(jobId);
    const rowsBefore = await stagedRows(jobId);
    const jobsBefore = await jobsInRoom(room.id);

    const attempts = [
      await mallory.post('/api/upload-photos', { room_id: room.id, files: [{ filename: 'x.png', size: 10 }] }),
      await mallory.post(`/api/upload-photos/${jobId}/append`, { files: [{ filename: 'x.png', size: 10 }] }),
      await mallory.post(`/api/upload-photos/${jobId}/append`, {
        files: [{ filename: 'x.png', size: 10 }],
        start_index: 50,
      }),
      await mallory.post(`/api/upload-photos/${jobId}/confirm`, { indices: [0, 1] }),
      await mallory.get(`/api/jobs/${jobId}/staged-photos`),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(jobId);
    }
    expect(await jobRow(jobId)).toEqual(before);
    expect(await stagedRows(jobId)).toEqual(rowsBefore);
    expect(await jobsInRoom(room.id)).toBe(jobsBefore);

    // the upload Mallory tried to confirm is still Alice's to confirm
    const confirmed = await bob.post(`/api/upload-photos/${jobId}/confirm`, { indices: [1] });
    expect(confirmed.body.staged_photos.map((p: any) => p.index)).toEqual([1]);
  });

  it('refuses without a token', async () => {
    expect(
      (
        await request('POST', '/api/upload-photos', {
          body: { room_id: room.id, files: [{ filename: 'a.jpg', size: 5 }] },
        })
      ).status,
    ).toBe(401);
    expect((await request('GET', `/api/jobs/${randomUUID()}/staged-photos`)).status).toBe(401);
  });
});
