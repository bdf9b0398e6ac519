/**
 * The fake capture source (tests/fakes/capture-source-server.ts) through the
 * real client (lib/integrations/capture-source.ts): the contract's calls,
 * pagination, signed downloads and their test behaviours, org isolation,
 * retried failures and the webhook sender. Each test seeds an org of its own
 * on the run's shared fake.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { CaptureSourceClient } from '../../lib/integrations/capture-source';
import { fakeCaptureSource } from '../support/fake-capture-source';

const baseUrl = () => process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string;
const fake = () => fakeCaptureSource(baseUrl());
const client = (token: string) => new CaptureSourceClient({ baseUrl: baseUrl(), token, backoffMs: 20 });

const jpeg = (r: number, g: number, b: number) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r, g, b } } })
    .jpeg()
    .toBuffer();
const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8;

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** An org of the test's own: a token, two teams, and an assignment with a kitchen (a fridge group) and a hall. */
async function newOrg() {
  const token = `cs-${randomUUID()}`;
  const org = await fake().seedOrg({
    name: 'Acme Field Services',
    tokens: [token],
    teams: [{ name: 'North crew' }, { name: 'South crew' }],
    user: { name: 'Dana Field', email: 'dana@acme.example.test' },
  });
  const assignment = await fake().seedAssignment({
    org_id: org.org_id,
    team_id: org.teams[0].id,
    reference: 'CLM-2026-0042',
    title: '12 Elm Street',
    locations: [{ name: 'Kitchen', groups: [{ name: 'Fridge' }] }, { name: 'Hall' }],
  });
  const [kitchen, hall] = assignment.locations;
  return { token, org, assignment, kitchen, hall, fridge: kitchen.groups[0] };
}

const ok = <T>(result: { outcome: string; body?: T }): T => {
  expect(result).toMatchObject({ outcome: 'ok' });
  return result.body as T;
};

it('answers whoami for a valid token and 401 for a bad or revoked one', async () => {
  const { token, org } = await newOrg();
  expect(ok(await client(token).whoami())).toEqual({
    org: { id: org.org_id, name: 'Acme Field Services' },
    user: { id: org.user.id, name: 'Dana Field', email: 'dana@acme.example.test' },
  });
  expect(await client(`nobody-${randomUUID()}`).whoami()).toEqual({ outcome: 'unauthorized' });

  const second = `cs-second-${randomUUID()}`;
  await fake().seedOrg({ org_id: org.org_id, tokens: [second] });
  expect(ok(await client(second).whoami())).toMatchObject({ org: { id: org.org_id } });
  await fake().revokeToken(second);
  expect(await client(second).whoami()).toEqual({ outcome: 'unauthorized' });
  const [bad] = await fake()
    .requests({ token: second, match: 'GET /v1/whoami' })
    .then((r) => r.slice(-1));
  expect(bad).toMatchObject({ status: 401, org_id: null });
});

it('lists teams and assignments (newest first) and gives an assignment tree', async () => {
  const { token, org, assignment, kitchen, hall, fridge } = await newOrg();
  const later = await fake().seedAssignment({
    org_id: org.org_id,
    team_id: org.teams[0].id,
    title: 'Follow-up visit',
    status: 'closed',
    created_at: new Date(Date.now() + 60_000).toISOString(),
  });
  const source = client(token);

  expect(ok(await source.teams())).toEqual({ data: org.teams, next_cursor: null });
  const assignments = ok(await source.assignments(org.teams[0].id));
  expect(assignments.next_cursor).toBeNull();
  expect(assignments.data).toEqual([
    expect.objectContaining({ id: later.id, reference: '', title: 'Follow-up visit', status: 'closed' }),
    {
      id: assignment.id,
      reference: 'CLM-2026-0042',
      title: '12 Elm Street',
      status: 'open',
      created_at: assignment.created_at,
      updated_at: assignment.updated_at,
    },
  ]);
  expect(ok(await source.assignments(org.teams[1].id)).data).toEqual([]);
  expect(ok(await source.tree(assignment.id))).toEqual({
    assignment: { id: assignment.id, reference: 'CLM-2026-0042', title: '12 Elm Street' },
    locations: [
      { id: kitchen.id, name: 'Kitchen', groups: [{ id: fridge.id, name: 'Fridge' }] },
      { id: hall.id, name: 'Hall', groups: [] },
    ],
  });
});

