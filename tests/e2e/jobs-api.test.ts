/**
 * The jobs API over real HTTP (spec: Endpoints > Jobs; States and transitions:
 * process, cancel and 402 rows; Errors; Limits > Credit prices and charging;
 * Authentication > Team scoping and Capability URLs).
 *
 * The test service runs with billing OFF and NO pipeline registered for any
 * source type, so POST /api/jobs/{id}/process answers 503 and changes nothing.
 * Every refusal is checked to have written nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Client, eventually, request } from '../support/api';
import { doc, getRow, listKeys, objectExists, putObject, seedItem, setFields, table } from '../support/aws';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { packFrames, recordOneUnitRun } from '../support/video-frames';
import { getJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { newTeamMember } from '../support/tokens';
import {
  chunkedUpload,
  makeVideo,
  newRoom,
  photoJob,
  smallPng,
  waitForDuration,
  type TestRoom,
} from '../support/uploads';

const work = mkdtempSync(join(tmpdir(), 'jobs-api-'));

let alice: Client;
let mallory: Client; // another team
let admin: Client; // on the admin allowlist, in a team of its own
let room: TestRoom; // Alice's
let malloryRoom: TestRoom;

let videoBytes: Buffer;
let photoJobId: string; // Alice: awaiting_grouping, 3 staged photos
let photoIndices: number[];
let videoJobId: string; // Alice: awaiting_confirmation, duration 25 s measured
let malloryJobId: string;

const jobRow = (id: string) => getRow(`JOB#${id}`, 'JOB');
const photoSk = (index: number) => `PHOTO#${String(index).padStart(6, '0')}`;

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

async function activityFor(client: Client, jobId: string): Promise<any[]> {
  const feed = await client.get('/api/activity?limit=50');
  expect(feed.status).toBe(200);
  return feed.body.items.filter((e: any) => e.entity_id === jobId);
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  alice = await Client.signIn(newTeamMember());
  mallory = await Client.signIn(newTeamMember());
  admin = await Client.signIn(newTeamMember({ user_id: Number(TEST_ADMIN_EXTERNAL_IDS[0]) }));
  room = await newRoom(alice);
  malloryRoom = await newRoom(mallory);
  videoBytes = makeVideo(join(work, 'walkthrough.mp4'), 25);

  malloryJobId = (await photoJob(mallory, malloryRoom.id, [await smallPng(9)])).jobId;
  const photos = await photoJob(alice, room.id, [await smallPng(1), await smallPng(2), await smallPng(3)]);
  photoJobId = photos.jobId;
  photoIndices = photos.indices;
  await new Promise((r) => setTimeout(r, 20)); // distinct created_at
  videoJobId = (await chunkedUpload(alice, room, videoBytes, { filename: 'Walkthrough.MP4' })).job.id;
  const measured = await waitForDuration(videoJobId);
  expect(measured.duration).toBeCloseTo(25, 0);
}, 180_000);

describe('listing and reading jobs', () => {
  it("GET /api/jobs lists the caller's team's jobs newest first and never another team's", async () => {
    const list = await alice.get('/api/jobs');
    expect(list.status).toBe(200);
    const ids = list.body.map((j: any) => j.id);
    expect(ids).toContain(photoJobId);
    expect(ids).toContain(videoJobId);
    expect(ids).not.toContain(malloryJobId);
    expect(ids.indexOf(videoJobId)).toBeLessThan(ids.indexOf(photoJobId));
    const created = list.body.map((j: any) => j.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect(list.body.every((j: any) => j.claim_id !== malloryRoom.claim_id)).toBe(true);

    const theirs = await mallory.get('/api/jobs');
    expect(theirs.status).toBe(200);
    expect(theirs.body.map((j: any) => j.id)).toEqual([malloryJobId]);
  });

  it('GET /api/jobs/{id} returns the job shape without engine internals', async () => {
    const res = await alice.get(`/api/jobs/${videoJobId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: videoJobId,
      room_id: room.id,
      claim_id: room.claim_id,
      source_type: 'video',
      status: 'awaiting_confirmation',
      original_filename: 'Walkthrough.MP4',
      file_size_bytes: videoBytes.length,
      duration: expect.any(Number),
      items_found: 0,
      photo_truncated_groups: [],
      photos_with_more_items: 0,
      billing_charged: false,
      billing_refunded: false,
      created_at: expect.any(String),
    });
    for (const internal of [
      'run_id',
      'stage_runner',
      'stage_state',
      'stage_name',
      'stage_lease_until',
      'pipeline',
      'media_key',
      'team_id',
      'pk',
      'sk',
      'gsi1pk',
      'gsi2pk',
      'heartbeat_at',
    ]) {
      expect(res.body).not.toHaveProperty(internal);
    }
    const photo = await alice.get(`/api/jobs/${photoJobId}`);
    expect(photo.status).toBe(200);
    expect(photo.body).toMatchObject({
      id: photoJobId,
      source_type: 'photo',
      status: 'awaiting_grouping',
      photos_with_more_items: 0,
    });
  });

  it('GET /api/jobs/{id} answers 404 for an unknown id', async () => {
    expect((await alice.get(`/api/jobs/${randomUUID()}`)).status).toBe(404);
  });
});

describe('GET /api/rooms/{room_id}/jobs', () => {
  it('shows current_item_count (archived items excluded) beside items_found', async () => {
    const itemsRoom = await newRoom(alice, 'Garage');
    const { jobId } = await photoJob(alice, itemsRoom.id, [await smallPng(4)]);
    await seedItem(itemsRoom, jobId, { number: 1 });
    await seedItem(itemsRoom, jobId, { number: 2 });
    await seedItem(itemsRoom, jobId, { number: 3, is_archived: true });
    await setFields(`JOB#${jobId}`, 'JOB', { items_found: 3 });

    const res = await alice.get(`/api/rooms/${itemsRoom.id}/jobs`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ id: jobId, room_id: itemsRoom.id, items_found: 3, current_item_count: 2 });

    const main = await alice.get(`/api/rooms/${room.id}/jobs`);
    expect(main.status).toBe(200);
    expect(main.body.map((j: any) => j.id).sort()).toEqual([photoJobId, videoJobId].sort());
    expect(main.body.every((j: any) => j.current_item_count === 0)).toBe(true);
  });

  it('answers 404 for an unknown room', async () => {
    expect((await alice.get(`/api/rooms/${randomUUID()}/jobs`)).status).toBe(404);
  });
});

describe('GET /api/jobs/{id}/quote', () => {
  it("prices a 25 s video at 2 blocks of 3 credits, with the team's balance from the billing service", async () => {
    const res = await alice.get(`/api/jobs/${videoJobId}/quote`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      job_id: videoJobId,
      source_type: 'video',
      credits: 6,
      blocks: 2,
      duration: expect.closeTo(25, 0),
      photo_requests: 0,
      enterprise: false,
      billing_enabled: true,
      credits_balance: 1_000_000,
      buy_url: expect.stringMatching(/^https:\/\//),
    });
  });

  it('prices photos one credit per group reaching the AI: named and deleted photos are free', async () => {
    const quote = () => alice.get(`/api/jobs/${photoJobId}/quote`);
    let res = await quote();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      source_type: 'photo',
      credits: 3,
      blocks: 3,
      photo_requests: 3,
      billing_enabled: true,
      credits_balance: 1_000_000,
    });

    expect(await getRow(`JOB#${photoJobId}`, photoSk(photoIndices[0]))).not.toBeNull();
    await setFields(`JOB#${photoJobId}`, photoSk(photoIndices[0]), { manual_name: 'Blue sofa' });
    res = await quote();
    expect(res.body).toMatchObject({ credits: 2, blocks: 2, photo_requests: 2 });

    await setFields(`JOB#${photoJobId}`, photoSk(photoIndices[1]), { deleted: true });
    res = await quote();
    expect(res.body).toMatchObject({ credits: 1, blocks: 1, photo_requests: 1 });

    // The quote charges nothing and changes nothing.
    expect(await jobRow(photoJobId)).toMatchObject({ status: 'awaiting_grouping', billing_charged: false });

    // GET /api/jobs/{id}/photos: the source photos' capability URLs, the deleted one left out.
    const listed = await alice.get(`/api/jobs/${photoJobId}/photos`);
    expect(listed.status).toBe(200);
    expect(listed.body.photos).toHaveLength(2);
    for (const photo of listed.body.photos) {
      expect(photo.url).toMatch(new RegExp(`^/api/photos/${photoJobId}/`));
      expect((await request('GET', photo.url)).status).toBe(302);
    }
    expect((await mallory.get(`/api/jobs/${photoJobId}/photos`)).status).toBe(404);
  });

  it('quotes 0 on a training claim', async () => {
    const trainingRoom = await newRoom(alice, 'Training room');
    const { jobId } = await photoJob(alice, trainingRoom.id, [await smallPng(5), await smallPng(6)]);
    expect((await alice.get(`/api/jobs/${jobId}/quote`)).body).toMatchObject({ credits: 2 });
    await setFields(`CLAIM#${trainingRoom.claim_id}`, 'CLAIM', { is_training: true });
    const res = await alice.get(`/api/jobs/${jobId}/quote`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ credits: 0, photo_requests: 2, billing_enabled: true });
  });

  it('answers 409 for a video whose duration is not measured yet', async () => {
    const { job } = await chunkedUpload(alice, room, videoBytes, { filename: 'unmeasured.mp4' });
    await waitForDuration(job.id);
    await setFields(`JOB#${job.id}`, 'JOB', { duration: null });
    const res = await alice.get(`/api/jobs/${job.id}/quote`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/measured/i);
  });
});

describe('POST /api/jobs/{id}/process', () => {
  it('answers 409 for a complete job and for one already processing', async () => {
    const stateRoom = await newRoom(alice, 'States');
    const { jobId } = await photoJob(alice, stateRoom.id, [await smallPng(7)]);

    await setFields(`JOB#${jobId}`, 'JOB', { status: 'complete' });
    let res = await alice.post(`/api/jobs/${jobId}/process`);
    expect(res.status).toBe(409);
    expect((await jobRow(jobId))!.status).toBe('complete');

    await setFields(`JOB#${jobId}`, 'JOB', { status: 'analyzing' });
    res = await alice.post(`/api/jobs/${jobId}/process`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/already being processed/);
    expect((await jobRow(jobId))!.status).toBe('analyzing');
    expect((await activityFor(alice, jobId)).filter((e) => e.action_type === 'process_job')).toEqual([]);
  });
});

describe('POST /api/jobs/{id}/cancel', () => {
  it('discards an awaiting_confirmation video job and its file, and records cancel_job', async () => {
    const { job } = await chunkedUpload(alice, room, videoBytes, { filename: 'cancel me.mp4' });
    const row = await jobRow(job.id);
    const mediaKey = row!.media_key as string;
    const prefix = `teams/${row!.team_id}/claims/${row!.claim_id}/jobs/${job.id}/`;
    expect(mediaKey.startsWith(prefix)).toBe(true);
    expect(await objectExists(mediaKey)).toBe(true);

    const res = await alice.post(`/api/jobs/${job.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ cancelled: true, id: job.id });

    expect(await jobRow(job.id)).toBeNull();
    expect(await objectExists(mediaKey)).toBe(false);
    // The probe may still land a little late; nothing stays under the job prefix.
    await eventually(async () => (await listKeys(prefix)).length === 0, 10_000);
    const entries = await activityFor(alice, job.id);
    expect(entries.find((e) => e.action_type === 'cancel_job')).toMatchObject({
      entity_type: 'job',
      restorable: false,
    });

    expect((await alice.get(`/api/jobs/${job.id}`)).status).toBe(404);
    const again = await alice.post(`/api/jobs/${job.id}/cancel`);
    expect(again.status).toBe(404);
  });

  it('refuses (409) to cancel an awaiting_grouping photo job, which stays', async () => {
    const res = await alice.post(`/api/jobs/${photoJobId}/cancel`);
    expect(res.status).toBe(409);
    expect(await jobRow(photoJobId)).toMatchObject({ status: 'awaiting_grouping' });
    expect(await stagedRows(photoJobId)).toHaveLength(3);
  });
});

describe('GET /api/jobs/{id}/logs', () => {
  it("serves the live buffer with the probe's line", async () => {
    const res = await eventually(async () => {
      const r = await alice.get(`/api/jobs/${videoJobId}/logs`);
      return r.body.lines?.some((l: any) => /^Measured duration 25\.\d s/.test(l.message)) ? r : null;
    }, 10_000);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ job_id: videoJobId, source: 'live' });
    expect(res.body.lines[0]).toEqual({
      seq: expect.any(Number),
      at: expect.any(String),
      level: expect.stringMatching(/info|warn|error/),
      message: expect.any(String),
    });
  });

  it('a finished job with no archive still serves the live lines (observed fallback)', async () => {
    const live = (await alice.get(`/api/jobs/${videoJobId}/logs`)).body.lines;
    await setFields(`JOB#${videoJobId}`, 'JOB', { status: 'complete' });
    try {
      const res = await alice.get(`/api/jobs/${videoJobId}/logs`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ job_id: videoJobId, source: 'live', lines: live });
    } finally {
      await setFields(`JOB#${videoJobId}`, 'JOB', { status: 'awaiting_confirmation' });
    }
  });
});

describe('GET /api/jobs/{id}/metrics', () => {
  it('has stage timings, AI spend and billing, and no processing time before a start', async () => {
    const res = await alice.get(`/api/jobs/${videoJobId}/metrics`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      job_id: videoJobId,
      status: 'awaiting_confirmation',
      stage_timings: {},
      processing_seconds: null,
      items_found: 0,
      ai: {
        cost_usd: expect.any(Number),
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
        api_calls: expect.any(Number),
      },
      billing: {
        credits: expect.any(Number),
        blocks: expect.any(Number),
        minutes: expect.any(Number),
        photo_request_count: expect.any(Number),
        refunded: false,
      },
      recovery_attempts: expect.any(Number),
    });
  });
});

describe('capability URLs', () => {
  it('GET /api/jobs/{id}/video without a token 302s to a URL that serves Range', async () => {
    const res = await request('GET', `/api/jobs/${videoJobId}/video`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location');
    expect(location).toBeTruthy();
    const ranged = await fetch(location!, { headers: { Range: 'bytes=0-9' } });
    expect(ranged.status).toBe(206);
    const body = Buffer.from(await ranged.arrayBuffer());
    expect(body).toHaveLength(10);
    expect(body.equals(videoBytes.subarray(0, 10))).toBe(true);
  });

  it('GET /audio on a video job and /video on an unknown job answer 404', async () => {
    expect((await request('GET', `/api/jobs/${videoJobId}/audio`)).status).toBe(404);
    expect((await request('GET', `/api/jobs/${randomUUID()}/video`)).status).toBe(404);
    expect((await request('GET', `/api/jobs/${photoJobId}/video`)).status).toBe(404);
  });

  it('lists no frames for a job without frames, then the frames of its run, each served by capability from its pack', async () => {
    const empty = await alice.get(`/api/jobs/${videoJobId}/frames`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ job_id: videoJobId, frames: [] });
    expect((await request('GET', `/api/jobs/${videoJobId}/frames`)).status).toBe(401);

    // A run that extracted two frames of its first unit, packed (as extraction writes them).
    const job = (await getJob(videoJobId)) as Job;
    const runId = randomUUID();
    const { frames, writer } = await packFrames(job, [
      { jpeg: Buffer.from('frame-zero-bytes'), preview: Buffer.from('preview-0') },
      { jpeg: Buffer.from('frame-one-bytes'), preview: Buffer.from('preview-1') },
    ]);
    await writer.close();
    await recordOneUnitRun(videoJobId, runId, 25, frames);

    const listed = await alice.get(`/api/jobs/${videoJobId}/frames`);
    expect(listed.body.frames).toEqual([
      { name: 'frame_000000.000.jpg', url: `/api/jobs/${videoJobId}/frames/frame_000000.000.jpg` },
      { name: 'frame_000001.000.jpg', url: `/api/jobs/${videoJobId}/frames/frame_000001.000.jpg` },
    ]);

    // Served from its pack: written out as its own object on the first request, then served from there.
    const prefix = `teams/${job.team_id}/claims/${job.claim_id}/jobs/${videoJobId}/`;
    expect(await objectExists(`${prefix}frames/frame_000001.000.jpg`)).toBe(false);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await request('GET', `/api/jobs/${videoJobId}/frames/frame_000001.000.jpg`);
      expect(res.status).toBe(302);
      const served = await fetch(res.headers.get('location')!);
      expect(served.status).toBe(200);
      expect(await served.text()).toBe('frame-one-bytes');
      expect(await objectExists(`${prefix}frames/frame_000001.000.jpg`)).toBe(true);
    }

    // A frame name the run does not have, on a time inside and outside its unit, and another job's.
    expect((await request('GET', `/api/jobs/${videoJobId}/frames/frame_000002.000.jpg`)).status).toBe(404);
    expect((await request('GET', `/api/jobs/${videoJobId}/frames/frame_000030.000.jpg`)).status).toBe(404);
    expect((await request('GET', `/api/jobs/${videoJobId}/frames/frame_0001.jpg`)).status).toBe(404);
    expect((await request('GET', `/api/jobs/${randomUUID()}/frames/frame_000001.000.jpg`)).status).toBe(404);
    expect((await request('GET', `/api/jobs/${photoJobId}/frames/frame_000001.000.jpg`)).status).toBe(404);
  });

  it.each([
    ['an encoded traversal', '..%2Fsecret'],
    ['a nested path', 'a/b'],
    ['a dot file', '.hidden'],
    ['a name with a double dot inside', 'frame..jpg'],
    ['a 150-character name (within the schema, over the safe-name limit)', `${'a'.repeat(146)}.jpg`],
  ])('never serves %s as a frame name (404)', async (_label, name) => {
    const row = await jobRow(videoJobId);
    const prefix = `teams/${row!.team_id}/claims/${row!.claim_id}/jobs/${videoJobId}/`;
    await putObject(`${prefix}secret`, 'secret');
    await putObject(`${prefix}frames/a/b`, 'nested');
    await putObject(`${prefix}frames/.hidden`, 'hidden');
    await putObject(`${prefix}frames/frame..jpg`, 'dots');
    const res = await request('GET', `/api/jobs/${videoJobId}/frames/${name}`);
    expect(res.status).not.toBe(302);
    expect(res.status).toBe(404);
  });

  it('answers 404 for a 300-character frame name, like any other unusable name', async () => {
    const res = await request('GET', `/api/jobs/${videoJobId}/frames/${'a'.repeat(296)}.jpg`);
    expect(res.status).toBe(404);
  });
});

describe('POST /api/admin/jobs/{id}/dismiss', () => {
  let jobId: string;
  beforeAll(async () => {
    const dismissRoom = await newRoom(alice, 'Hung');
    jobId = (await photoJob(alice, dismissRoom.id, [await smallPng(8)])).jobId;
  });

  it("refuses a non-admin (403 'This page is restricted.') and changes nothing", async () => {
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'analyzing', run_id: 'run-hung-1' });
    const res = await alice.post(`/api/admin/jobs/${jobId}/dismiss`);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('This page is restricted.');
    expect((await mallory.post(`/api/admin/jobs/${jobId}/dismiss`)).status).toBe(403);
    expect((await jobRow(jobId))!.status).toBe('analyzing');
  });

  it('marks a processing job failed with a retryable message', async () => {
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'analyzing', run_id: 'run-hung-1' });
    const res = await admin.post(`/api/admin/jobs/${jobId}/dismiss`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: jobId,
      status: 'error',
      error_message: expect.stringMatching(/process .*again/i),
    });
    expect(res.body).not.toHaveProperty('run_id');
    expect(await jobRow(jobId)).toMatchObject({ status: 'error', billing_charged: false });
  });

  it('answers 409 for a complete job and 404 for an unknown id', async () => {
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'complete' });
    const res = await admin.post(`/api/admin/jobs/${jobId}/dismiss`);
    expect(res.status).toBe(409);
    expect((await jobRow(jobId))!.status).toBe('complete');
    expect((await admin.post(`/api/admin/jobs/${randomUUID()}/dismiss`)).status).toBe(404);
  });
});

describe("another team's ids", () => {
  it('answer 404 on every id-addressed route, and nothing changes', async () => {
    const { uploadId } = await chunkedUpload(alice, room, videoBytes.subarray(0, 1000), {
      filename: 'open.mp4',
      complete: false,
    });
    const videoBefore = await jobRow(videoJobId);
    const photoBefore = await jobRow(photoJobId);
    const stagedBefore = await stagedRows(photoJobId);
    const uploadBefore = await getRow(`UPLOAD#${uploadId}`, 'UPLOAD');
    expect(uploadBefore).toMatchObject({ status: 'open' });

    const attempts: [string, () => Promise<{ status: number }>][] = [
      ['GET job', () => mallory.get(`/api/jobs/${videoJobId}`)],
      ['GET quote', () => mallory.get(`/api/jobs/${videoJobId}/quote`)],
      ['GET logs', () => mallory.get(`/api/jobs/${videoJobId}/logs`)],
      ['GET metrics', () => mallory.get(`/api/jobs/${videoJobId}/metrics`)],
      ['GET frames', () => mallory.get(`/api/jobs/${videoJobId}/frames`)],
      ['GET staged-photos', () => mallory.get(`/api/jobs/${photoJobId}/staged-photos`)],
      ['POST process (video)', () => mallory.post(`/api/jobs/${videoJobId}/process`)],
      ['POST process (photo)', () => mallory.post(`/api/jobs/${photoJobId}/process`)],
      ['POST cancel', () => mallory.post(`/api/jobs/${videoJobId}/cancel`)],
      ['GET room jobs', () => mallory.get(`/api/rooms/${room.id}/jobs`)],
      [
        'POST append',
        () => mallory.post(`/api/upload-photos/${photoJobId}/append`, { files: [{ filename: 'x.png', size: 10 }] }),
      ],
      ['POST confirm', () => mallory.post(`/api/upload-photos/${photoJobId}/confirm`, { indices: [photoIndices[0]] })],
      ['GET upload', () => mallory.get(`/api/uploads/${uploadId}`)],
      ['POST part-urls', () => mallory.post(`/api/uploads/${uploadId}/part-urls`, { parts: [0] })],
      ['POST complete', () => mallory.post(`/api/uploads/${uploadId}/complete`)],
      ['DELETE upload', () => mallory.delete(`/api/uploads/${uploadId}`)],
    ];
    const statuses: Record<string, number> = {};
    for (const [label, attempt] of attempts) statuses[label] = (await attempt()).status;
    expect(statuses).toEqual(Object.fromEntries(attempts.map(([label]) => [label, 404])));

    expect(await jobRow(videoJobId)).toEqual(videoBefore);
    expect(await jobRow(photoJobId)).toEqual(photoBefore);
    expect(await stagedRows(photoJobId)).toEqual(stagedBefore);
    expect(await getRow(`UPLOAD#${uploadId}`, 'UPLOAD')).toEqual(uploadBefore);
    const status = await alice.get(`/api/uploads/${uploadId}`);
    expect(status.body).toMatchObject({ status: 'open', received: [0], job_id: null });
    expect((await activityFor(mallory, videoJobId)).length + (await activityFor(mallory, photoJobId)).length).toBe(0);
    expect(await alice.delete(`/api/uploads/${uploadId}`)).toMatchObject({ status: 200 });
  });
});

describe('validation', () => {
  const bad = 'not-a-uuid';
  it.each([
    ['GET', `/api/jobs/${bad}`, undefined],
    ['GET', `/api/jobs/${bad}/quote`, undefined],
    ['GET', `/api/jobs/${bad}/logs`, undefined],
    ['GET', `/api/jobs/${bad}/metrics`, undefined],
    ['GET', `/api/jobs/${bad}/frames`, undefined],
    ['GET', `/api/jobs/${bad}/staged-photos`, undefined],
    ['POST', `/api/jobs/${bad}/process`, undefined],
    ['POST', `/api/jobs/${bad}/cancel`, undefined],
    ['GET', `/api/rooms/${bad}/jobs`, undefined],
    ['POST', `/api/upload-photos/${bad}/append`, { files: [{ filename: 'x.png', size: 10 }] }],
    ['POST', `/api/upload-photos/${bad}/confirm`, { indices: [1] }],
    ['GET', `/api/uploads/${bad}`, undefined],
    ['POST', `/api/uploads/${bad}/part-urls`, { parts: [0] }],
    ['POST', `/api/uploads/${bad}/complete`, undefined],
    ['DELETE', `/api/uploads/${bad}`, undefined],
    ['GET', `/api/jobs/${bad}/video`, undefined],
    ['GET', `/api/jobs/${bad}/audio`, undefined],
    ['GET', `/api/jobs/${bad}/frames/frame_0001.jpg`, undefined],
  ])('%s %s answers 422 for a non-UUID id', async (method, path, body) => {
    const res = await request(method, path, { token: alice.token, body });
    expect(res.status).toBe(422);
  });

  it('POST /api/admin/jobs/{id}/dismiss answers 422 for a non-UUID id', async () => {
    expect((await admin.post(`/api/admin/jobs/${bad}/dismiss`)).status).toBe(422);
  });
});
