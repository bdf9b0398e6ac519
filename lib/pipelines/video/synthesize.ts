/**
 * The video pipeline's last stage: the chunks' answers merged across chunk
 * boundaries, ordered by video time and saved as items with the claim's next
 * numbers. Each item gets a close-up cut from its best frame to its box and a
 * wider context view (an item only named in the narration gets the frame
 * nearest to when it was named), stored with the job's photos.
 */
import pLimit from 'p-limit';
import { blobKeys } from '../../blob/keys';
import { putJpeg } from '../../blob/objects';
import { settings } from '../../config';
import { passBatchPrefix } from '../../inventory/item-rules';
import { saveItemBatch } from '../../inventory/item-store';
import type { ItemDraft } from '../../inventory/item-record-rules';
import type { Job } from '../../jobs/job-record-rules';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { PipelineFailure } from '../../orchestrator/terminal';
import { PIPELINE_PICTURE_PREFIX } from '../../photos/rules';
import { getRoom } from '../../rooms/store';
import { autoApprove } from '../auto-approval';
import { needsCall } from './analyze';
import type { VideoItem } from './answer-schemas';
import { mergeAcrossChunks } from './dedup-rules';
import { readFrameImages } from './frame-packs';
import { type FrameRecord, listChunkResults, listChunks, listFrames } from './run-store';
import {
  analyzedSeconds,
  asFractions,
  closeUpRect,
  contextRect,
  nearestFrame,
  orderByVideoTime,
  videoItemNotes,
} from './synthesis-rules';

const ALL_AI_FAILED =
  'Every AI request for this video failed, so no items could be made. Nothing was charged; please process it again.';
/** Items whose pictures are cut at once (each holds a frame and two crops in memory). */
const ITEMS_IN_FLIGHT = 4;

/** Pictures carry the pipeline-picture prefix (served without a staged-photo row) and the run. */
const cropName = (runId: string, position: number, kind: 'closeup' | 'context' | 'frame') =>
  `${PIPELINE_PICTURE_PREFIX}${runId.slice(0, 8)}_${String(position + 1).padStart(4, '0')}_${kind}.jpg`;
export const photosPrefix = (job: Pick<Job, 'team_id' | 'claim_id' | 'id'>) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/`;

/** The item's pictures, written to the bucket: close-up then context, or the whole frame without a box. */
async function itemPhotos(
  job: Job,
  item: VideoItem,
  position: number,
  frame: FrameRecord | null,
): Promise<ItemDraft['photos']> {
  if (!frame) return [];
  const [jpeg] = await readFrameImages(job, [frame], 'frame');
  const runId = job.run_id as string;
  const pictures: { kind: 'closeup' | 'context' | 'frame'; jpeg: Buffer }[] = [];
  if (item.box) {
    const { cropJpeg } = await import('../../media/images');
    const { width, height } = frame;
    const [close, context] = await Promise.all([
      cropJpeg(jpeg, asFractions(closeUpRect(item.box, width, height), width, height)),
      cropJpeg(jpeg, asFractions(contextRect(item.box, width, height), width, height)),
    ]);
    pictures.push({ kind: 'closeup', jpeg: close.jpeg }, { kind: 'context', jpeg: context.jpeg });
  } else {
    pictures.push({ kind: 'frame', jpeg });
  }
  return Promise.all(
    pictures.map(async ({ kind, jpeg }) => {
      const filename = cropName(runId, position, kind);
      const key = `${photosPrefix(job)}${filename}`;
      await putJpeg(key, jpeg);
      return { filename, key };
    }),
  );
}

export async function synthesizeVideo(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const config = settings();
  const runId = job.run_id as string;
  const [chunks, results, frames] = await Promise.all([
    listChunks(job.id, runId),
    listChunkResults(job.id, runId),
    listFrames(job.id, runId),
  ]);
  const byChunk = new Map(results.map((r) => [r.chunk_index, r]));
  const calls = chunks.filter(needsCall);
  const answered = calls.filter((c) => byChunk.get(c.index)?.outcome === 'ok');
  if (calls.length > 0 && answered.length === 0) throw new PipelineFailure(ALL_AI_FAILED);

  const located = answered.flatMap((c) =>
    (byChunk.get(c.index)?.items ?? []).map((item) => ({ item, chunk: c.index, time: item.video_time })),
  );
  const boundaries = chunks.slice(0, -1).map((c) => c.end);
  const merged = mergeAcrossChunks(located, boundaries, config.VIDEO_DEDUP_WINDOW_SECONDS).map((l) => l.item);
  const ordered = orderByVideoTime(merged);

  const frameByName = new Map(frames.map((f) => [f.name, f]));
  const limit = pLimit(ITEMS_IN_FLIGHT);
  const drafts: ItemDraft[] = await Promise.all(
    ordered.map((item, position) =>
      limit(async () => ({
        name: item.name,
        quantity: item.quantity,
        brand: item.brand,
        model: item.model,
        serial: item.serial,
        sku: item.sku,
        condition: item.condition,
        age: item.age,
        estimated_price: item.estimated_price,
        damage: item.damage,
        notes: videoItemNotes(item.notes, item.video_time),
        confidence: item.confidence,
        evidence: item.evidence,
        source_group_index: null,
        photos: await itemPhotos(
          job,
          item,
          position,
          (item.frame ? frameByName.get(item.frame) : undefined) ?? nearestFrame(frames, item.video_time),
        ),
      })),
    ),
  );
  const room = await getRoom(job.room_id);
  const saved = await saveItemBatch(job, room?.name ?? null, `${passBatchPrefix(1)}${runId}`, 1, drafts);
  // Processing rules 4: auto-approval runs after synthesis when the team enabled it.
  await autoApprove(ctx, saved);
  const delivered = (index: number) => {
    const chunk = chunks.find((c) => c.index === index);
    return !chunk || !needsCall(chunk) || byChunk.get(index)?.outcome === 'ok';
  };
  const seconds = analyzedSeconds(job.duration ?? 0, chunks, delivered);
  await log.info(
    `Saved ${saved.length} item(s) from ${located.length} found (${located.length - merged.length} merged across chunks); ` +
      `${answered.length}/${calls.length} AI request(s) answered`,
  );
  return { kind: 'next', set: { items_found: saved.length, analyzed_seconds: seconds } };
}
