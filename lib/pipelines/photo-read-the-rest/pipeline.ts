/**
 * Read the rest: a follow-up pass over a complete photo job (spec: Output
 * budget and truncation). Only groups recorded as cut short are re-read, with
 * the names already found; the new items are saved after the job's items.
 *
 *   reread (analyzing):               plan the groups with a pass left, one unit per group
 *   reread_synthesize (synthesizing): save the new items, update the cut-short list
 *
 * A follow-up pipeline starts from complete and ends there again; a failed
 * pass leaves the job complete with its items (lib/orchestrator/terminal.ts).
 * Started by service.ts, which charges the pass up front.
 */
import { deleteJobItems } from '../../inventory/item-store';
import type { CompletionSummary, PipelineDefinition, StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { listStagedPhotos } from '../../photos/staged-photo-store';
import { planGroups } from '../photo/plan-rules';
import { analyzeGroup, photoCredits, promptsFor, startAnalysis, synthesize } from '../photo/stages';
import { groupsWithPassLeft, rereadGroups, truncatedAfterPass } from './pass-rules';

const PASS_ALL_FAILED =
  'Every AI request of this read-the-rest pass failed. Nothing was charged for it; please try again.';

async function prepareReread(ctx: StageContext): Promise<StageOutcome> {
  const { job } = ctx;
  const groups = rereadGroups(planGroups(await listStagedPhotos(job.id)), groupsWithPassLeft(job));
  const pass = (job.photo_pass ?? 1) + 1;
  return startAnalysis(ctx, { run_id: job.run_id as string, pass, groups, prompts: await promptsFor(job) });
}

export const readTheRestPipeline: PipelineDefinition = {
  name: 'photo-read-the-rest',
  sourceType: 'photo',
  followUp: true,
  stages: [
    { name: 'reread', status: 'analyzing', progress: [5, 85], run: prepareReread, unit: analyzeGroup },
    {
      name: 'reread_synthesize',
      status: 'synthesizing',
      progress: [85, 100],
      async run(ctx) {
        const s = await synthesize(ctx, PASS_ALL_FAILED);
        return {
          kind: 'next',
          set: {
            photo_request_count: (ctx.job.photo_request_count ?? 0) + s.answered.size,
            pass_request_count: s.answered.size,
            photo_truncated_groups: truncatedAfterPass(ctx.job.photo_truncated_groups ?? [], s.answered, s.truncated),
            items_found: (ctx.job.items_found ?? 0) + s.saved.length,
            photo_pass: s.pass,
          },
        };
      },
    },
  ],
  // Billed: the pass's own answered requests, added to what the job was billed before.
  async complete({ job }): Promise<CompletionSummary> {
    return { items_found: job.items_found, ...(await photoCredits(job, job.pass_request_count ?? 0)) };
  },
  // Only this pass's items go; the items of earlier passes stand.
  async clearPartialResults(job) {
    await deleteJobItems(job.id, (job.photo_pass ?? 1) + 1);
  },
};
