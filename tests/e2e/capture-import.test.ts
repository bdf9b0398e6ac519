/**
 * Capture imports over HTTP against the run's fake capture source: a new
 * claim from an assignment (locations → rooms, groups → photo groups, a
 * video into its own job, an unreadable original replaced by its proxy, an
 * unsynced and an excluded item left out, a failing download making the
 * batch partial, then a retry of only that one), a re-import skipping what
 * was imported, a room import filtered to videos, a bad manifest (422), the
 * download guards (a URL off the capture source's download hosts or not
 * https, a redirect off them, a body larger than declared, a stalled body:
 * each a failed medium with its reason, nothing fetched elsewhere), and
 * the submission webhook: first and later submissions, redelivery, a new
 * event for the same submission, a forged signature, an unknown org, and no
 * secret configured.
 */
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { mediaBucket, s3 } from '../../lib/blob/client';
import { headObject } from '../../lib/blob/objects';
import { settings } from '../../lib/config';
import { getUploadRecord } from '../../lib/imports/capture/import-store';
import { ORG_TAKEN } from '../../lib/imports/capture/service';
import { handleCaptureEvent } from '../../lib/imports/capture/webhook-service';
import { getJob } from '../../lib/jobs/job-store';
import { getImportPlan } from '../../lib/pipelines/capture/run-store';
import { Client, eventually, request, serviceUrl } from '../support/api';
import { fakeCaptureSource, foreignPhotoHost } from '../support/fake-capture-source';
import { newTeamMember } from '../support/tokens';
import { makeVideo } from '../support/uploads';

