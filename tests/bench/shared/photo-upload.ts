/**
 * A photo job as the browser makes it, shared by the photo benchmarks: a
 * camera-like 12 MP JPEG, uploaded in manifests of at most 200 files
 * (manifest → presigned POST of each file → confirm).
 */
import sharp from 'sharp';
import { postToBucket, type PhotoSlot } from '../../support/uploads';
import type { Api } from '../api';

export const WIDTH = 4000;
export const HEIGHT = 3000;
/** The API takes at most 200 files per manifest (MAX_FILES_PER_BATCH). */
const FILES_PER_MANIFEST = 200;
const POSTS_IN_FLIGHT = 8;

/**
 * One camera-like 12 MP JPEG: colour gradients and a sharp-edged pattern under
 * smoothed gaussian noise (sensor-like grain), quality 90: about 2.5 MiB, and
 * as slow to decode as a real photo of that size.
 */
export async function cameraJpeg(): Promise<Buffer> {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      const wave = Math.sin(x / 37) * Math.cos(y / 53) * 40;
      raw[i] = ((x * 255) / WIDTH + wave) & 0xff;
      raw[i + 1] = ((y * 255) / HEIGHT - wave) & 0xff;
      raw[i + 2] = (((x + y) * 255) / (WIDTH + HEIGHT) + (((x >> 6) ^ (y >> 6)) % 2) * 60) & 0xff;
    }
  }
  const grain = await sharp({
    create: {
      width: WIDTH,
      height: HEIGHT,
      channels: 3,
      background: { r: 128, g: 128, b: 128 },
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .blur(1)
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(raw, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .composite([{ input: grain, blend: 'overlay' }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** Runs fn over items with `limit` in flight. */
async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The 500 photos as one job, in manifests of at most 200: upload → POST each file → confirm. */
export async function uploadJob(api: Api, roomId: string, photo: Buffer, filenames: string[]): Promise<string> {
  let jobId: string | null = null;
  for (let start = 0; start < filenames.length; start += FILES_PER_MANIFEST) {
    const files = filenames
      .slice(start, start + FILES_PER_MANIFEST)
      .map((filename) => ({ filename, size: photo.length, content_type: 'image/jpeg' }));
    const batch = jobId
      ? await api.call('POST', `/api/upload-photos/${jobId}/append`, { files })
      : await api.call('POST', '/api/upload-photos', { room_id: roomId, files, photo_count_hint: filenames.length });
    // Seen once on a shared checkout (cause unconfirmed): a 2xx without these. Say what came back.
    if (typeof batch?.job?.id !== 'string' || !Array.isArray(batch.uploads))
      throw new Error(
        `the upload batch at file ${start} was answered without job/uploads: ${JSON.stringify(batch).slice(0, 300)}`,
      );
    jobId = batch.job.id as string;
    const slots = batch.uploads as PhotoSlot[];
    if (slots.length !== files.length)
      throw new Error(
        `asked for ${files.length} upload slots, got ${slots.length} (skipped: ${JSON.stringify(batch.skipped_photos)})`,
      );
    await inParallel(slots, POSTS_IN_FLIGHT, async (slot) => {
      const posted = await postToBucket(slot, photo);
      if (posted.status !== 204)
        throw new Error(`bucket POST ${slot.original_filename}: ${posted.status} ${posted.text.slice(0, 200)}`);
    });
    const confirmed = await api.call('POST', `/api/upload-photos/${jobId}/confirm`, {
      indices: slots.map((s) => s.index),
    });
    if (confirmed.skipped_photos.length)
      throw new Error(
        `confirm skipped ${confirmed.skipped_photos.length} photo(s): ${JSON.stringify(confirmed.skipped_photos.slice(0, 3))}`,
      );
  }
  return jobId as string;
}
