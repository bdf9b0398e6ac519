/**
 * Uploads from a real browser (spec: Uploads > Chunked upload, Photo
 * uploads): headless Chromium loads a page from an allowed origin
 * (http://app.example.test, see tests/support/browser.ts for how that origin
 * reaches a loopback server) and, from inside the page with fetch as the SPA
 * does:
 *
 *   video:  init → part URLs → PUT each part straight to the bucket (reading
 *           the ETag, which only works if the bucket's CORS exposes it) →
 *           status → complete → a job;
 *   photos: manifest → POST each canvas-drawn image to its presigned POST
 *           (fields first, file last) → confirm → staged photos.
 *
 * Node then checks what landed: the assembled object's SHA-256 against the
 * one the page computed, the job rows through the API, and the photo worker
 * normalizing the staged photos.
 *
 * Needs Chromium at /usr/bin/chromium (CHROMIUM_PATH overrides); .ci/run
 * installs it. Without it the file is skipped with a message, never passed.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { Client, eventually, request, serviceUrl } from '../support/api';
import {
  APP_ORIGIN,
  CHROMIUM_PATH,
  chromiumAvailable,
  launchChromium,
  servePage,
  type PageServer,
} from '../support/browser';
import { getRow } from '../support/aws';
import { newTeamMember } from '../support/tokens';

const MIB = 1024 * 1024;
/**
 * The test service hands out 16 MiB parts (RECOMMENDED_CHUNK_BYTES), so a
 * multi-part video must be larger than that: one full part plus a short
 * last one of 1 MiB + 77 bytes (~17 MiB). S3 only checks the 5 MiB minimum on
 * every part but the last.
 */
const VIDEO_BYTES = 16 * MIB + 1 * MIB + 77;

/** The "SPA": inline script only, exercising the API and the bucket with fetch. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>uploads</title></head>
<body><h1>uploads</h1>
<script>
'use strict';
const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

function makeApi(base, token) {
  return async function api(method, path, body) {
    const headers = { authorization: 'Bearer ' + token };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, body: parsed };
  };
}

function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(what + ': expected ' + status + ', got ' + res.status + ' ' + JSON.stringify(res.body));
  return res.body;
}

/** A file-like Blob of random bytes (getRandomValues takes at most 64 KiB per call). */
function randomBlob(size, type) {
  const bytes = new Uint8Array(size);
  for (let at = 0; at < size; at += 65536) crypto.getRandomValues(bytes.subarray(at, Math.min(size, at + 65536)));
  return new File([bytes], 'walkthrough.mp4', { type });
}

window.uploadVideo = async function ({ base, token, roomId, size }) {
  const api = makeApi(base, token);
  const file = randomBlob(size, 'video/mp4');
  const sha256 = hex(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));

  const init = expectStatus(await api('POST', '/api/uploads/init', { kind: 'video', filename: file.name, room_id: roomId, total_size: file.size }), 201, 'init');
  const indices = Array.from({ length: init.part_count }, (_, i) => i);
  const signed = expectStatus(await api('POST', '/api/uploads/' + init.upload_id + '/part-urls', { parts: indices }), 200, 'part-urls');

  const puts = [];
  for (const { index, url, size: partSize } of signed.urls) {
    const start = index * init.chunk_size;
    const res = await fetch(url, { method: 'PUT', body: file.slice(start, start + partSize) });
    await res.arrayBuffer();
    puts.push({ index, size: partSize, status: res.status, etag: res.headers.get('ETag'), host: new URL(url).host });
  }

  const status = expectStatus(await api('GET', '/api/uploads/' + init.upload_id), 200, 'status');
  const complete = await api('POST', '/api/uploads/' + init.upload_id + '/complete');
  return { sha256, size: file.size, filename: file.name, init, puts, status, complete };
};

/** A small image drawn on an OffscreenCanvas: four coloured quadrants. */
async function drawImage(width, height, type) {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const colours = [['#ff0000', '#00ff00'], ['#0000ff', '#ffffff']];
  for (let row = 0; row < 2; row++) {
    for (let col = 0; col < 2; col++) {
      ctx.fillStyle = colours[row][col];
      ctx.fillRect((col * width) / 2, (row * height) / 2, width / 2, height / 2);
    }
  }
  return canvas.convertToBlob(type === 'image/jpeg' ? { type, quality: 0.92 } : { type });
}

