/**
 * What is stored and served is what was checked:
 *  - a capture recording the capture source lists as text/html is stored as the
 *    type its bytes show, and its capability redirect names that type; one whose
 *    bytes are a page fails, storing nothing;
 *  - a homeowner photo replaced by a second POST after its confirm (the
 *    presigned POST outlives the confirm) reaches the adjuster with its first
 *    bytes: the room's photo job and the typed row's item photo;
 *  - every API answer carries X-Content-Type-Options: nosniff (200, 302, 404, 422).
 */
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { getJob } from '../../lib/jobs/job-store';
import { getImportPlan } from '../../lib/pipelines/capture/run-store';
import { Client, eventually, request } from '../support/api';
import { bucket, getRow, s3 } from '../support/aws';
import { fakeCaptureSource } from '../support/fake-capture-source';
import { homeowner, invitedLink, photo, postForm } from '../support/insured';
import { newTeamMember } from '../support/tokens';
import { makeVideo } from '../support/uploads';

const capture = fakeCaptureSource(process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string);
const dir = mkdtempSync(join(tmpdir(), 'stored-bytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HTML = Buffer.from(
  `<!DOCTYPE html><html><body><script>alert(document.domain)</script>${' '.repeat(5000)}</body></html>`,
);

async function objectBytes(key: string): Promise<Buffer> {
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
  return Buffer.from(await Body!.transformToByteArray());
}

describe('a capture recording listed as text/html', () => {
  it('is stored and served as the video its bytes are; one whose bytes are a page fails and stores nothing', async () => {
    const client = await Client.signIn(newTeamMember());
    const org = await capture.seedOrg({ teams: [{ name: 'Crew' }] });
    const connected = await client.post('/api/integrations/capture-source/connect', { api_token: org.tokens[0] });
    expect(connected.status).toBe(200);
    const assignment = await capture.seedAssignment({
      org_id: org.org_id,
      team_id: org.teams[0].id,
      reference: `CLM-${randomUUID().slice(0, 6)}`,
      title: '9 Elm Row',
      locations: [{ name: 'Garage', groups: [] }],
    });
    const [garage] = assignment.locations;
    const video = makeVideo(join(dir, 'walk.mp4'), 2);
    const media = await capture.seedMedia(org.org_id, assignment.id, [
      { type: 'video', location_id: garage.id, filename: 'walk.mp4', content_type: 'text/html', bytes: video },
      { type: 'video', location_id: garage.id, filename: 'page.mp4', content_type: 'text/html', bytes: HTML },
    ]);

    const started = await client.post(`/api/integrations/connections/${connected.body.id}/import`, {
      assignment_id: assignment.id,
      target: { mode: 'new_claim' },
    });
    expect(started.status).toBe(201);
    const batch = await eventually(
      async () => {
        const res = await client.get(`/api/integrations/imports/${started.body.id}`);
        return res.body.status !== 'importing' ? res.body : null;
      },
      90_000,
      300,
    );
    expect(batch).toMatchObject({ status: 'partial', total: 2, imported: 1, failed: 1 });

    const reader = await getJob(batch.read_job_id);
    const plan = await getImportPlan(reader!, reader!.run_id as string);
    const keyOf = (i: number) => plan.media.find((m) => m.media_id === media[i].id)!.key;
    const stored = await s3.send(new HeadObjectCommand({ Bucket: bucket(), Key: keyOf(0) }));
    expect(stored.ContentType).toBe('video/mp4');
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket(), Key: keyOf(1) }))).rejects.toBeDefined();
    const lines: { message: string }[] = (await client.get(`/api/jobs/${batch.read_job_id}/logs`)).body.lines;
    expect(lines.map((l) => l.message)).toContain(
      "page.mp4: The capture source's file is not a video: its bytes are in no audio or video format.",
    );

    const rooms = (await client.get(`/api/claims/${batch.claim_id}/rooms`)).body as any[];
    const jobs = (await client.get(`/api/rooms/${rooms[0].id}/jobs`)).body as any[];
    const videoJob = jobs.find((j) => j.source_type === 'video' && j.original_filename === 'walk.mp4');
    const redirect = await request('GET', `/api/jobs/${videoJob.id}/video`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('x-content-type-options')).toBe('nosniff');
    const location = new URL(redirect.headers.get('location') as string);
    expect(location.searchParams.get('response-content-type')).toBe('video/mp4');
    expect(location.searchParams.get('response-content-disposition')).toBe('inline');
    const served = await fetch(location);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await served.arrayBuffer()).equals(video)).toBe(true);
  }, 180_000);
});

