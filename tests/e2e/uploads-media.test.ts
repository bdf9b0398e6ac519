/**
 * Chunked video/audio uploads over real HTTP (spec: Uploads > Chunked upload;
 * States: video/audio upload; Errors 400/413): the browser's path
 * is init → part URLs → PUT each part straight to S3 → status → complete,
 * and the probe worker then stores the measured duration on the job.
 * Every refusal is checked to have written nothing.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Client, eventually } from '../support/api';
import { bucket, doc, getRow, invokeFunction, s3, setFields, table } from '../support/aws';
import { newTeamMember, teammateOf } from '../support/tokens';
import { makeVideo } from '../support/uploads';

const MIB = 1024 * 1024;
const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';
const work = mkdtempSync(join(tmpdir(), 'uploads-media-'));

let alice: Client;
let bob: Client; // Alice's teammate
let mallory: Client; // another team
let room: { id: string; claim_id: string; team_id: string };
let otherRoom: { id: string };

/** A real short clip: 25 s of test pattern at 10 fps with a sine tone. */
let videoFile: string;
/** A real 7 s AAC voice note. */
let audioFile: string;

beforeAll(async () => {
  const member = newTeamMember();
  alice = await Client.signIn(member);
  bob = await Client.signIn(teammateOf(member));
  mallory = await Client.signIn(newTeamMember());
  room = await newRoom(alice);
  otherRoom = await newRoom(mallory);

  videoFile = join(work, 'Kitchen walkthrough.MP4');
  makeVideo(videoFile, 25);
  audioFile = join(work, 'voice note.m4a');
  execFileSync(ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=300:duration=7',
    '-c:a',
    'aac',
    audioFile,
  ]);
});

async function newRoom(client: Client) {
  const claim = await client.post('/api/claims', { claim_number: `UP-${randomUUID().slice(0, 8)}` });
  expect(claim.status).toBe(201);
  const created = await client.post(`/api/claims/${claim.body.id}/rooms`, { name: 'Kitchen' });
  expect(created.status).toBe(201);
  const row = await getRow(`ROOM#${created.body.id}`, 'ROOM');
  return { id: created.body.id as string, claim_id: claim.body.id as string, team_id: row!.team_id as string };
}

/** Upload rows in the open index for a room. */
async function openUploadsIn(roomId: string) {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: 'room_id = :room',
      ExpressionAttributeValues: { ':pk': 'UPLOADS#OPEN', ':room': roomId },
    }),
  );
  return Items ?? [];
}

/** S3 multipart uploads in progress under a claim. */
async function multipartUploadsUnder(r: { team_id: string; claim_id: string }) {
  const { Uploads } = await s3.send(
    new ListMultipartUploadsCommand({ Bucket: bucket(), Prefix: `teams/${r.team_id}/claims/${r.claim_id}/` }),
  );
  return Uploads ?? [];
}

async function nothingOpenIn(r: typeof room) {
  expect(await openUploadsIn(r.id)).toEqual([]);
  expect(await multipartUploadsUnder(r)).toEqual([]);
}

async function init(client: Client, body: Record<string, unknown>) {
  return client.post('/api/uploads/init', body);
}

/** Asks for part URLs and PUTs each slice as a browser would (fetch, raw body). */
async function sendParts(client: Client, uploadId: string, data: Buffer, chunkSize: number, indices: number[]) {
  const res = await client.post(`/api/uploads/${uploadId}/part-urls`, { parts: indices });
  expect(res.status).toBe(200);
  for (const { index, url, size } of res.body.urls) {
    const slice = data.subarray(index * chunkSize, index * chunkSize + size);
    expect(slice.length).toBe(size);
    const put = await fetch(url, { method: 'PUT', body: slice });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBeTruthy();
  }
  return res.body.urls as { index: number; url: string; size: number; expires_at: string }[];
}

async function uploadRow(id: string) {
  return (await getRow(`UPLOAD#${id}`, 'UPLOAD')) as Record<string, any>;
}

async function objectBytes(key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

async function jobLogMessages(jobId: string): Promise<string[]> {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :line)',
      ExpressionAttributeValues: { ':pk': `JOBLOG#${jobId}`, ':line': 'LINE#' },
    }),
  );
  return (Items ?? []).sort((a, b) => a.seq - b.seq).map((i) => String(i.message));
}