it('pages media in capture order with a cursor and a limit', async () => {
  const { token, org, assignment, kitchen, fridge } = await newOrg();
  const start = Date.parse('2026-03-01T10:00:00Z');
  // Seeded out of capture order: the listing sorts by captured_at.
  const seeded = await fake().seedMedia(
    org.org_id,
    assignment.id,
    [4, 0, 3, 1, 2].map((n) => ({
      type: n === 4 ? ('audio' as const) : ('photo' as const),
      location_id: kitchen.id,
      group_id: n === 0 ? fridge.id : null,
      filename: n === 4 ? 'note.m4a' : `photo-${n}.jpg`,
      bytes: Buffer.from(`media ${n}`),
      captured_at: new Date(start + n * 1000).toISOString(),
    })),
  );
  const byCapture = [1, 3, 4, 2, 0].map((i) => seeded[i]);
  const source = client(token);

  const pages = [];
  let cursor: string | undefined;
  do {
    const page = ok(await source.media(assignment.id, cursor, 2));
    pages.push(page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
  const listed = pages.flat();
  expect(listed.map((m) => m.id)).toEqual(byCapture.map((m) => m.id));
  expect(listed[0]).toMatchObject({
    type: 'photo',
    location_id: kitchen.id,
    group_id: fridge.id,
    filename: 'photo-0.jpg',
    content_type: 'image/jpeg',
    size_bytes: Buffer.byteLength('media 0'),
    captured_at: '2026-03-01T10:00:00.000Z',
    synced: true,
    submitted: false,
    submission_id: null,
  });
  expect(listed[4]).toMatchObject({ type: 'audio', content_type: 'audio/mp4', thumbnail_url: null });
  const thumbnail = await get(listed[0].thumbnail_url as string);
  expect(thumbnail).toMatchObject({ status: 200, type: 'image/jpeg' });
  expect(isJpeg(thumbnail.bytes)).toBe(true);

  // The default page holds them all; the limit is checked.
  expect(ok(await source.media(assignment.id))).toMatchObject({ next_cursor: null });
  expect(await source.media(assignment.id, undefined, 201)).toMatchObject({ outcome: 'unprocessable' });
  expect(await source.media(assignment.id, 'not-a-cursor')).toMatchObject({ outcome: 'unprocessable' });
  const asked = await fake().requests({ token, match: `GET /v1/assignments/${assignment.id}/media` });
  expect(asked[1].query).toEqual({ cursor: expect.any(String), limit: '2' });
});

it('signs downloads of synced media: the exact original bytes, a JPEG proxy for photos, 403 once tampered or expired', async () => {
  const { token, org, assignment, kitchen, hall } = await newOrg();
  const original = await jpeg(200, 40, 40);
  const proxy = await jpeg(40, 200, 40);
  const [photo, video, pending] = await fake().seedMedia(org.org_id, assignment.id, [
    { type: 'photo', location_id: kitchen.id, filename: 'fridge.jpg', bytes: original, proxy },
    { type: 'video', location_id: hall.id, filename: 'walk.mp4', bytes: Buffer.from('not really an mp4') },
    { type: 'photo', location_id: hall.id, filename: 'later.jpg', bytes: original, synced: false },
  ]);
  const source = client(token);

  const signed = ok(await source.sign([photo.id, video.id, pending.id, 'med_unknown'], 600));
  expect(signed.data.map((s) => s.id)).toEqual([photo.id, video.id]);
  const [photoUrls, videoUrls] = signed.data;
  expect(videoUrls.proxy_url).toBeNull();
  const expiresIn = Date.parse(photoUrls.expires_at) - Date.now();
  expect(expiresIn).toBeGreaterThan(590_000);
  expect(expiresIn).toBeLessThanOrEqual(600_000);

  const download = await get(photoUrls.original_url);
  expect(download).toMatchObject({ status: 200, type: 'image/jpeg' });
  expect(download.bytes.equals(original)).toBe(true);
  expect((await get(photoUrls.proxy_url as string)).bytes.equals(proxy)).toBe(true);
  expect((await get(videoUrls.original_url)).bytes.toString()).toBe('not really an mp4');

  const tampered = new URL(photoUrls.original_url);
  tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 3600));
  expect((await get(tampered.href)).status).toBe(403);
  const otherMedia = photoUrls.original_url.replace(photo.id, video.id);
  expect((await get(otherMedia)).status).toBe(403);
  const expired = await fake().signUrl(photo.id, { ttl_seconds: -5 });
  expect((await get(expired.url)).status).toBe(403);
  expect((await fake().downloads({ media_id: photo.id })).map((d) => [d.kind, d.status, d.refused])).toEqual([
    ['original', 200, null],
    ['proxy', 200, null],
    ['original', 403, 'bad_signature'],
    ['original', 403, 'expired'],
  ]);

  // Once synced, it can be signed; the validation is the contract's.
  await fake().updateMedia(pending.id, { synced: true });
  expect(ok(await source.sign([pending.id])).data.map((s) => s.id)).toEqual([pending.id]);
  expect(await source.sign([])).toMatchObject({
    outcome: 'unprocessable',
    detail: expect.stringContaining('1 to 200'),
  });
  expect(await source.sign([photo.id], 30)).toMatchObject({ outcome: 'unprocessable' });
});