window.uploadPhotos = async function ({ base, token, roomId, photos }) {
  const api = makeApi(base, token);
  const files = [];
  for (const p of photos) files.push(new File([await drawImage(p.width, p.height, p.type)], p.filename, { type: p.type }));

  const manifest = files.map((f) => ({ filename: f.name, size: f.size, content_type: f.type }));
  const started = expectStatus(await api('POST', '/api/upload-photos', { room_id: roomId, files: manifest }), 201, 'upload-photos');

  const posts = [];
  for (const slot of started.uploads) {
    const file = files.find((f) => f.name === slot.original_filename);
    const form = new FormData();
    for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
    form.append('file', file, file.name); // the file last: S3 ignores fields after it
    const res = await fetch(slot.url, { method: 'POST', body: form });
    posts.push({ index: slot.index, filename: slot.original_filename, size: file.size, status: res.status, text: await res.text() });
  }

  const confirmed = await api('POST', '/api/upload-photos/' + started.job.id + '/confirm', { indices: started.uploads.map((u) => u.index) });
  return { manifest, started, posts, confirmed };
};
</script></body></html>`;

/** Served by the same page server, but not in CORS_ORIGINS. */
const OTHER_HOST = 'elsewhere.example.test';

const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
if (!chromiumAvailable()) {
  // Loud on purpose: a skipped browser suite must never look like a pass.
  console.warn(
    `SKIPPED tests/e2e/browser-uploads.test.ts: no Chromium at ${CHROMIUM_PATH}. Install it with \`apt-get install chromium\` (.ci/run does).`,
  );
}

