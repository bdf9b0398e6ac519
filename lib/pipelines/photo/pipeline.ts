/**
 * The photo pipeline's first run (spec: Photo pipeline (live path); Output
 * budget and truncation; Processing rules):
 *
 *   analyze (analyzing):         drop deleted photos, fix the groups and prompts, one unit per AI group
 *   synthesize (synthesizing):   save every item in group order, auto-approve
 *
 * The read-the-rest pass over a finished job is its own pipeline
 * (../photo-read-the-rest); both are built from the steps in stages.ts.
 */
import { deleteObject } from '../../blob/objects';
import { deleteJobItems } from '../../inventory/item-store';
import type { CompletionSummary, PipelineDefinition, StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { deleteStagedPhotos, listStagedPhotos } from '../../photos/staged-photo-store';
import { planGroups } from './plan-rules';
import { analyzeGroup, photoCredits, promptsFor, startAnalysis, synthesize } from './stages';

const ALL_AI_FAILED =
  'Every AI request of this job failed, so no items could be made. Nothing was charged; please process it again.';

/** First stage of a run: soft-deleted photos go (spec: Photo pipeline 3), the groups and prompts are fixed. */
async function prepareFirstRun(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const photos = await listStagedPhotos(job.id);
  // A deleted photo whose segments remain is kept hidden: its crops are cut from it.
  const segmentSources = new Set(photos.filter((p) => p.is_segment && !p.deleted).map((p) => p.segment_of));
  const removed = photos.filter((p) => p.deleted && (p.is_segment || !segmentSources.has(p.index)));
  if (removed.length) {
    // A kept original (a homeowner's file) is the link's, not the job's.
    await Promise.all(
      removed.flatMap((p) => [deleteObject(p.key), ...(p.original_kept ? [] : [deleteObject(p.incoming_key)])]),
    );
    await deleteStagedPhotos(
      job.id,
      removed.map((p) => p.index),
    );
    await log.info(`Removed ${removed.length} deleted photo(s)`);
  }
  const groups = planGroups(photos.filter((p) => !removed.includes(p)));
  return startAnalysis(ctx, { run_id: job.run_id as string, pass: 1, groups, prompts: await promptsFor(job) });
}

export const photoPipeline: PipelineDefinition = {
  name: 'photo',
  sourceType: 'photo',
  stages: [
    // The run fixes the groups, then fans out one AI call per group.
    { name: 'analyze', status: 'analyzing', progress: [5, 85], run: prepareFirstRun, unit: analyzeGroup },
    {
      name: 'synthesize',
      status: 'synthesizing',
      progress: [85, 100],
      async run(ctx) {
        const s = await synthesize(ctx, ALL_AI_FAILED);
        return {
          kind: 'next',
          set: {
            photo_request_count: s.answered.size,
            photo_truncated_groups: s.truncated,
            items_found: s.saved.length,
            photo_pass: 1,
          },
        };
      },
    },
  ],
  // Billed: one credit per AI request that was answered (a failed request is never billed).
  async complete({ job }): Promise<CompletionSummary> {
    return { items_found: job.items_found, ...(await photoCredits(job, job.photo_request_count)) };
  },
  // A restarted run saves its items again: the interrupted run's first-pass items go first.
  async clearPartialResults(job) {
    await deleteJobItems(job.id, 1);
  },
};