it('serves the per-media test behaviours: unreadable original, failing and slow downloads', async () => {
  const { token, org, assignment, kitchen } = await newOrg();
  const bytes = await jpeg(90, 90, 200);
  const [unreadable, flaky, slow] = await fake().seedMedia(org.org_id, assignment.id, [
    { type: 'photo', location_id: kitchen.id, filename: 'a.jpg', bytes, unreadable_original: true },
    { type: 'photo', location_id: kitchen.id, filename: 'b.jpg', bytes, fail_downloads: 2 },
    { type: 'photo', location_id: kitchen.id, filename: 'c.jpg', bytes, slow_ms: 400 },
  ]);
  const [u, f, s] = ok(await client(token).sign([unreadable.id, flaky.id, slow.id])).data;

  const garbage = await get(u.original_url);
  expect(garbage.status).toBe(200);
  expect(garbage.bytes.length).toBe(unreadable.size_bytes);
  await expect(sharp(garbage.bytes).metadata()).rejects.toThrow();
  expect(isJpeg((await get(u.proxy_url as string)).bytes)).toBe(true);

  expect((await get(f.original_url)).status).toBe(503);
  expect((await get(f.proxy_url as string)).status).toBe(503);
  expect((await get(f.original_url)).bytes.equals(bytes)).toBe(true);

  const started = Date.now();
  expect((await get(s.original_url)).bytes.equals(bytes)).toBe(true);
  expect(Date.now() - started).toBeGreaterThanOrEqual(350);
});