const capture = fakeCaptureSource(process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string);
const SECRET = 'test-capture-webhook-secret';
const dir = mkdtempSync(join(tmpdir(), 'capture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const jpeg = (seed: number, width = 120, height = 90) =>
  sharp({ create: { width, height, channels: 3, background: { r: seed * 30, g: 100, b: 150 } } })
    .jpeg()
    .toBuffer();

/** An ISO-BMFF file's first box (ftyp): recordings are stored only when their bytes are audio or video. */
function ftypHead(brand: 'isom' | 'M4A '): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt32BE(24, 0);
  head.write(`ftyp${brand}`, 4, 'latin1');
  head.write(`${brand}mp42`, 16, 'latin1');
  return head;
}

async function connectedTeam() {
  const client = await Client.signIn(newTeamMember());
  const org = await capture.seedOrg({ teams: [{ name: 'Crew' }] });
  const connected = await client.post('/api/integrations/capture-source/connect', { api_token: org.tokens[0] });
  expect(connected.status).toBe(200);
  return { client, org, connectionId: connected.body.id as string, token: org.tokens[0] };
}

async function assignmentOf(orgId: string, teamId: string) {
  return capture.seedAssignment({
    org_id: orgId,
    team_id: teamId,
    reference: `CLM-${randomUUID().slice(0, 6)}`,
    title: '4 Birch Lane',
    locations: [
      { name: 'Kitchen', groups: [{ name: 'Fridge' }] },
      { name: 'Garage', groups: [] },
    ],
  });
}

async function finished(client: Client, batchId: string) {
  return eventually(
    async () => {
      const res = await client.get(`/api/integrations/imports/${batchId}`);
      return res.body.status !== 'importing' ? res.body : null;
    },
    90_000,
    300,
  );
}

describe('capture import', () => {
  it('imports an assignment into a new claim, partial on a failing download, then retries only that one', async () => {
    const { client, org, connectionId } = await connectedTeam();
    const assignment = await assignmentOf(org.org_id, org.teams[0].id);
    const [kitchen, garage] = assignment.locations;
    const fridge = kitchen.groups[0].id;
    const media = await capture.seedMedia(org.org_id, assignment.id, [
      { type: 'photo', location_id: kitchen.id, group_id: fridge, filename: 'fridge-1.jpg', bytes: await jpeg(1) },
      { type: 'photo', location_id: kitchen.id, group_id: fridge, filename: 'fridge-2.jpg', bytes: await jpeg(2) },
      { type: 'photo', location_id: kitchen.id, filename: 'toaster.jpg', bytes: await jpeg(3), slow_ms: 400 },
      { type: 'photo', location_id: kitchen.id, filename: 'late.jpg', bytes: await jpeg(4), synced: false },
      { type: 'photo', location_id: kitchen.id, filename: 'skip-me.jpg', bytes: await jpeg(5) },
      {
        type: 'photo',
        location_id: garage.id,
        filename: 'bike.jpg',
        bytes: await jpeg(6),
        proxy: await jpeg(7, 64, 48),
        unreadable_original: true,
      },
      { type: 'video', location_id: garage.id, filename: 'walk.mp4', bytes: makeVideo(join(dir, 'walk.mp4'), 2) },
      { type: 'photo', location_id: garage.id, filename: 'flaky.jpg', bytes: await jpeg(8), fail_downloads: 3 },
    ]);
    const excluded = media[4].id;

    const started = await client.post(`/api/integrations/connections/${connectionId}/import`, {
      assignment_id: assignment.id,
      target: { mode: 'new_claim' },
      exclude: [{ scope: 'media', ids: [excluded] }],
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ kind: 'capture_source', connection_id: connectionId, status: 'importing' });
    const batch = await finished(client, started.body.id);
    expect(batch).toMatchObject({ status: 'partial', total: 6, imported: 5, failed: 1, skipped: 0, runs: 1 });

    const claim = (await client.get(`/api/claims/${batch.claim_id}`)).body;
    expect(claim.claim_number).toBe(assignment.reference);
    const rooms = (await client.get(`/api/claims/${batch.claim_id}/rooms`)).body as any[];
    expect(rooms.map((r) => r.name).sort()).toEqual(['Garage', 'Kitchen']);
    const jobsOf = async (name: string) =>
      (await client.get(`/api/rooms/${rooms.find((r) => r.name === name).id}/jobs`)).body as any[];
    const [kitchenJob] = await jobsOf('Kitchen');
    expect(kitchenJob).toMatchObject({ source_type: 'photo', status: 'awaiting_grouping' });
    const staged = (await client.get(`/api/jobs/${kitchenJob.id}/staged-photos`)).body as any[];
    expect(staged.map((p) => p.original_filename)).toEqual(['fridge-1.jpg', 'fridge-2.jpg', 'toaster.jpg']);
    expect(staged[0].group_index).toBe(staged[1].group_index);
    expect(staged[2].group_index).not.toBe(staged[0].group_index);
    const served = await fetch(`${serviceUrl()}${staged[0].url}`, { redirect: 'manual' });
    expect(served.status).toBe(302);

    const garageJobs = await jobsOf('Garage');
    const video = garageJobs.find((j) => j.source_type === 'video');
    expect(video).toMatchObject({ status: 'awaiting_confirmation', original_filename: 'walk.mp4' });
    const garagePhotos = garageJobs.find((j) => j.source_type === 'photo');
    const [bike] = (await client.get(`/api/jobs/${garagePhotos.id}/staged-photos`)).body;
    // The original was unreadable: the proxy (64 x 48) was used.
    expect(bike).toMatchObject({ original_filename: 'bike.jpg', width: 64, height: 48 });

    const record = await getUploadRecord(connectionId, media[0].id);
    expect(record).toMatchObject({ status: 'ready', size_bytes: (await jpeg(1)).length, batch_id: batch.id });
    expect(record?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await getUploadRecord(connectionId, media[7].id))?.status).toBe('failed');
    expect(await getUploadRecord(connectionId, media[3].id)).toBeNull();

    // The retry reads only the failed one (its downloads work now) and joins the same claim.
    const retried = await client.post(`/api/integrations/imports/${batch.id}/retry`);
    expect(retried.status).toBe(200);
    const after = await finished(client, batch.id);
    expect(after).toMatchObject({ status: 'complete', imported: 6, failed: 0, runs: 2 });
    expect((await capture.downloads({ media_id: media[0].id, kind: 'original' })).length).toBe(1);
    expect((await client.post(`/api/integrations/imports/${batch.id}/retry`)).status).toBe(409);

    // Importing the same assignment again into the claim skips everything already imported.
    const again = await client.post(`/api/integrations/connections/${connectionId}/import`, {
      assignment_id: assignment.id,
      target: { mode: 'existing_claim', claim_id: batch.claim_id },
    });
    expect(await finished(client, again.body.id)).toMatchObject({
      status: 'complete',
      total: 7,
      skipped: 6,
      imported: 1,
    });
  });

  it('fails each download a guard stops, with its reason, and fetches nothing from a foreign host', async () => {
    const photo = await jpeg(9);
    const MIB = 1024 * 1024;
    // A host off the allow-list on the fake's own loopback: it answers a photo, so a fetch there would import one.
    const foreign = await foreignPhotoHost(photo);
    const foreignHits = foreign.hits;
    try {
      const { client, org, connectionId } = await connectedTeam();
      const assignment = await assignmentOf(org.org_id, org.teams[0].id);
      const [kitchen, garage] = assignment.locations;
      const at = (filename: string) => ({ type: 'photo' as const, location_id: kitchen.id, filename, bytes: photo });
      const media = await capture.seedMedia(org.org_id, assignment.id, [
        at('fine.jpg'),
        { ...at('loopback.jpg'), original_url: `${foreign.url}/loopback.jpg` },
        { ...at('local-file.jpg'), original_url: 'file:///etc/passwd' },
        { ...at('redirected.jpg'), redirect_to: `${foreign.url}/redirected.jpg` },
        { ...at('understated.jpg'), declared_size_bytes: photo.length - 1 },
        {
          type: 'video',
          location_id: garage.id,
          filename: 'understated.mp4',
          bytes: Buffer.alloc(64 * 1024),
          declared_size_bytes: 1000,
        },
        // Past the first 5 MiB part of its multipart upload before it stalls.
        {
          type: 'video',
          location_id: garage.id,
          filename: 'stalled.mp4',
          bytes: Buffer.concat([ftypHead('isom'), Buffer.alloc(7 * MIB - 24)]),
          stall_after_bytes: 6 * MIB,
        },
      ]);
      const started = await client.post(`/api/integrations/connections/${connectionId}/import`, {
        assignment_id: assignment.id,
        target: { mode: 'new_claim' },
      });
      expect(started.status).toBe(201);
      const batch = await finished(client, started.body.id);
      expect(batch).toMatchObject({ status: 'partial', total: 7, imported: 1, failed: 6 });

      // The runner's log names each failed medium and why.
      const lines: { message: string }[] = (await client.get(`/api/jobs/${batch.read_job_id}/logs`)).body.lines;
      const reasonOf = (filename: string) =>
        lines.find((l) => l.message.startsWith(`${filename}: `))?.message.slice(filename.length + 2);
      const notOurs = `${foreign.url} is not one of the capture source's download hosts`;
      expect(Object.fromEntries(media.slice(1).map((m) => [m.filename, reasonOf(m.filename)]))).toEqual({
        'loopback.jpg': `Download refused: ${notOurs}; nothing was fetched.`,
        'local-file.jpg': 'Download refused: file:// is a file URL, not https; nothing was fetched.',
        'redirected.jpg': `Download refused: a redirect was not followed: ${notOurs}.`,
        'understated.jpg': `Download refused: its answer is ${photo.length} bytes, more than the ${photo.length - 1} bytes the capture source declared.`,
        'understated.mp4':
          'Download refused: its answer is 65536 bytes, more than the 1000 bytes the capture source declared.',
        'stalled.mp4': 'Download stopped: no bytes for 3 s; the transfer stalled.',
      });
      expect(foreignHits).toEqual([]);
      expect((await getUploadRecord(connectionId, media[0].id))?.status).toBe('ready');
      for (const m of media.slice(1)) expect((await getUploadRecord(connectionId, m.id))?.status).toBe('failed');
      // Each asked for once: a refusal is not retried.
      const downloads = async (i: number) =>
        (await capture.downloads({ media_id: media[i].id })).map((d) => [d.status, d.bytes]);
      expect(await downloads(1)).toEqual([]);
      expect(await downloads(3)).toEqual([[302, 0]]);
      expect(await downloads(6)).toEqual([[200, 6 * MIB]]);

      // The stopped recordings left nothing in the bucket: no object, no multipart upload's parts.
      const reader = await getJob(batch.read_job_id);
      const plan = await getImportPlan(reader!, reader!.run_id as string);
      const keyOf = (i: number) => plan.media.find((m) => m.media_id === media[i].id)!.key;
      expect(await headObject(keyOf(0))).not.toBeNull();
      for (const i of [5, 6]) {
        expect(await headObject(keyOf(i))).toBeNull();
        const open = await s3().send(new ListMultipartUploadsCommand({ Bucket: mediaBucket(), Prefix: keyOf(i) }));
        expect(open.Uploads ?? []).toEqual([]);
      }
    } finally {
      await foreign.close();
    }
  });

  it('imports into one room, filtered by type and to submitted media; refuses a bad manifest with per-field messages', async () => {
    const { client, org, connectionId } = await connectedTeam();
    const assignment = await assignmentOf(org.org_id, org.teams[0].id);
    const [kitchen] = assignment.locations;
    await capture.seedMedia(org.org_id, assignment.id, [
      { type: 'photo', location_id: kitchen.id, filename: 'a.jpg', bytes: await jpeg(1), submitted: true },
      {
        type: 'audio',
        location_id: kitchen.id,
        filename: 'note.m4a',
        bytes: Buffer.concat([ftypHead('M4A '), Buffer.from('voice')]),
        submitted: true,
      },
      { type: 'audio', location_id: null, filename: 'draft.m4a', bytes: Buffer.from('draft') },
    ]);
    const claim = (await client.post('/api/claims', { claim_number: `R-${randomUUID().slice(0, 5)}` })).body;
    const room = (await client.post(`/api/claims/${claim.id}/rooms`, { name: 'Den' })).body;
    const started = await client.post(`/api/integrations/connections/${connectionId}/import`, {
      assignment_id: assignment.id,
      target: { mode: 'room', room_id: room.id },
      select: [{ scope: 'location', id: kitchen.id }],
      filters: { types: ['audio'], submitted_only: true },
    });
    expect(await finished(client, started.body.id)).toMatchObject({ status: 'complete', total: 1, imported: 1 });
    const jobs = (await client.get(`/api/rooms/${room.id}/jobs`)).body as any[];
    expect(jobs.map((j) => [j.source_type, j.original_filename])).toEqual([['audio', 'note.m4a']]);

    const bad = await client.post(`/api/integrations/connections/${connectionId}/import`, {
      assignment_id: '',
      target: { mode: 'existing_claim' },
      select: [{ scope: 'location' }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => e.field)).toEqual(
      expect.arrayContaining(['body.assignment_id', 'body.target.claim_id', 'body.select.0.id']),
    );
    const unknown = await client.post(`/api/integrations/connections/${connectionId}/import`, {
      assignment_id: 'no-such-assignment',
      target: { mode: 'new_claim' },
    });
    expect(unknown.status).toBe(422);
    const mallory = await Client.signIn(newTeamMember());
    expect(
      (
        await mallory.post(`/api/integrations/connections/${connectionId}/import`, {
          assignment_id: assignment.id,
          target: { mode: 'new_claim' },
        })
      ).status,
    ).toBe(404);
    expect((await mallory.get(`/api/integrations/imports/${started.body.id}`)).status).toBe(404);
  });
});

describe('capture source webhook', () => {
  const url = () => `${serviceUrl()}/api/integrations/capture-source/webhook`;

  it("one team per organisation: another team's connect is refused with 409, and the events go to the connected team", async () => {
    const first = await connectedTeam();
    const other = await Client.signIn(newTeamMember());
    const refused = await other.post('/api/integrations/capture-source/connect', { api_token: first.token });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(ORG_TAKEN);
    expect((await other.get('/api/integrations/connections')).body.connections).toEqual([]);

    const assignment = await assignmentOf(first.org.org_id, first.org.teams[0].id);
    const [kitchen] = assignment.locations;
    const media = await capture.seedMedia(first.org.org_id, assignment.id, [
      {
        type: 'photo',
        location_id: kitchen.id,
        filename: 'o1.jpg',
        bytes: await jpeg(4),
        submitted: true,
        submission_id: 'own-1',
      },
      {
        type: 'photo',
        location_id: kitchen.id,
        filename: 'o2.jpg',
        bytes: await jpeg(5),
        submitted: true,
        submission_id: 'own-2',
      },
    ]);
    const deliver = (id: string, submissionId: string, mediaId: string) =>
      capture.sendWebhook({
        url: url(),
        secret: SECRET,
        event: {
          id,
          type: 'submission.created',
          org_id: first.org.org_id,
          data: { assignmentId: assignment.id, submissionId, mediaIds: [mediaId] },
        },
      }) as Promise<{ status: number; body: any }>;
    const toFirst = await deliver(`evt-own-${randomUUID()}`, 'own-1', media[0].id);
    expect(toFirst.body.status).toBe('created');
    expect((await first.client.get(`/api/integrations/imports/${toFirst.body.batch_id}`)).status).toBe(200);
    expect((await other.get(`/api/integrations/imports/${toFirst.body.batch_id}`)).status).toBe(404);

    // Once the first team disconnects, the other may connect, and the next events are its own.
    expect((await first.client.delete(`/api/integrations/connections/${first.connectionId}`)).status).toBe(200);
    const taken = await other.post('/api/integrations/capture-source/connect', { api_token: first.token });
    expect(taken.status).toBe(200);
    const toOther = await deliver(`evt-own-${randomUUID()}`, 'own-2', media[1].id);
    expect(toOther.body.status).toBe('created');
    expect((await other.get(`/api/integrations/imports/${toOther.body.batch_id}`)).status).toBe(200);
    expect((await first.client.get(`/api/integrations/imports/${toOther.body.batch_id}`)).status).toBe(404);
  });

  it('imports submissions: the first makes the claim, later ones join it, redeliveries answer the first batch', async () => {
    const { client, org } = await connectedTeam();
    const assignment = await assignmentOf(org.org_id, org.teams[0].id);
    const [kitchen] = assignment.locations;
    const media = await capture.seedMedia(org.org_id, assignment.id, [
      {
        type: 'photo',
        location_id: kitchen.id,
        filename: 's1.jpg',
        bytes: await jpeg(1),
        submitted: true,
        submission_id: 'sub-1',
      },
      {
        type: 'photo',
        location_id: kitchen.id,
        filename: 's2.jpg',
        bytes: await jpeg(2),
        submitted: true,
        submission_id: 'sub-2',
      },
      { type: 'photo', location_id: kitchen.id, filename: 'unsubmitted.jpg', bytes: await jpeg(3) },
    ]);
    const event = (id: string, submissionId: string, mediaIds: string[]) => ({
      id,
      type: 'submission.created',
      org_id: org.org_id,
      data: { assignmentId: assignment.id, submissionId, mediaIds },
    });
    const first: { status: number; body: any } = await capture.sendWebhook({
      url: url(),
      secret: SECRET,
      event: event('evt-1', 'sub-1', [media[0].id, media[2].id]),
      delivery_id: 'dlv-1',
    });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'created', batch_id: expect.any(String) });
    const firstBatch = await finished(client, first.body.batch_id);
    // Exactly the submitted media (the unsubmitted one named in the event is left out).
    expect(firstBatch).toMatchObject({ status: 'complete', total: 1, imported: 1 });
    expect(firstBatch.manifest.auto).toEqual({ event_id: 'evt-1', submission_id: 'sub-1', delivery_id: 'dlv-1' });
    expect((await client.get(`/api/claims/${firstBatch.claim_id}`)).body.claim_number).toBe(assignment.reference);

    const redelivered = await capture.sendWebhook({
      url: url(),
      secret: SECRET,
      event: event('evt-1', 'sub-1', [media[0].id]),
    });
    expect(redelivered.body).toEqual({
      status: 'duplicate',
      reason: expect.any(String),
      batch_id: first.body.batch_id,
    });
    const sameSubmission: { status: number; body: any } = await capture.sendWebhook({
      url: url(),
      secret: SECRET,
      event: event('evt-1b', 'sub-1', [media[0].id]),
    });
    expect(sameSubmission.body.batch_id).toBe(first.body.batch_id);

    const later: { status: number; body: any } = await capture.sendWebhook({
      url: url(),
      secret: SECRET,
      event: event('evt-2', 'sub-2', [media[1].id]),
    });
    const laterBatch = await finished(client, later.body.batch_id);
    expect(laterBatch).toMatchObject({ claim_id: firstBatch.claim_id, imported: 1 });
    expect(laterBatch.manifest.target).toEqual({ mode: 'existing_claim', claim_id: firstBatch.claim_id });
  });

  it('refuses a forged signature (401), ignores an unknown org and other events (202), and 503 without a secret', async () => {
    const forged = await capture.sendWebhook({
      url: url(),
      signature: `sha256=${'0'.repeat(64)}`,
      event: { type: 'submission.created', org_id: 'any', data: {} },
    });
    expect(forged.status).toBe(401);
    // Found by the import fuzz: a body of false or 0 (falsy JSON) answered 500 on the local stack.
    for (const body of [false, 0])
      expect((await request('POST', '/api/integrations/capture-source/webhook', { body })).status).toBe(401);
    const unknown: { status: number; body: any } = await capture.sendWebhook({
      url: url(),
      secret: SECRET,
      event: { type: 'submission.created', org_id: `org-${randomUUID()}`, data: {} },
    });
    expect([unknown.status, unknown.body.status]).toEqual([202, 'ignored']);
    const { org } = await connectedTeam();
    const other: { status: number; body: any } = await capture.sendWebhook({
      url: url(),
      secret: SECRET,
      event: { type: 'assignment.updated', org_id: org.org_id, data: {} },
    });
    expect([other.status, other.body.status]).toEqual([202, 'ignored']);
    await expect(
      handleCaptureEvent(
        { rawBody: Buffer.from('{}'), signature: 'sha256=00', deliveryId: undefined },
        { ...settings(), CAPTURE_SOURCE_WEBHOOK_SECRET: '' },
      ),
    ).rejects.toMatchObject({ code: 'unavailable' });
  });
});
