/**
 * POST /api/upload (video) and POST /api/upload-audio over real HTTP: a file
 * never travels in these requests (API Gateway caps a request at 10 MB); each
 * answers like POST /api/uploads/init with the kind the route fixes, and the
 * client then PUTs the parts to the presigned URLs and completes the upload
 * into a video or audio job. Same validation, statuses and Idempotency-Key
 * behaviour as init; every refusal writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Client } from '../support/api';
import { bucket, doc, getRow, s3, table } from '../support/aws';
import { newTeamMember, teammateOf } from '../support/tokens';
import { makeVideo, newRoom, type TestRoom, waitForDuration } from '../support/uploads';

const MIB = 1024 * 1024;
const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';
const work = mkdtempSync(join(tmpdir(), 'upload-routes-'));
const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

let alice: Client;
let bob: Client; // Alice's teammate
let mallory: Client; // another team
let room: TestRoom;
let otherRoom: TestRoom;
let video: Buffer;
let audio: Buffer;

beforeAll(async () => {
  const member = newTeamMember();
  alice = await Client.signIn(member);
  bob = await Client.signIn(teammateOf(member));
  mallory = await Client.signIn(newTeamMember());
  room = await newRoom(alice);
  otherRoom = await newRoom(mallory, 'Garage');
  video = makeVideo(join(work, 'walkthrough.mp4'), 6);
  const audioFile = join(work, 'voice-note.mp3');
  execFileSync(ffmpeg, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=520:duration=5', audioFile]);
  audio = readFileSync(audioFile);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Upload rows still open in a room (the open-uploads index). */