it('serves a capture source gone wrong: understated sizes, URLs elsewhere, redirects and stalled bodies', async () => {
  const { token, org, assignment, kitchen } = await newOrg();
  const bytes = await jpeg(20, 90, 90);
  const [understated, elsewhere, redirected, stalled] = await fake().seedMedia(org.org_id, assignment.id, [
    { type: 'photo', location_id: kitchen.id, filename: 'a.jpg', bytes, declared_size_bytes: 10 },
    { type: 'photo', location_id: kitchen.id, filename: 'b.jpg', bytes, original_url: 'file:///etc/passwd' },
    { type: 'photo', location_id: kitchen.id, filename: 'c.jpg', bytes, redirect_to: 'http://127.0.0.1:9/x' },
    { type: 'video', location_id: kitchen.id, filename: 'd.mp4', bytes: Buffer.alloc(100), stall_after_bytes: 40 },
  ]);
  expect(understated).toMatchObject({ size_bytes: 10, declared_size_bytes: 10 });
  const listed = ok(await client(token).media(assignment.id)).data;
  expect(listed.find((m) => m.id === understated.id)?.size_bytes).toBe(10);
  const [u, e, r, st] = ok(await client(token).sign([understated.id, elsewhere.id, redirected.id, stalled.id])).data;

  expect((await get(u.original_url)).bytes.equals(bytes)).toBe(true);
  expect(e.original_url).toBe('file:///etc/passwd');
  expect(e.proxy_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/proxy\//);
  const moved = await fetch(r.original_url, { redirect: 'manual' });
  expect([moved.status, moved.headers.get('location')]).toEqual([302, 'http://127.0.0.1:9/x']);

  // The headers and the first 40 bytes, then nothing until the client hangs up.
  const res = await fetch(st.original_url);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let received = 0;
  const quiet = new Promise<'quiet'>((resolve) => setTimeout(resolve, 500, 'quiet'));
  for (;;) {
    const step = await Promise.race([reader.read(), quiet]);
    if (step === 'quiet') break;
    if (step.done) throw new Error('the stalled body ended');
    received += step.value.byteLength;
  }
  expect(received).toBe(40);
  await reader.cancel();
  expect((await fake().downloads({ media_id: stalled.id })).map((d) => [d.status, d.bytes])).toEqual([[200, 40]]);
  expect((await fake().downloads({ media_id: redirected.id })).map((d) => d.status)).toEqual([302]);
  // Patched back, each behaves again.
  expect(await fake().updateMedia(stalled.id, { stall_after_bytes: null })).toMatchObject({ stall_after_bytes: null });
});

it("answers 404 for another org's assignment and team, and leaves its media out of signing", async () => {
  const mine = await newOrg();
  const theirs = await newOrg();
  const [theirPhoto] = await fake().seedMedia(theirs.org.org_id, theirs.assignment.id, [
    { type: 'photo', location_id: null, filename: 'x.jpg', bytes: Buffer.from('x') },
  ]);
  const source = client(mine.token);
  expect(await source.tree(theirs.assignment.id)).toMatchObject({
    outcome: 'not_found',
    detail: 'GET /v1/assignments/{assignment_id}/tree: not_found',
  });
  expect(await source.media(theirs.assignment.id)).toMatchObject({ outcome: 'not_found' });
  expect(await source.assignments(theirs.org.teams[0].id)).toMatchObject({ outcome: 'not_found' });
  expect(ok(await source.sign([theirPhoto.id])).data).toEqual([]);
});

it('retries an injected 503 and a 429, then succeeds', async () => {
  const { token, org } = await newOrg();
  await fake().failNext('503', { match: token });
  await fake().failNext('429', { match: token });
  expect(ok(await client(token).whoami())).toMatchObject({ org: { id: org.org_id } });
  const calls = await fake().requests({ token });
  expect(calls.map((c) => [c.path, c.status, c.failure])).toEqual([
    ['/v1/whoami', 503, '503'],
    ['/v1/whoami', 429, '429'],
    ['/v1/whoami', 200, null],
  ]);
});

describe('the webhook sender', () => {
  const secret = 'capture-test-secret';
  const received: { headers: IncomingMessage['headers']; raw: string }[] = [];
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    received.push({ headers: req.headers, raw });
    const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const valid = req.headers['x-capture-signature'] === expected;
    res.writeHead(valid ? 202 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ valid }));
  });
  let url = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/capture`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('signs the raw body with the secret, fills the event id and time, and answers our status and body', async () => {
    const data = { assignmentId: 'asg_1', submissionId: 'sub_1', mediaIds: ['med_1', 'med_2'] };
    const result = await fake().sendWebhook({
      url,
      secret,
      event: { type: 'submission.created', org_id: 'org_1', data },
    });
    expect(result).toMatchObject({ status: 202, body: { valid: true } });
    const [delivery] = received.slice(-1);
    expect(delivery.headers['x-capture-delivery']).toBe(result.delivery_id);
    expect(delivery.headers['x-capture-signature']).toBe(result.signature);
    expect(delivery.headers['content-type']).toBe('application/json');
    const event = JSON.parse(delivery.raw);
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'submission.created',
      org_id: 'org_1',
      created_at: expect.any(String),
      data,
    });
    expect(result.event).toEqual(event);

    // A given id, delivery id and forged signature go out verbatim.
    const forged = await fake().sendWebhook({
      url,
      secret,
      event: { id: 'evt_fixed', type: 'submission.created', org_id: 'org_1', data },
      delivery_id: 'dlv_fixed',
      signature: 'sha256=0000',
    });
    expect(forged).toMatchObject({ status: 401, body: { valid: false }, delivery_id: 'dlv_fixed' });
    expect(received.slice(-1)[0].headers).toMatchObject({
      'x-capture-signature': 'sha256=0000',
      'x-capture-delivery': 'dlv_fixed',
    });
    expect(JSON.parse(received.slice(-1)[0].raw).id).toBe('evt_fixed');
  });
});