describe('a homeowner photo replaced after its confirm', () => {
  it('reaches the adjuster with its first bytes: the room’s photo job and the typed row’s item photo', async () => {
    const { adjuster, claimId, linkId, token } = await invitedLink();
    const h = homeowner(token);
    const den = (await h.post('/rooms', { name: 'Den' })).body;
    const lamp = (await h.post(`/rooms/${den.id}/items`, { name: 'Floor lamp' })).body;
    const first = { room: await photo(1, 64, 48), item: await photo(2, 60, 40) };
    const second = { room: await photo(5, 120, 30), item: await photo(6, 90, 90) };

    /** Issue, POST, confirm; then POST other bytes with the same (still valid) form. */
    async function addThenReplace(path: string, bytes: Buffer, replacement: Buffer, extra = {}) {
      const size = Math.max(bytes.length, replacement.length);
      const issued = await h.post(path, { filename: 'photo.png', content_type: 'image/png', size, ...extra });
      expect(issued.status).toBe(201);
      expect(await postForm(issued.body.upload, bytes)).toBe(204);
      const confirmed = await h.post(path, { file_id: issued.body.file.id });
      expect(confirmed.status).toBe(201);
      expect(confirmed.body.file.status).toBe('ready');
      // The policy still holds: S3 takes the second POST.
      expect(await postForm(issued.body.upload, replacement)).toBe(204);
      return confirmed.body.file;
    }
    const roomFile = await addThenReplace(`/rooms/${den.id}/files`, first.room, second.room, { note: 'Armchair' });
    const itemFile = await addThenReplace(`/items/${lamp.id}/photos`, first.item, second.item);

    // The homeowner's own view of it is the first bytes too.
    const content = await h.get(`/files/${roomFile.id}/content`);
    expect(content.status).toBe(302);
    expect(new URL(content.headers.get('location') as string).searchParams.get('response-content-type')).toBe(
      'image/png',
    );
    expect(Buffer.from(await (await fetch(content.headers.get('location') as string)).arrayBuffer())).toEqual(
      first.room,
    );

    const submitted = await h.post('/submit');
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ round: 1, photos: 1, items: 1 });

    const rooms = (await adjuster.get(`/api/claims/${claimId}/rooms`)).body as any[];
    const jobs = (await adjuster.get(`/api/rooms/${rooms.find((r) => r.name === 'Den').id}/jobs`)).body as any[];
    const photoJob = jobs.find((j) => j.source_type === 'photo' && j.status === 'awaiting_grouping');
    const rowsJob = jobs.find((j) => j.source_type === 'photo' && j.status === 'complete');
    const stagedRow = (jobId: string) => getRow(`JOB#${jobId}`, 'PHOTO#000000');

    // Each job photo's original is the checked bytes, wherever it lies.
    for (const [jobId, bytes] of [
      [photoJob.id, first.room],
      [rowsJob.id, first.item],
    ] as const) {
      const row = await stagedRow(jobId);
      expect(row).toMatchObject({ original_kept: true, incoming_key: expect.stringContaining(`/insured/${linkId}/`) });
      expect((await objectBytes(row!.incoming_key as string)).equals(bytes)).toBe(true);
    }
    expect((await getRow(`INSUREDLINK#${linkId}`, `FILE#${itemFile.id}`))?.round).toBe(1);

    // The re-encodes read the same: the job's JPEGs have the first photos' sizes.
    for (const [jobId, bytes] of [
      [photoJob.id, first.room],
      [rowsJob.id, first.item],
    ] as const) {
      const row = await eventually(async () => {
        const now = await stagedRow(jobId);
        return now?.normalized ? now : null;
      }, 60_000);
      const jpeg = await sharp(await objectBytes(row.key as string)).metadata();
      const original = await sharp(bytes).metadata();
      expect([jpeg.format, jpeg.width, jpeg.height]).toEqual(['jpeg', original.width, original.height]);
    }
    const [item] = (await adjuster.get(`/api/inventory/${rowsJob.id}`)).body;
    const itemPhoto = await request('GET', item.photos[0].url);
    expect(itemPhoto.status).toBe(302);
    const shown = await sharp(
      Buffer.from(await (await fetch(itemPhoto.headers.get('location') as string)).arrayBuffer()),
    ).metadata();
    expect([shown.width, shown.height]).toEqual([60, 40]);
  }, 180_000);
});

describe('every API answer', () => {
  it('forbids content sniffing: a 200, a 302, a 404 and a 422, signed in or not', async () => {
    const client = await Client.signIn(newTeamMember());
    const { token } = await invitedLink();
    const answers = {
      200: await client.get('/api/auth/me'),
      '200 (homeowner)': await homeowner(token).get(),
      404: await request('GET', `/api/jobs/${randomUUID()}/video`),
      '404 (homeowner)': await homeowner(token).get(`/files/${randomUUID()}/content`),
      422: await client.post('/api/claims', {}),
    };
    for (const [name, res] of Object.entries(answers))
      expect([name, res.status, res.headers.get('x-content-type-options')]).toEqual([
        name,
        Number.parseInt(name, 10),
        'nosniff',
      ]);
    // A redirect: the homeowner's content route on a ready file is a 302.
    const h = homeowner(token);
    const den = (await h.post('/rooms', { name: 'Den' })).body;
    const bytes = await photo(3);
    const issued = await h.post(`/rooms/${den.id}/files`, {
      filename: 'photo.png',
      content_type: 'image/png',
      size: bytes.length,
    });
    expect(await postForm(issued.body.upload, bytes)).toBe(204);
    expect((await h.post(`/rooms/${den.id}/files`, { file_id: issued.body.file.id })).status).toBe(201);
    const redirect = await h.get(`/files/${issued.body.file.id}/content`);
    expect([redirect.status, redirect.headers.get('x-content-type-options')]).toEqual([302, 'nosniff']);
  });
});
