/**
 * Where a video run keeps its frames: packed, many JPEGs to an object.
 *
 * An extraction unit appends each frame, and the same frame at the preview
 * size, to two packs (frame-packs/<unit>-<segment>.frames and .previews,
 * JPEGs back to back) and writes them when a segment holds
 * PACK_SEGMENT_FRAMES frames or PACK_SEGMENT_BYTES, and when the unit ends.
 * A 10-minute walkthrough at 1 fps is then 40 objects instead of 1,200
 * single-frame PUTs, which were what extraction spent its time on; memory
 * stays bounded by the segment, and frames land as extraction goes. Segments
 * are cut by count and size only, so a unit run again writes the same packs
 * under the same names.
 *
 * A frame's record (./run-store.ts) says where its bytes are. Readers cut
 * them out with Range GETs, frames close together in one request (a chunk's
 * previews lie back to back). GET /api/jobs/{id}/frames/{name} answers with a
 * presigned GET, so a frame asked for there is written once as its own
 * object, frames/<name>, and served from it from then on.
 */
import { deletePrefix } from '../../blob/client';
import { headObject, putBytes, putJpeg, readObjectRanges } from '../../blob/objects';
import { blobKeys } from '../../blob/keys';
import type { ByteRange } from '../../blob/range-rules';
import type { Job } from '../../jobs/job-record-rules';
import { frameTime } from '../../media/extraction-rules';
import { type FrameRecord, findVideoPlan, firstFrames, getUnitFrames, listFrames, type PackedFrame } from './run-store';

type JobPlace = Pick<Job, 'team_id' | 'claim_id' | 'id'>;

/** Frames written as their own objects (on first request by name). */
export const framesPrefix = (job: JobPlace) => `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}frames/`;
export const framePacksPrefix = (job: JobPlace) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}frame-packs/`;

/** Removes a job's frames, packed and written out (a restarted run extracts them again); the objects removed. */
export async function clearFrames(job: JobPlace): Promise<number> {
  const [packs, frames] = await Promise.all([deletePrefix(framePacksPrefix(job)), deletePrefix(framesPrefix(job))]);
  return packs + frames;
}

/** Frames a unit holds before it writes them: a 30-second chunk's at 1 fps, so a chunk's previews are one read. */
const PACK_SEGMENT_FRAMES = 30;
/** Bytes of frames and previews a unit holds at most before it writes them (30 frames of 4K are about this). */
const PACK_SEGMENT_BYTES = 24 * 1024 * 1024;
const PACK_CONTENT_TYPE = 'application/octet-stream';

const packKey = (prefix: string, pack: string, kind: 'frame' | 'preview') =>
  `${prefix}${pack}.${kind === 'frame' ? 'frames' : 'previews'}`;

/** The pack a unit's segment is written to: zero-padded, so a unit's packs list in order. */
function packName(unit: number, segment: number): string {
  return `${String(unit).padStart(4, '0')}-${String(segment).padStart(3, '0')}`;
}

/** One extraction unit's packs: frames appended in order, written segment by segment. */
export class FramePackWriter {
  private frames: Buffer[] = [];
  private previews: Buffer[] = [];
  private frameBytes = 0;
  private previewBytes = 0;
  private segment = 0;
  private readonly prefix: string;

  constructor(
    job: JobPlace,
    private readonly unit: number,
    private readonly limits = { frames: PACK_SEGMENT_FRAMES, bytes: PACK_SEGMENT_BYTES },
  ) {
    this.prefix = framePacksPrefix(job);
  }

  /** Appends a frame; its bytes are in the bucket once its segment is written (here when full, or by close). */
  async add(jpeg: Buffer, preview: Buffer): Promise<PackedFrame> {
    const place: PackedFrame = {
      pack: packName(this.unit, this.segment),
      frame: { offset: this.frameBytes, length: jpeg.length },
      preview: { offset: this.previewBytes, length: preview.length },
    };
    this.frames.push(jpeg);
    this.previews.push(preview);
    this.frameBytes += jpeg.length;
    this.previewBytes += preview.length;
    if (this.frames.length >= this.limits.frames || this.frameBytes + this.previewBytes >= this.limits.bytes)
      await this.flush();
    return place;
  }

  /** Writes what the unit holds. */
  close(): Promise<void> {
    return this.flush();
  }

  private async flush(): Promise<void> {
    if (this.frames.length === 0) return;
    const pack = packName(this.unit, this.segment);
    const [frames, previews] = [Buffer.concat(this.frames), Buffer.concat(this.previews)];
    this.frames = [];
    this.previews = [];
    this.frameBytes = 0;
    this.previewBytes = 0;
    this.segment++;
    await Promise.all([
      putBytes(packKey(this.prefix, pack, 'frame'), frames, PACK_CONTENT_TYPE),
      putBytes(packKey(this.prefix, pack, 'preview'), previews, PACK_CONTENT_TYPE),
    ]);
  }
}

/**
 * The JPEGs of `frames` (full size or preview), in the order given: one
 * request per pack for frames close together.
 */
export async function readFrameImages(
  job: JobPlace,
  frames: readonly Pick<FrameRecord, 'name' | 'packed'>[],
  kind: 'frame' | 'preview',
): Promise<Buffer[]> {
  const prefix = framePacksPrefix(job);
  const byPack = new Map<string, number[]>();
  frames.forEach((frame, i) => {
    const members = byPack.get(frame.packed.pack) ?? [];
    members.push(i);
    byPack.set(frame.packed.pack, members);
  });
  const images: Buffer[] = new Array(frames.length);
  await Promise.all(
    [...byPack].map(async ([pack, members]) => {
      const ranges: ByteRange[] = members.map((i) => frames[i].packed[kind]);
      const bytes = await readObjectRanges(packKey(prefix, pack, kind), ranges);
      if (!bytes) throw new Error(`frame pack ${pack} (${frames[members[0]].name}) is missing from storage`);
      members.forEach((i, n) => {
        images[i] = bytes[n];
      });
    }),
  );
  return images;
}

/**
 * The record of the frame named `name` in the job's current run, or null:
 * the name's time picks the unit whose stretch holds it.
 */
async function findFrame(job: Job, name: string): Promise<FrameRecord | null> {
  const time = frameTime(name);
  const runId = job.run_id;
  if (time === null || !runId) return null;
  const plan = await findVideoPlan(job.id, runId);
  const unit = plan?.units.find((u) => time >= u.start && time < u.end);
  if (!unit) return null;
  const frames = await getUnitFrames(job.id, runId, unit.index);
  return frames?.find((f) => f.name === name) ?? null;
}

/**
 * The key of frame `name` as its own object, written from its pack the first
 * time it is asked for; null when the job has no such frame.
 */
export async function frameObjectKey(job: Job, name: string): Promise<string | null> {
  const key = `${framesPrefix(job)}${name}`;
  if (await headObject(key)) return key;
  const frame = await findFrame(job, name);
  if (!frame) return null;
  const [jpeg] = await readFrameImages(job, [frame], 'frame');
  await putJpeg(key, jpeg);
  return key;
}

/**
 * The names of the frames of the job's current run, in time order (empty
 * before any were extracted): all of them, or the first `max`.
 */
export async function frameNames(job: Pick<Job, 'id' | 'run_id'>, max?: number): Promise<string[]> {
  if (!job.run_id) return [];
  const frames = max === undefined ? await listFrames(job.id, job.run_id) : await firstFrames(job.id, job.run_id, max);
  return frames.map((f) => f.name);
}
