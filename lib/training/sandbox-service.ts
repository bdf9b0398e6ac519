/**
 * How a training claim's jobs are processed (spec: Training claims change
 * behavior): at once, with realistic fixture items, no pipeline, no AI and
 * no credits. Each photo group becomes one item with the group's photos.
 */
import { derivedId } from '../inventory/item-rules';
import { type ItemDraft, saveItemBatch } from '../inventory/item-store';
import { type Job, updateJob } from '../jobs/job-store';
import { JobLog } from '../jobs/log-store';
import { aiGroups } from '../photos/grouping-rules';
import { listStagedPhotos } from '../photos/staged-photo-store';
import { getRoom } from '../rooms/store';
import { TRAINING_ITEMS } from './curriculum-rules';

/** Completes a training photo job with one fixture item per group; null when the job moved on meanwhile. */
export async function processTrainingJob(job: Job): Promise<Job | null> {
  const photos = (await listStagedPhotos(job.id)).filter((p) => !p.deleted && !p.hidden_by_segments);
  const groups = aiGroups(photos);
  const drafts: ItemDraft[] = groups.map((group, i) => {
    const fixture = TRAINING_ITEMS[i % TRAINING_ITEMS.length];
    return {
      name: fixture.name,
      quantity: 1,
      brand: fixture.brand,
      condition: fixture.condition,
      estimated_price: fixture.estimated_price,
      notes: 'Training item: made without the AI.',
      confidence: 0.9,
      evidence: null,
      source_group_index: group,
      photos: photos
        .filter((p) => p.group_index === group)
        .map((p) => ({ filename: p.filename, key: p.normalized ? p.key : p.incoming_key })),
    };
  });
  const room = await getRoom(job.room_id);
  // Keyed by job: a repeated request writes the same items with the same numbers.
  await saveItemBatch(job, room?.name ?? null, `training-${derivedId(job.id, 'training')}`, 1, drafts);
  const done = await updateJob(job.id, {
    set: {
      status: 'complete',
      current_stage: 'complete',
      progress_pct: 100,
      items_found: drafts.length,
      billing_finalized_at: new Date().toISOString(),
    },
    expectStatus: [job.status],
  });
  if (done)
    await new JobLog(job.id).info(`Training: ${drafts.length} item(s) made at once, without the AI; nothing charged`);
  return done;
}