/**
 * Recomputes a presigned URL's SigV4 signature for a given Content-Length.
 * Real S3 refuses a PUT whose signature does not match what it computes from
 * the request it received, so a URL that verifies for exactly one length
 * cannot be used for a body of any other size. (s3rver does not verify SigV4
 * signatures, so this is checked here rather than by S3 refusing the PUT.)
 */
function signatureMatches(url: string, contentLength: number): boolean {
  const u = new URL(url);
  const q = u.searchParams;
  const enc = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const signed = (q.get('X-Amz-SignedHeaders') ?? '').split(';');
  const headerValues: Record<string, string> = { host: u.host, 'content-length': String(contentLength) };
  const canonicalQuery = [...q.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [enc(k), enc(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'PUT',
    u.pathname,
    canonicalQuery,
    signed.map((h) => `${h}:${headerValues[h]}\n`).join(''),
    signed.join(';'),
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const [, date, region, service] = (q.get('X-Amz-Credential') ?? '').split('/');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    q.get('X-Amz-Date'),
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
  const secret = process.env.AWS_SECRET_ACCESS_KEY ?? 'S3RVER';
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex') === q.get('X-Amz-Signature');
}

describe('video upload, end to end', () => {
  let uploadId: string;
  let jobId: string;
  let bytes: Buffer;

  it('inits, sends the part straight to S3, reports it received and completes into a job', async () => {
    bytes = readFileSync(videoFile);
    const started = await init(alice, {
      kind: 'video',
      filename: 'Kitchen walkthrough.MP4',
      room_id: room.id,
      total_size: bytes.length,
    });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({ upload_id: expect.any(String), chunk_size: 16 * MIB, part_count: 1, received: [] });
    uploadId = started.body.upload_id;

    const row = await uploadRow(uploadId);
    expect(row).toMatchObject({
      id: uploadId,
      status: 'open',
      kind: 'video',
      filename: 'Kitchen walkthrough.MP4',
      total_size: bytes.length,
      room_id: room.id,
      claim_id: room.claim_id,
      team_id: room.team_id,
      gsi2pk: 'UPLOADS#OPEN',
      gsi2sk: row.created_at,
    });
    expect(row.s3_key).toBe(
      `teams/${room.team_id}/claims/${room.claim_id}/jobs/${row.job_id}/media/Kitchen_walkthrough.mp4`,
    );

    expect((await alice.get(`/api/uploads/${uploadId}`)).body).toEqual({
      upload_id: uploadId,
      status: 'open',
      chunk_size: 16 * MIB,
      part_count: 1,
      received: [],
      job_id: null,
    });

    const before = Date.now();
    const [part] = await sendParts(alice, uploadId, bytes, 16 * MIB, [0]);
    expect(part).toMatchObject({ index: 0, size: bytes.length });
    const expiresIn = Date.parse(part.expires_at) - before;
    expect(expiresIn).toBeGreaterThan(850_000);
    expect(expiresIn).toBeLessThanOrEqual(905_000);

    // A teammate sees the same upload.
    expect((await bob.get(`/api/uploads/${uploadId}`)).body).toMatchObject({ status: 'open', received: [0] });

    const done = await alice.post(`/api/uploads/${uploadId}/complete`);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({
      id: row.job_id,
      room_id: room.id,
      claim_id: room.claim_id,
      source_type: 'video',
      status: 'awaiting_confirmation',
      original_filename: 'Kitchen walkthrough.MP4',
      file_size_bytes: bytes.length,
      duration: null,
      pipeline_available: true,
    });
    jobId = done.body.id;

    const assembled = await objectBytes(row.s3_key);
    expect(assembled.equals(bytes)).toBe(true);
    expect(await getRow(`JOB#${jobId}`, 'JOB')).toMatchObject({
      media_key: row.s3_key,
      status: 'awaiting_confirmation',
      gsi1pk: `ROOM#${room.id}#JOBS`,
    });
    const after = await uploadRow(uploadId);
    expect(after.status).toBe('completed');
    expect(after.gsi2pk).toBeUndefined();
  });

  it('has the probe worker store the measured duration on the job', async () => {
    const job = await eventually(async () => {
      const r = await getRow(`JOB#${jobId}`, 'JOB');
      return r && typeof r.duration === 'number' ? r : null;
    }, 45_000);
    expect(job.duration).toBeCloseTo(25, 0);
    expect(job.status).toBe('awaiting_confirmation');
    // The log line follows the duration write.
    await eventually(
      async () =>
        (await jobLogMessages(jobId)).some((m) =>
          /^Measured duration 25\.\d s \(video 320x240 at 10 fps, audio\)$/.test(m),
        ),
      10_000,
    );
  });

  it('records a non-restorable upload_video activity naming the file', async () => {
    const feed = await alice.get('/api/activity?limit=50');
    const entry = feed.body.items.find((e: any) => e.entity_id === jobId);
    expect(entry).toMatchObject({
      action_type: 'upload_video',
      target: 'Kitchen walkthrough.MP4',
      restorable: false,
      entity_type: 'job',
    });
  });

  it('answers a repeated complete with the same job and never makes a second one', async () => {
    const again = await bob.post(`/api/uploads/${uploadId}/complete`);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(jobId);
    const status = await alice.get(`/api/uploads/${uploadId}`);
    expect(status.body).toEqual({
      upload_id: uploadId,
      status: 'completed',
      chunk_size: 16 * MIB,
      part_count: 1,
      received: [0],
      job_id: jobId,
    });
    const feed = await alice.get('/api/activity?limit=50');
    expect(feed.body.items.filter((e: any) => e.entity_id === jobId)).toHaveLength(1);
  });

  it('refuses to abort or re-sign a completed upload (409)', async () => {
    const del = await alice.delete(`/api/uploads/${uploadId}`);
    expect(del.status).toBe(409);
    expect(del.body.detail).toMatch(/already completed/);
    expect((await alice.post(`/api/uploads/${uploadId}/part-urls`, { parts: [0] })).status).toBe(409);
    expect(await objectBytes((await uploadRow(uploadId)).s3_key)).toHaveLength(bytes.length);
  });
});

describe('audio upload', () => {
  it('completes into an audio job whose duration is measured', async () => {
    const bytes = readFileSync(audioFile);
    const started = await init(bob, {
      kind: 'audio',
      filename: 'voice note.M4A',
      room_id: room.id,
      total_size: bytes.length,
    });
    expect(started.status).toBe(201);
    await sendParts(bob, started.body.upload_id, bytes, started.body.chunk_size, [0]);
    const done = await bob.post(`/api/uploads/${started.body.upload_id}/complete`);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({
      source_type: 'audio',
      status: 'awaiting_confirmation',
      pipeline_available: true,
      file_size_bytes: bytes.length,
    });
    const job = await eventually(async () => {
      const r = await getRow(`JOB#${done.body.id}`, 'JOB');
      return r && typeof r.duration === 'number' ? r : null;
    }, 45_000);
    expect(job.duration).toBeCloseTo(7, 0);
    const feed = await alice.get('/api/activity?limit=50');
    expect(feed.body.items.find((e: any) => e.entity_id === done.body.id)).toMatchObject({
      action_type: 'upload_audio',
      target: 'voice note.M4A',
      restorable: false,
    });
  });
});

describe('multi-part upload', () => {
  // 16 MiB + 3 MiB + 77 bytes: two parts, the last one short.
  const total = 16 * MIB + 3 * MIB + 77;
  const data = randomBytes(total);
  let uploadId: string;
  let row: Record<string, any>;

  it('signs each part URL for its exact size', async () => {
    const started = await init(alice, {
      kind: 'video',
      filename: 'living-room.mkv',
      room_id: room.id,
      total_size: total,
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ chunk_size: 16 * MIB, part_count: 2, received: [] });
    uploadId = started.body.upload_id;
    row = await uploadRow(uploadId);

    const res = await alice.post(`/api/uploads/${uploadId}/part-urls`, { parts: [1, 0, 1] });
    expect(res.status).toBe(200);
    expect(res.body.urls.map((u: any) => [u.index, u.size])).toEqual([
      [1, 3 * MIB + 77],
      [0, 16 * MIB],
    ]);
    for (const { url, size, index } of res.body.urls) {
      const q = new URL(url).searchParams;
      expect(q.get('X-Amz-SignedHeaders')!.split(';')).toContain('content-length');
      expect(q.get('partNumber')).toBe(String(index + 1));
      expect(q.get('uploadId')).toBe(row.s3_upload_id);
      expect(Number(q.get('X-Amz-Expires'))).toBe(900);
      // No checksum parameters: a browser PUT could never satisfy the empty-body CRC (aws-sdk-js-v3 #6994).
      expect([...q.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
      expect(signatureMatches(url, size)).toBe(true);
      expect(signatureMatches(url, size + 1)).toBe(false);
      expect(signatureMatches(url, size - 1)).toBe(false);
    }
  });

  it('reports received parts and refuses to complete with a gap, naming the missing index and writing nothing', async () => {
    await sendParts(alice, uploadId, data, 16 * MIB, [1]);
    expect((await alice.get(`/api/uploads/${uploadId}`)).body).toMatchObject({ status: 'open', received: [1] });

    const res = await alice.post(`/api/uploads/${uploadId}/complete`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Upload incomplete: missing part 0 of 0-1 (1 of 2 received).');
    expect(await getRow(`JOB#${row.job_id}`, 'JOB')).toBeNull();
    expect((await uploadRow(uploadId)).status).toBe('open');
    expect((await multipartUploadsUnder(room)).map((u) => u.UploadId)).toContain(row.s3_upload_id);
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket(), Key: row.s3_key }))).rejects.toBeTruthy();
  });

  it('re-signs and re-sends a part idempotently, then assembles the parts in order', async () => {
    await sendParts(alice, uploadId, data, 16 * MIB, [1]); // again: S3 keeps the last copy of a part
    await sendParts(alice, uploadId, data, 16 * MIB, [0]);
    expect((await alice.get(`/api/uploads/${uploadId}`)).body).toMatchObject({ status: 'open', received: [0, 1] });

    const done = await alice.post(`/api/uploads/${uploadId}/complete`);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ id: row.job_id, file_size_bytes: total, status: 'awaiting_confirmation' });
    const assembled = await objectBytes(row.s3_key);
    expect(assembled.length).toBe(total);
    expect(createHash('sha256').update(assembled).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    expect((await multipartUploadsUnder(room)).map((u) => u.UploadId)).not.toContain(row.s3_upload_id);
  });

  it('records a file ffprobe cannot make sense of on the job at once, leaving no duration', async () => {
    const log = await eventually(
      async () => {
        const lines = await jobLogMessages(row.job_id);
        return lines.some((m) => m.startsWith('Could not measure the duration of living-room.mkv')) ? lines : null;
      },
      30_000,
      500,
    );
    expect(log.find((m) => m.startsWith('Could not measure the duration'))).toMatch(
      /Invalid data found when processing input/,
    );
    // Not retried: another try cannot make random bytes a video.
    expect(log.filter((m) => m.startsWith('Could not measure the file yet'))).toEqual([]);
    expect(log.join('\n')).not.toMatch(/X-Amz-Signature|http:/);
    expect((await getRow(`JOB#${row.job_id}`, 'JOB'))!.duration).toBeNull();
  });
});

describe('size mismatch and abort', () => {
  it('refuses to complete when the assembled size differs from total_size, then aborts idempotently', async () => {
    const bytes = readFileSync(audioFile);
    const declared = bytes.length + 10;
    const started = await init(alice, { kind: 'audio', filename: 'memo.m4a', room_id: room.id, total_size: declared });
    expect(started.status).toBe(201);
    const id = started.body.upload_id;
    const row = await uploadRow(id);
    // A part of the wrong size, sent with the emulator's own credentials (a presigned
    // URL is signed for exactly `declared` bytes, which real S3 would enforce).
    await s3.send(
      new UploadPartCommand({
        Bucket: bucket(),
        Key: row.s3_key,
        UploadId: row.s3_upload_id,
        PartNumber: 1,
        Body: bytes,
        ContentLength: bytes.length,
      }),
    );
    expect((await alice.get(`/api/uploads/${id}`)).body.received).toEqual([0]);

    const res = await alice.post(`/api/uploads/${id}/complete`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(
      `Assembled size ${bytes.length} bytes differs from total_size ${declared} (10 bytes short): part 0 is ${bytes.length} bytes, expected ${declared}.`,
    );
    expect(await getRow(`JOB#${row.job_id}`, 'JOB')).toBeNull();
    expect((await uploadRow(id)).status).toBe('open');

    const aborted = await alice.delete(`/api/uploads/${id}`);
    expect(aborted.status).toBe(200);
    expect(aborted.body).toEqual({ upload_id: id, status: 'aborted' });
    expect((await bob.delete(`/api/uploads/${id}`)).body).toEqual({ upload_id: id, status: 'aborted' });
    const after = await uploadRow(id);
    expect(after.status).toBe('aborted');
    expect(after.gsi2pk).toBeUndefined();
    expect((await multipartUploadsUnder(room)).map((u) => u.UploadId)).not.toContain(row.s3_upload_id);

    expect((await alice.get(`/api/uploads/${id}`)).body).toEqual({
      upload_id: id,
      status: 'aborted',
      chunk_size: 16 * MIB,
      part_count: 1,
      received: [],
      job_id: null,
    });
    const complete = await alice.post(`/api/uploads/${id}/complete`);
    expect(complete.status).toBe(409);
    expect(complete.body.detail).toMatch(/aborted/);
    expect((await alice.post(`/api/uploads/${id}/part-urls`, { parts: [0] })).status).toBe(409);
    expect(await getRow(`JOB#${row.job_id}`, 'JOB')).toBeNull();
  });
});

describe('init refusals write nothing', () => {
  beforeEach(async () => nothingOpenIn(room));
  afterEach(async () => nothingOpenIn(room));

  it.each([
    [
      'video',
      'notes.txt',
      /^Unsupported file type "\.txt" for video upload\. Allowed: \.mp4, \.mov, \.m4v, \.avi, \.mkv, \.webm, \.3gp, \.mts$/,
    ],
    ['video', 'memo.mp3', /"\.mp3" for video/],
    ['audio', 'clip.MP4', /"\.mp4" for audio upload\. Allowed: \.mp3, \.m4a/],
    ['audio', 'no-extension', /\(no extension\)/],
  ])('400 for a %s named %s', async (kind, filename, message) => {
    const res = await init(alice, { kind, filename, room_id: room.id, total_size: 1000 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(message);
  });

  it('413 above MAX_UPLOAD_SIZE_MB, with a clear message', async () => {
    expect(
      (await init(alice, { kind: 'video', filename: 'big.mp4', room_id: room.id, total_size: 2000 * MIB })).status,
    ).toBe(201 /* exactly at the cap is fine */);
    await alice.delete(`/api/uploads/${(await openUploadsIn(room.id))[0].id}`);
    const res = await init(alice, {
      kind: 'video',
      filename: 'huge.mp4',
      room_id: room.id,
      total_size: 2000 * MIB + 1,
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('File too large: 2000 MB exceeds the 2000 MB limit for video and audio uploads.');
    expect(
      (await init(alice, { kind: 'audio', filename: 'huge.wav', room_id: room.id, total_size: 5000 * MIB })).body
        .detail,
    ).toMatch(/^File too large: 5000 MB exceeds the 2000 MB limit/);
  });

  it('404 for an unknown room and for another team’s room', async () => {
    const unknown = await init(alice, { kind: 'video', filename: 'a.mp4', room_id: randomUUID(), total_size: 1000 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Room not found');
    const foreign = await init(alice, { kind: 'video', filename: 'a.mp4', room_id: otherRoom.id, total_size: 1000 });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Room not found');
    expect(await openUploadsIn(otherRoom.id)).toEqual([]);
  });

  it.each([
    ['a photo kind', { kind: 'photo', filename: 'a.jpg', total_size: 10 }, 'body.kind'],
    ['a zero size', { kind: 'video', filename: 'a.mp4', total_size: 0 }, 'body.total_size'],
    ['a fractional size', { kind: 'video', filename: 'a.mp4', total_size: 10.5 }, 'body.total_size'],
    ['an empty file name', { kind: 'video', filename: '  ', total_size: 10 }, 'body.filename'],
    ['a non-UUID room', { kind: 'video', filename: 'a.mp4', total_size: 10, room_id: 'kitchen' }, 'body.room_id'],
    ['an unknown field', { kind: 'video', filename: 'a.mp4', total_size: 10, chunk_size: 1 }, 'body'],
  ])('422 for %s', async (_label, body, field) => {
    const res = await init(alice, { room_id: room.id, ...body });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  });
});

describe('upload ids', () => {
  let foreignId: string;

  beforeAll(async () => {
    const started = await init(mallory, {
      kind: 'video',
      filename: 'theirs.mp4',
      room_id: otherRoom.id,
      total_size: 6 * MIB,
    });
    expect(started.status).toBe(201);
    foreignId = started.body.upload_id;
  });

  const routes = (id: string) =>
    [
      ['GET', () => alice.get(`/api/uploads/${id}`)],
      ['part-urls', () => alice.post(`/api/uploads/${id}/part-urls`, { parts: [0] })],
      ['complete', () => alice.post(`/api/uploads/${id}/complete`)],
      ['DELETE', () => alice.delete(`/api/uploads/${id}`)],
    ] as const;

  it('answers 422 for a non-UUID upload id on every route', async () => {
    for (const [label, call] of routes('not-a-uuid')) {
      const res = await call();
      expect([label, res.status]).toEqual([label, 422]);
      expect(res.body.errors[0].field).toBe('path.id');
    }
  });

  it('answers 404 for a missing upload on every route', async () => {
    for (const [label, call] of routes(randomUUID())) {
      const res = await call();
      expect([label, res.status, res.body.detail]).toEqual([label, 404, 'Upload not found']);
    }
  });

  it('answers 404 for another team’s upload on every route and leaves it untouched', async () => {
    for (const [label, call] of routes(foreignId)) {
      const res = await call();
      expect([label, res.status, res.body.detail]).toEqual([label, 404, 'Upload not found']);
    }
    expect((await uploadRow(foreignId)).status).toBe('open');
    expect((await mallory.get(`/api/uploads/${foreignId}`)).body.status).toBe('open');
    expect((await mallory.delete(`/api/uploads/${foreignId}`)).status).toBe(200);
  });

  it('answers 422 for part indices out of range, negative or too many', async () => {
    const started = await init(alice, { kind: 'video', filename: 'short.mp4', room_id: room.id, total_size: 20 * MIB });
    const id = started.body.upload_id;
    expect(started.body.part_count).toBe(2);
    const out = await alice.post(`/api/uploads/${id}/part-urls`, { parts: [0, 2] });
    expect(out.status).toBe(422);
    expect(out.body.errors).toEqual([
      { field: 'body.parts.1', message: '2 is out of range: this upload has parts 0-1' },
    ]);
    expect((await alice.post(`/api/uploads/${id}/part-urls`, { parts: [-1] })).status).toBe(422);
    expect((await alice.post(`/api/uploads/${id}/part-urls`, { parts: [] })).status).toBe(422);
    expect(
      (await alice.post(`/api/uploads/${id}/part-urls`, { parts: Array.from({ length: 101 }, () => 0) })).status,
    ).toBe(422);
    expect((await alice.post(`/api/uploads/${id}/part-urls`, { parts: [0.5] })).status).toBe(422);
    expect((await alice.delete(`/api/uploads/${id}`)).status).toBe(200);
  });
});

describe('stale-upload sweep', () => {
  it('expires uploads open for over a day and aborts their multipart uploads, leaving fresh ones', async () => {
    const stale = (
      await init(alice, { kind: 'video', filename: 'forgotten.mp4', room_id: room.id, total_size: 7 * MIB })
    ).body.upload_id;
    const fresh = (await init(alice, { kind: 'video', filename: 'ongoing.mp4', room_id: room.id, total_size: 7 * MIB }))
      .body.upload_id;
    const staleRow = await uploadRow(stale);
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000).toISOString();
    await setFields(`UPLOAD#${stale}`, 'UPLOAD', { created_at: dayAgo, gsi2sk: dayAgo });

    const result = await invokeFunction('uploadSweep');
    expect(result.error).toBeUndefined();
    expect(result.payload.expired).toBeGreaterThanOrEqual(1);

    const swept = await uploadRow(stale);
    expect(swept.status).toBe('expired');
    expect(swept.gsi2pk).toBeUndefined();
    expect((await multipartUploadsUnder(room)).map((u) => u.UploadId)).not.toContain(staleRow.s3_upload_id);
    expect((await alice.get(`/api/uploads/${stale}`)).body).toMatchObject({ status: 'expired', received: [] });
    const complete = await alice.post(`/api/uploads/${stale}/complete`);
    expect(complete.status).toBe(409);
    expect(complete.body.detail).toMatch(/expired/);
    expect((await alice.delete(`/api/uploads/${stale}`)).body).toEqual({ upload_id: stale, status: 'expired' });

    expect((await uploadRow(fresh)).status).toBe('open');
    expect((await alice.delete(`/api/uploads/${fresh}`)).status).toBe(200);
  });
});

afterAll(() => {
  // Generated inputs live in the OS temp dir; nothing is committed.
  rmSync(work, { recursive: true, force: true });
});