async function openUploadsIn(roomId: string): Promise<Record<string, any>[]> {
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

async function abortOpenUploadsIn(roomId: string) {
  for (const upload of await openUploadsIn(roomId)) {
    expect((await alice.delete(`/api/uploads/${upload.id}`)).status).toBe(200);
  }
}

/** What a client does with the init answer: part URLs, a PUT per slice, then complete. */
async function sendPartsAndComplete(client: Client, started: { upload_id: string; chunk_size: number }, bytes: Buffer) {
  const parts = Array.from({ length: Math.ceil(bytes.length / started.chunk_size) }, (_, i) => i);
  const urls = await client.post(`/api/uploads/${started.upload_id}/part-urls`, { parts });
  expect(urls.status).toBe(200);
  for (const { index, url, size } of urls.body.urls) {
    const slice = bytes.subarray(index * started.chunk_size, index * started.chunk_size + size);
    expect((await fetch(url, { method: 'PUT', body: slice })).status).toBe(200);
  }
  return client.post(`/api/uploads/${started.upload_id}/complete`);
}

async function objectBytes(key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

describe.each([
  ['/api/upload', 'video', 'Kitchen walkthrough.MP4'],
  ['/api/upload-audio', 'audio', 'voice note.mp3'],
] as const)('POST %s', (path, kind, filename) => {
  it(`answers like POST /api/uploads/init, opening a ${kind} upload`, async () => {
    const body = { filename, room_id: room.id, total_size: 20 * MIB };
    const started = await alice.post(path, body);
    expect(started.status).toBe(201);
    expect(started.body).toEqual({ upload_id: expect.any(String), chunk_size: 16 * MIB, part_count: 2, received: [] });
    const init = await alice.post('/api/uploads/init', { ...body, kind });
    expect(Object.keys(started.body).sort()).toEqual(Object.keys(init.body).sort());

    const row = await getRow(`UPLOAD#${started.body.upload_id}`, 'UPLOAD');
    expect(row).toMatchObject({ kind, filename, status: 'open', room_id: room.id, team_id: room.team_id });
    // The upload routes take it from here, for a teammate too.
    expect((await bob.get(`/api/uploads/${started.body.upload_id}`)).body).toMatchObject({
      status: 'open',
      part_count: 2,
      received: [],
    });
    await abortOpenUploadsIn(room.id);
  });

  it(`accepts kind "${kind}" in the body (the init body as is)`, async () => {
    const res = await alice.post(path, { kind, filename, room_id: room.id, total_size: 1000 });
    expect(res.status).toBe(201);
    expect((await getRow(`UPLOAD#${res.body.upload_id}`, 'UPLOAD'))!.kind).toBe(kind);
    await abortOpenUploadsIn(room.id);
  });
});

describe('a file sent through the upload routes', () => {
  it('POST /api/upload → parts → complete becomes a video job with its duration measured', async () => {
    const started = await alice.post('/api/upload', {
      filename: 'Living room.mp4',
      room_id: room.id,
      total_size: video.length,
    });
    expect(started.status).toBe(201);
    const row = (await getRow(`UPLOAD#${started.body.upload_id}`, 'UPLOAD'))!;
    const done = await sendPartsAndComplete(alice, started.body, video);
    expect(done.status).toBe(201);
    // Prepaid billing is on in this stack: the job waits for confirmation of its quote.
    expect(done.body).toMatchObject({
      id: row.job_id,
      room_id: room.id,
      source_type: 'video',
      status: 'awaiting_confirmation',
      original_filename: 'Living room.mp4',
      file_size_bytes: video.length,
      pipeline_available: expect.any(Boolean),
    });
    expect((await objectBytes(row.s3_key)).equals(video)).toBe(true);
    expect((await waitForDuration(done.body.id)).duration).toBeCloseTo(6, 0);

    const feed = await alice.get('/api/activity?limit=50');
    expect(feed.body.items.filter((e: any) => e.entity_id === done.body.id)).toEqual([
      expect.objectContaining({ action_type: 'upload_video', target: 'Living room.mp4', restorable: false }),
    ]);
  });

  it('POST /api/upload-audio → parts → complete becomes an audio job with its duration measured', async () => {
    const started = await bob.post('/api/upload-audio', {
      filename: 'Voice note.MP3',
      room_id: room.id,
      total_size: audio.length,
    });
    expect(started.status).toBe(201);
    const done = await sendPartsAndComplete(bob, started.body, audio);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({
      source_type: 'audio',
      status: 'awaiting_confirmation',
      original_filename: 'Voice note.MP3',
      file_size_bytes: audio.length,
    });
    expect((await waitForDuration(done.body.id)).duration).toBeCloseTo(5, 0);

    const feed = await alice.get('/api/activity?limit=50');
    expect(feed.body.items.find((e: any) => e.entity_id === done.body.id)).toMatchObject({
      action_type: 'upload_audio',
      target: 'Voice note.MP3',
      restorable: false,
    });
  });
});

describe('refusals write nothing', () => {
  beforeEach(async () => expect(await openUploadsIn(room.id)).toEqual([]));
  afterEach(async () => {
    expect(await openUploadsIn(room.id)).toEqual([]);
    expect(await openUploadsIn(otherRoom.id)).toEqual([]);
  });

  it.each([
    ['/api/upload', 'another kind', { kind: 'audio', filename: 'a.mp4', total_size: 10 }, 'body.kind'],
    ['/api/upload-audio', 'another kind', { kind: 'video', filename: 'a.mp3', total_size: 10 }, 'body.kind'],
    ['/api/upload', 'a photo kind', { kind: 'photo', filename: 'a.mp4', total_size: 10 }, 'body.kind'],
    ['/api/upload', 'a zero size', { filename: 'a.mp4', total_size: 0 }, 'body.total_size'],
    ['/api/upload-audio', 'a missing size', { filename: 'a.mp3' }, 'body.total_size'],
    ['/api/upload-audio', 'an empty file name', { filename: ' ', total_size: 10 }, 'body.filename'],
    ['/api/upload', 'a non-UUID room', { filename: 'a.mp4', total_size: 10, room_id: 'den' }, 'body.room_id'],
    ['/api/upload', 'an unknown field', { filename: 'a.mp4', total_size: 10, chunk_size: 1 }, 'body'],
  ])('POST %s: 422 for %s', async (path, _label, body, field) => {
    const res = await alice.post(path, { room_id: room.id, ...body });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  });

  it('422 names the route’s kind when the body asks for the other one', async () => {
    const res = await alice.post('/api/upload', { kind: 'audio', filename: 'a.mp4', room_id: room.id, total_size: 9 });
    expect(res.body.errors).toEqual([{ field: 'body.kind', message: 'must be "video" on this route, or left out' }]);
  });

  it.each([
    ['/api/upload', 'memo.mp3', /^Unsupported file type "\.mp3" for video upload\. Allowed: \.mp4/],
    ['/api/upload-audio', 'clip.MP4', /^Unsupported file type "\.mp4" for audio upload\. Allowed: \.mp3/],
  ])('POST %s: 400 for %s', async (path, filename, message) => {
    const res = await alice.post(path, { filename, room_id: room.id, total_size: 1000 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(message);
  });

  it.each([
    ['/api/upload', 'huge.mp4'],
    ['/api/upload-audio', 'huge.wav'],
  ])('POST %s: 413 above MAX_UPLOAD_SIZE_MB', async (path, filename) => {
    const res = await alice.post(path, { filename, room_id: room.id, total_size: 2000 * MIB + 1 });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('File too large: 2000 MB exceeds the 2000 MB limit for video and audio uploads.');
  });

  it.each([
    ['/api/upload', 'a.mp4'],
    ['/api/upload-audio', 'a.m4a'],
  ])('POST %s: 404 for another team’s room and for an unknown room', async (path, filename) => {
    for (const roomId of [otherRoom.id, randomUUID()]) {
      const res = await alice.post(path, { filename, room_id: roomId, total_size: 1000 });
      expect([res.status, res.body.detail]).toEqual([404, 'Room not found']);
    }
  });
});

describe('Idempotency-Key', () => {
  it.each([
    ['/api/upload', 'walk.mp4'],
    ['/api/upload-audio', 'note.m4a'],
  ])('POST %s: a retry answers the same upload and opens one', async (path, filename) => {
    const retryRoom = await newRoom(alice, 'Attic');
    const key = randomUUID();
    const body = { filename, room_id: retryRoom.id, total_size: 5 * MIB };
    const first = await alice.post(path, body, withKey(key));
    expect(first.status).toBe(201);
    const again = await alice.post(path, body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await openUploadsIn(retryRoom.id)).map((u) => u.id)).toEqual([first.body.upload_id]);

    const other = await alice.post(path, { ...body, total_size: 6 * MIB }, withKey(key));
    expect(other.status).toBe(422);
    expect(other.body.detail).toMatch(/Idempotency-Key/);
    expect(await openUploadsIn(retryRoom.id)).toHaveLength(1);
  });

  it('keeps the two routes apart: one key opens a video and an audio upload', async () => {
    const key = randomUUID();
    const base = { room_id: room.id, total_size: 1000 };
    const videoUpload = await alice.post('/api/upload', { ...base, filename: 'a.mp4' }, withKey(key));
    const audioUpload = await alice.post('/api/upload-audio', { ...base, filename: 'a.mp3' }, withKey(key));
    expect([videoUpload.status, audioUpload.status]).toEqual([201, 201]);
    expect(audioUpload.body.upload_id).not.toBe(videoUpload.body.upload_id);
    await abortOpenUploadsIn(room.id);
  });
});
