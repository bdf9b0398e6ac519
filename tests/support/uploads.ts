/**
 * Upload helpers over real HTTP, as the browser drives them (see
 * tests/e2e/photo-uploads.test.ts and tests/e2e/uploads-media.test.ts):
 * claims and rooms, photo manifest → presigned POST → confirm, and chunked
 * video/audio init → part URLs → PUT → complete.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import type { DocumentSlot, UploadSlot } from '../../lib/photos/schemas';
import { type Client, eventually } from './api';
import { getRow } from './aws';

export interface TestRoom {
  id: string;
  claim_id: string;
  team_id: string;
}

/** A new claim with one room, created through the API. */
export async function newRoom(client: Client, name = 'Kitchen'): Promise<TestRoom> {
  const claim = await client.post('/api/claims', { claim_number: `T-${randomUUID().slice(0, 8)}` });
  if (claim.status !== 201) throw new Error(`claim create: ${claim.status} ${JSON.stringify(claim.body)}`);
  const created = await client.post(`/api/claims/${claim.body.id}/rooms`, { name });
  if (created.status !== 201) throw new Error(`room create: ${created.status} ${JSON.stringify(created.body)}`);
  const row = await getRow(`ROOM#${created.body.id}`, 'ROOM');
  return { id: created.body.id as string, claim_id: claim.body.id as string, team_id: row!.team_id as string };
}

/** A small solid-colour PNG. */
export function smallPng(seed = 0, width = 40, height = 30): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: { r: (seed * 67) % 256, g: (seed * 131) % 256, b: 200 } },
  })
    .png()
    .toBuffer();
}

/** One presigned POST slot as POST /api/upload-photos answers it. */
export type PhotoSlot = UploadSlot;

/** What the browser does with a slot: a multipart form, every signed field first, then the file. */
export async function postToBucket(slot: PhotoSlot, bytes: Buffer): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), slot.original_filename);
  const res = await fetch(slot.url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text() };
}

/** A photo job (awaiting_grouping) with the given photos uploaded and confirmed; each photo in its own group. */
/** The browser's POST of a PDF to its slot: the signed fields first, then the file. */
export async function postDocument(slot: DocumentSlot, bytes: Buffer): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), slot.original_filename);
  const res = await fetch(slot.url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text() };
}

export async function photoJob(
  client: Client,
  roomId: string,
  photos: Buffer[],
  filenames?: string[],
): Promise<{ jobId: string; indices: number[] }> {
  const files = photos.map((p, i) => ({ filename: filenames?.[i] ?? `photo-${i}.png`, size: p.length }));
  const started = await client.post('/api/upload-photos', { room_id: roomId, files });
  if (started.status !== 201) throw new Error(`upload-photos: ${started.status} ${JSON.stringify(started.body)}`);
  const slots = started.body.uploads as PhotoSlot[];
  for (let i = 0; i < slots.length; i++) {
    const posted = await postToBucket(slots[i], photos[i]);
    if (posted.status !== 204) throw new Error(`bucket POST: ${posted.status} ${posted.text}`);
  }
  const indices = slots.map((s) => s.index);
  const confirmed = await client.post(`/api/upload-photos/${started.body.job.id}/confirm`, { indices });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { jobId: started.body.job.id as string, indices };
}

/** A real clip made with ffmpeg: `seconds` of test pattern at 10 fps with a sine tone. */
export function makeVideo(path: string, seconds = 25): Buffer {
  const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';
  execFileSync(ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=320x240:rate=10`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-shortest',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-movflags',
    '+faststart',
    path,
  ]);
  return readFileSync(path);
}

/** init → part URLs → PUT each part → (optionally) complete. Returns the upload id and, when completed, the job. */
export async function chunkedUpload(
  client: Client,
  room: { id: string },
  bytes: Buffer,
  options: { kind?: 'video' | 'audio'; filename?: string; complete?: boolean } = {},
): Promise<{ uploadId: string; job: any | null }> {
  const init = await client.post('/api/uploads/init', {
    kind: options.kind ?? 'video',
    filename: options.filename ?? 'walkthrough.mp4',
    room_id: room.id,
    total_size: bytes.length,
  });
  if (init.status !== 201) throw new Error(`uploads/init: ${init.status} ${JSON.stringify(init.body)}`);
  const uploadId = init.body.upload_id as string;
  const chunkSize = init.body.chunk_size as number;
  const parts = Array.from({ length: init.body.part_count as number }, (_, i) => i);
  const urls = await client.post(`/api/uploads/${uploadId}/part-urls`, { parts });
  if (urls.status !== 200) throw new Error(`part-urls: ${urls.status} ${JSON.stringify(urls.body)}`);
  for (const { index, url, size } of urls.body.urls as { index: number; url: string; size: number }[]) {
    const put = await fetch(url, { method: 'PUT', body: bytes.subarray(index * chunkSize, index * chunkSize + size) });
    if (put.status !== 200) throw new Error(`part PUT: ${put.status}`);
  }
  if (options.complete === false) return { uploadId, job: null };
  const done = await client.post(`/api/uploads/${uploadId}/complete`);
  if (done.status !== 201) throw new Error(`complete: ${done.status} ${JSON.stringify(done.body)}`);
  return { uploadId, job: done.body };
}

/** Waits for the probe worker to store a numeric duration on the job row. */
export function waitForDuration(jobId: string, timeoutMs = 45_000): Promise<Record<string, any>> {
  return eventually(async () => {
    const row = await getRow(`JOB#${jobId}`, 'JOB');
    return row && typeof row.duration === 'number' ? row : null;
  }, timeoutMs);
}
