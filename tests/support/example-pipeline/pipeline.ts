/**
 * A minimal pipeline, walked through by the orchestrator guide
 * (docs/orchestrator.md) and run by the orchestrator suite: it counts the
 * words of a text in chunks.
 *
 *   split (extracting):   cut the text into chunks, one unit per chunk
 *   total (synthesizing): add the counts up and save the total
 */
import type {
  CompletionSummary,
  PipelineDefinition,
  StageContext,
  StageOutcome,
} from '../../../lib/orchestrator/pipeline';
import { PipelineFailure } from '../../../lib/orchestrator/terminal';
import { chunkText, countWords } from './word-count-rules';
import { deleteTotal, getChunks, getSource, listCounts, putChunks, putCount, putTotal } from './word-count-store';

const WORDS_PER_CHUNK = 5;
export const NOTHING_TO_COUNT = 'The text is empty, so there is nothing to count. Nothing was charged.';

async function split(ctx: StageContext): Promise<StageOutcome> {
  const text = await getSource(ctx.job.id);
  // A PipelineFailure's message is what the user sees; the job ends in error and its charge is refunded.
  if (!text?.trim()) throw new PipelineFailure(NOTHING_TO_COUNT);
  const chunks = chunkText(text, WORDS_PER_CHUNK);
  await putChunks(ctx.job, chunks);
  await ctx.log.info(`${chunks.length} chunk(s) to count`);
  return { kind: 'fanout', units: chunks.length, concurrency: 2 };
}

/** One unit: may run again for the same index (a redelivered message), so it writes its count once. */
async function countChunk(ctx: StageContext, index: number): Promise<void> {
  const chunks = await getChunks(ctx.job);
  await putCount(ctx.job, index, countWords(chunks[index]));
}

async function total(ctx: StageContext): Promise<StageOutcome> {
  const words = (await listCounts(ctx.job)).reduce((sum, n) => sum + n, 0);
  await putTotal(ctx.job.id, words);
  return { kind: 'next', set: { items_found: words } };
}

export const wordCountPipeline: PipelineDefinition = {
  name: 'example-word-count',
  sourceType: 'audio',
  stages: [
    { name: 'split', status: 'extracting', progress: [0, 80], run: split, unit: countChunk },
    { name: 'total', status: 'synthesizing', progress: [80, 100], run: total },
  ],
  // One credit per chunk counted: a chunk whose unit gave up is not billed.
  async complete({ job }): Promise<CompletionSummary> {
    const counted = (await listCounts(job)).length;
    return { items_found: job.items_found, credits: counted, blocks: 0, minutes: 0 };
  },
  // The total is the one record not keyed by run: an interrupted run's total goes before the restart.
  async clearPartialResults(job) {
    await deleteTotal(job.id);
  },
};
