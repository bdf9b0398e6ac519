/**
 * A video run's frame packs against the embedded S3 and DynamoDB: a unit's
 * frames and previews written in segments (by count and by size), read back
 * in any order with one request for frames close together, written out as a
 * frame's own object the first time it is asked for by name, and cleared for
 * a restarted run.
 */
import { randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { s3 as mediaStore } from '../../lib/blob/client';
import { getJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import {
  clearFrames,
  frameNames,
  frameObjectKey,
  framePacksPrefix,
  framesPrefix,
  readFrameImages,
} from '../../lib/pipelines/video/frame-packs';
import { listKeys, seedJob } from '../support/aws';
import { frameNameAt, packFrames, recordOneUnitRun } from '../support/video-frames';

const room = { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() };
const name = frameNameAt;
const bytesOf = (kind: string, i: number) => Buffer.from(`${kind}-${i}-${'x'.repeat(i)}`);

/** GetObject requests the service's own S3 client sends while `run` runs. */
async function countReads(run: () => Promise<unknown>): Promise<number> {
  let reads = 0;
  const client = mediaStore();
  const step = 'countFrameReads';
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === GetObjectCommand.name) reads++;
      return next(args);
    },
    { step: 'initialize', name: step },
  );
  try {
    await run();
  } finally {
    client.middlewareStack.remove(step);
  }
  return reads;
}

/** A video job whose current run extracted `count` frames (one a second) in one unit, packed `limits`. */
async function extractedJob(count: number, limits: { frames: number; bytes: number }) {
  const jobId = await seedJob(room, 'video');
  const job = (await getJob(jobId)) as Job;
  const images = Array.from({ length: count }, (_, i) => ({
    jpeg: bytesOf('frame', i),
    preview: bytesOf('preview', i),
  }));
  const { frames, writer } = await packFrames(job, images, limits);
  const beforeClose = await listKeys(framePacksPrefix(job));
  await writer.close();
  await recordOneUnitRun(jobId, randomUUID(), count, frames);
  return { job: (await getJob(jobId)) as Job, frames, beforeClose };
}

const packNames = async (job: Job) =>
  (await listKeys(framePacksPrefix(job))).map((key) => key.slice(framePacksPrefix(job).length)).sort();

describe('frame packs', () => {
  it('writes a segment every N frames, the rest when the unit ends, and reads every frame back', async () => {
    const { job, frames, beforeClose } = await extractedJob(7, { frames: 3, bytes: 1 << 20 });
    // Six frames filled two segments while extracting; the seventh was written by close.
    expect(beforeClose).toHaveLength(4);
    expect(await packNames(job)).toEqual([
      '0000-000.frames',
      '0000-000.previews',
      '0000-001.frames',
      '0000-001.previews',
      '0000-002.frames',
      '0000-002.previews',
    ]);
    expect(frames.map((f) => f.packed.pack)).toEqual([
      '0000-000',
      '0000-000',
      '0000-000',
      '0000-001',
      '0000-001',
      '0000-001',
      '0000-002',
    ]);

    const order = [6, 0, 3, 1, 5, 2, 4].map((i) => frames[i]);
    const [full, previews] = await Promise.all([
      readFrameImages(job, order, 'frame'),
      readFrameImages(job, order, 'preview'),
    ]);
    expect(full.map(String)).toEqual(order.map((f) => String(bytesOf('frame', f.time))));
    expect(previews.map(String)).toEqual(order.map((f) => String(bytesOf('preview', f.time))));
  });

  it('cuts a segment when it holds the byte limit, however few frames', async () => {
    // A frame and its preview are 18 to 24 bytes here: a 30-byte limit puts two frames in a segment.
    const { job, frames } = await extractedJob(4, { frames: 30, bytes: 30 });
    expect(frames.map((f) => f.packed.pack)).toEqual(['0000-000', '0000-000', '0000-001', '0000-001']);
    expect((await readFrameImages(job, frames, 'frame')).map(String)).toEqual(
      frames.map((f) => String(bytesOf('frame', f.time))),
    );
  });

  it('reads the frames of one pack in one request', async () => {
    const { job, frames } = await extractedJob(6, { frames: 3, bytes: 1 << 20 });
    expect(await countReads(() => readFrameImages(job, frames.slice(0, 3), 'preview'))).toBe(1);
    expect(await countReads(() => readFrameImages(job, frames, 'preview'))).toBe(2);
  });

  it('says which pack is missing', async () => {
    const { job, frames } = await extractedJob(2, { frames: 30, bytes: 1 << 20 });
    await clearFrames(job);
    await expect(readFrameImages(job, frames, 'frame')).rejects.toThrow(
      /frame pack 0000-000 \(frame_000000\.000\.jpg\) is missing from storage/,
    );
  });

  it('writes a frame asked for by name out as its own object once, and knows the names it has', async () => {
    const { job } = await extractedJob(5, { frames: 2, bytes: 1 << 20 });
    expect(await frameNames(job)).toEqual([0, 1, 2, 3, 4].map(name));
    expect(await frameNames(job, 3)).toEqual([0, 1, 2].map(name));

    const key = await frameObjectKey(job, name(3));
    expect(key).toBe(`${framesPrefix(job)}${name(3)}`);
    const { Body } = await mediaStore().send(new GetObjectCommand({ Bucket: process.env.MEDIA_BUCKET, Key: key! }));
    expect(Buffer.from(await Body!.transformToByteArray()).toString()).toBe(String(bytesOf('frame', 3)));
    // Asked again, it is served from the object: no pack is read.
    expect(await countReads(() => frameObjectKey(job, name(3)))).toBe(0);

    // A name the run does not have, a time past the video, a name that is not a frame's.
    expect(await frameObjectKey(job, 'frame_000002.500.jpg')).toBeNull();
    expect(await frameObjectKey(job, name(40))).toBeNull();
    expect(await frameObjectKey(job, 'notes.jpg')).toBeNull();
  });

  it('has no frames for a job that never ran', async () => {
    const jobId = await seedJob(room, 'video');
    const job = (await getJob(jobId)) as Job;
    expect(await frameNames(job)).toEqual([]);
    expect(await frameObjectKey(job, name(0))).toBeNull();
  });

  it('clears the packs and the frames written out, for a restarted run', async () => {
    const { job } = await extractedJob(3, { frames: 2, bytes: 1 << 20 });
    await frameObjectKey(job, name(1));
    expect(await clearFrames(job)).toBe(5);
    expect(await listKeys(framePacksPrefix(job))).toEqual([]);
    expect(await listKeys(framesPrefix(job))).toEqual([]);
  });
});
