/**
 * How a training claim's jobs are processed (spec: Training claims change
 * behavior): at once, with realistic fixture items, no pipeline, no AI and
 * no credits. Each photo group becomes one item with the group's photos; a
 * video or voice note becomes a few items with fixture photos.
 */
import { blobKeys } from '../blob/keys';
import { putJpeg } from '../blob/objects';
import { derivedId } from '../inventory/item-rules';
import { saveItemBatch } from '../inventory/item-store';
import type { ItemDraft } from '../inventory/item-record-rules';
import { updateJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import { archiveLog, JobLog } from '../jobs/log-store';
import { logger } from '../observability/logger';
import { aiGroups } from '../photos/grouping-rules';
import { listStagedPhotos } from '../photos/staged-photo-store';
import { getRoom } from '../rooms/store';
import { TRAINING_ITEMS } from './curriculum-rules';
import { TRAINING_PHOTOS_BASE64 } from './fixture-rules';

/** Items a training recording becomes. */
const RECORDING_ITEMS = 3;

/** Saves the items (keyed by job: a repeat writes the same items) and marks the job complete; null when it moved on. */
async function completeWith(job: Job, drafts: ItemDraft[]): Promise<Job | null> {
  const room = await getRoom(job.room_id);
  await saveItemBatch(job, room?.name ?? null, `training-${derivedId(job.id, 'training')}`, 1, drafts);
  const done = await updateJob(job.id, ['job', 'billing'], {
    set: {
      status: 'complete',
      current_stage: 'complete',
      progress_pct: 100,
      items_found: drafts.length,
      billing_finalized_at: new Date().toISOString(),
    },
    expectStatus: [job.status],
  });
  if (done) {
    await new JobLog(job.id).info(`Training: ${drafts.length} item(s) made at once, without the AI; nothing charged`);
    // A terminal path like any other: the log is archived (a failed archive never fails the job).
    await archiveLog(job.id).catch((err) =>
      logger.error('job log archive failed', { job_id: job.id, error: String(err) }),
    );
  }
  return done;
}

const fixtureFields = (i: number) => {
  const fixture = TRAINING_ITEMS[i % TRAINING_ITEMS.length];
  return {
    name: fixture.name,
    quantity: 1,
    brand: fixture.brand,
    condition: fixture.condition,
    estimated_price: fixture.estimated_price,
    confidence: 0.9,
    evidence: null,
  };
};

/** Completes a training photo job with one fixture item per group, with the group's photos. */
export function processTrainingJob(job: Job): Promise<Job | null> {
  return listStagedPhotos(job.id).then((all) => {
    const photos = all.filter((p) => !p.deleted && !p.hidden_by_segments);
    const drafts: ItemDraft[] = aiGroups(photos).map((group, i) => ({
      ...fixtureFields(i),
      notes: 'Training item: made without the AI.',
      source_group_index: group,
      photos: photos
        .filter((p) => p.group_index === group)
        .map((p) => ({ filename: p.filename, key: p.normalized ? p.key : p.incoming_key })),
    }));
    return completeWith(job, drafts);
  });
}

/** Completes a training video or voice-note job at once with fixture items, each with a fixture photo. */
export async function completeTrainingRecording(job: Job): Promise<Job | null> {
  const prefix = blobKeys.jobPrefix(job.team_id, job.claim_id, job.id);
  const drafts: ItemDraft[] = [];
  for (let i = 0; i < RECORDING_ITEMS; i++) {
    // A pipeline picture (vid_ name): served from the bucket without a staged-photo row.
    const filename = `vid_training_${String(i + 1).padStart(4, '0')}.jpg`;
    const key = `${prefix}photos/${filename}`;
    await putJpeg(key, Buffer.from(TRAINING_PHOTOS_BASE64[i % TRAINING_PHOTOS_BASE64.length], 'base64'));
    drafts.push({
      ...fixtureFields(i + 3),
      notes: `Training item from the ${job.source_type === 'audio' ? 'voice note' : 'video'}: made without the AI.`,
      source_group_index: null,
      photos: [{ filename, key }],
    });
  }
  return completeWith(job, drafts);
}