describeWithChromium(`uploads from headless Chromium at ${APP_ORIGIN}`, () => {
  let pageServer: PageServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const consoleLines: string[] = [];
  let alice: Client;
  let room: { id: string; claim_id: string };

  beforeAll(async () => {
    alice = await Client.signIn(newTeamMember());
    const claim = await alice.post('/api/claims', { claim_number: `BR-${randomUUID().slice(0, 8)}` });
    expect(claim.status).toBe(201);
    const created = await alice.post(`/api/claims/${claim.body.id}/rooms`, { name: 'Living room' });
    expect(created.status).toBe(201);
    room = { id: created.body.id, claim_id: claim.body.id };

    pageServer = await servePage(PAGE);
    browser = await launchChromium(pageServer.port, [OTHER_HOST]);
    page = await browser.newPage();
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    const res = await page.goto(`${APP_ORIGIN}/`);
    expect(res?.status()).toBe(200);
    // (tsconfig has no DOM lib: browser globals are reached through globalThis)
    expect(
      await page.evaluate(() => [(globalThis as any).location.origin, (globalThis as any).isSecureContext]),
    ).toEqual([APP_ORIGIN, true]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await pageServer?.close();
  });

  /** Runs one of the page's flows; on failure, shows what the page logged. */
  async function inPage<T>(fn: string, arg: Record<string, unknown>): Promise<T> {
    try {
      return await page.evaluate(([name, a]) => (globalThis as any)[name](a), [fn, arg] as const);
    } catch (err) {
      throw new Error(`${fn} failed in the page: ${(err as Error).message}\npage console:\n${consoleLines.join('\n')}`);
    }
  }

  it('is really held to CORS: the same page from an origin outside CORS_ORIGINS cannot read the API', async () => {
    const other = await browser!.newPage();
    try {
      await other.goto(`http://${OTHER_HOST}/`);
      const outcome = await other.evaluate(
        async ([base, token]) => {
          try {
            const res = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
            return `read ${res.status}`;
          } catch (err) {
            return `refused: ${(err as Error).message}`;
          }
        },
        [serviceUrl(), alice.token] as const,
      );
      expect(outcome).toMatch(/^refused: Failed to fetch/);
      // ...while the allowed origin reads the same endpoint.
      expect(
        await page.evaluate(
          async ([base, token]) =>
            (await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status,
          [serviceUrl(), alice.token] as const,
        ),
      ).toBe(200);
    } finally {
      await other.close();
    }
  });

  describe('a multi-part video', () => {
    let result: any;

    it('goes init → part URLs → PUT to the bucket (ETag readable) → status → complete, all from the page', async () => {
      result = await inPage('uploadVideo', {
        base: serviceUrl(),
        token: alice.token,
        roomId: room.id,
        size: VIDEO_BYTES,
      });

      expect(result.size).toBe(VIDEO_BYTES);
      expect(result.init).toMatchObject({ upload_id: expect.any(String), received: [] });
      expect(result.init.part_count).toBeGreaterThanOrEqual(2);
      expect(result.init.chunk_size).toBeLessThan(VIDEO_BYTES);
      expect(result.puts).toHaveLength(result.init.part_count);
      for (const put of result.puts) {
        expect(put.status).toBe(200);
        // Only readable cross-origin because the bucket's CORS exposes ETag.
        expect(put.etag).toMatch(/^"[0-9a-f]{32}"$/);
        expect(put.host).not.toBe(new URL(serviceUrl()).host); // straight to the bucket, not through the API
      }
      expect(result.puts.map((p: any) => p.size).reduce((a: number, b: number) => a + b, 0)).toBe(VIDEO_BYTES);
      expect(result.status).toMatchObject({
        upload_id: result.init.upload_id,
        status: 'open',
        part_count: result.init.part_count,
        received: Array.from({ length: result.init.part_count }, (_, i) => i),
        job_id: null,
      });
      expect(result.complete.status).toBe(201);
      expect(result.complete.body).toMatchObject({
        id: expect.any(String),
        room_id: room.id,
        claim_id: room.claim_id,
        source_type: 'video',
        original_filename: 'walkthrough.mp4',
        file_size_bytes: VIDEO_BYTES,
      });
    }, 120_000);

    it('assembled exactly the bytes the page hashed, served through the capability redirect', async () => {
      const jobId = result.complete.body.id;
      const redirect = await request('GET', `/api/jobs/${jobId}/video`);
      expect(redirect.status).toBe(302);
      const location = redirect.headers.get('location')!;
      expect(location).toMatch(/X-Amz-Signature=/);
      const res = await fetch(location);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).toBe(VIDEO_BYTES);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(result.sha256);
    }, 60_000);

    it('left the job and the completed upload rows behind', async () => {
      const jobId = result.complete.body.id;
      const job = await alice.get(`/api/jobs/${jobId}`);
      expect(job.status).toBe(200);
      expect(job.body).toMatchObject({
        id: jobId,
        room_id: room.id,
        source_type: 'video',
        original_filename: 'walkthrough.mp4',
        file_size_bytes: VIDEO_BYTES,
      });
      expect(await getRow(`JOB#${jobId}`, 'JOB')).toMatchObject({
        id: jobId,
        media_key: expect.stringMatching(/\/media\/walkthrough\.mp4$/),
      });
      expect(await getRow(`UPLOAD#${result.init.upload_id}`, 'UPLOAD')).toMatchObject({
        status: 'completed',
        job_id: jobId,
      });
      const status = await alice.get(`/api/uploads/${result.init.upload_id}`);
      expect(status.body).toMatchObject({ status: 'completed', job_id: jobId });
    });
  });

  describe('a batch of photos', () => {
    const photos = [
      { filename: 'sofa.png', width: 64, height: 48, type: 'image/png' },
      { filename: 'Shelf 2.jpg', width: 40, height: 30, type: 'image/jpeg' },
      { filename: 'lamp.png', width: 50, height: 20, type: 'image/png' },
    ];
    let result: any;

    it('goes manifest → presigned POST per image (fields first, file last) → confirm, all from the page', async () => {
      result = await inPage('uploadPhotos', { base: serviceUrl(), token: alice.token, roomId: room.id, photos });

      expect(result.started.job).toMatchObject({ source_type: 'photo', status: 'awaiting_grouping', room_id: room.id });
      expect(result.started.skipped_photos).toEqual([]);
      expect(result.started.uploads.map((u: any) => u.original_filename)).toEqual(photos.map((p) => p.filename));
      for (const post of result.posts)
        expect({ filename: post.filename, status: post.status, text: post.text }).toEqual({
          filename: post.filename,
          status: 204,
          text: '',
        });

      expect(result.confirmed.status).toBe(200);
      expect(result.confirmed.body.skipped_photos).toEqual([]);
      expect(result.confirmed.body.staged_photos.map((p: any) => p.original_filename)).toEqual(
        photos.map((p) => p.filename),
      );
    }, 60_000);

    it('has the photo worker normalize every staged photo to an upright JPEG of the drawn size', async () => {
      const jobId = result.started.job.id;
      const job = await alice.get(`/api/jobs/${jobId}`);
      expect(job.status).toBe(200);
      expect(job.body).toMatchObject({ id: jobId, source_type: 'photo' });

      const staged = await eventually(async () => {
        const list = await alice.get(`/api/jobs/${jobId}/staged-photos`);
        return list.status === 200 && list.body.length === photos.length && list.body.every((p: any) => p.normalized)
          ? list.body
          : null;
      }, 60_000);
      expect(staged.map((p: any) => [p.original_filename, p.deleted, p.width, p.height])).toEqual(
        photos.map((p) => [p.filename, false, p.width, p.height]),
      );

      for (const p of staged) {
        const redirect = await request('GET', p.url);
        expect(redirect.status).toBe(302);
        const body = Buffer.from(await (await fetch(redirect.headers.get('location')!)).arrayBuffer());
        const meta = await sharp(body).metadata();
        expect(meta.format).toBe('jpeg');
        expect([meta.width, meta.height]).toEqual([p.width, p.height]);
      }
    }, 90_000);
  });
});
