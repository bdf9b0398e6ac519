/**
 * Pipelines are declarations: an ordered list of stages, each with the job
 * status it runs under and the progress range it covers. The engine
 * (engine.ts) runs them one SQS message at a time. How to add one:
 * lib/pipelines/README.md.
 */
import type { Job } from '../jobs/job-store';
import type { JobStatus, SourceType } from '../jobs/job-rules';
import type { JobLog } from '../jobs/log-store';

export interface StageContext {
  job: Job;
  log: JobLog;
  /** Records liveness and, optionally, progress within the stage's range (0..1). */
  heartbeat(fraction?: number): Promise<void>;
}

/** What a stage asks the engine to do next. */
export type StageOutcome =
  | { kind: 'next'; set?: Partial<Job> }
  /** Fan out: one unit message per element, at most `concurrency` in flight; the stage ends when all are done. */
  | { kind: 'fanout'; units: number; concurrency: number; set?: Partial<Job> };

/**
 * One step of a pipeline. `run` runs once per run of the job, under a lease;
 * returning `fanout` makes the engine call `unit` once per index, at most
 * `concurrency` at a time, and the stage ends when every unit is done (or
 * given up on after its retries).
 *
 * @example
 * ```ts
 * // Cuts the job's text into chunks and counts each chunk in its own unit, two at a time.
 * const split: StageDefinition = {
 *   name: 'split',
 *   status: 'extracting',
 *   progress: [0, 80],
 *   async run(ctx) {
 *     const chunks = chunkText((await getSource(ctx.job.id)) ?? '', 5);
 *     await putChunks(ctx.job, chunks); // keyed by ctx.job.run_id: a restarted run plans afresh
 *     return { kind: 'fanout', units: chunks.length, concurrency: 2 };
 *   },
 *   async unit(ctx, index) {
 *     const chunks = await getChunks(ctx.job);
 *     await putCount(ctx.job, index, countWords(chunks[index])); // written once: safe to run again
 *   },
 * };
 * ```
 */
export interface StageDefinition {
  /** Unique within the pipeline; stage messages, unit rows and stage_timings are keyed by it. */
  name: string;
  /** The job status while this stage runs (one of the processing statuses). */
  status: JobStatus;
  /** Progress percent at the start and at the end of the stage. */
  progress: [number, number];
  /**
   * The stage's work. Throwing fails the job (no retry): with the message of a
   * PipelineFailure, else "The <name> stage failed: …".
   */
  run(ctx: StageContext): Promise<StageOutcome>;
  /** Runs one fan-out unit; must be safe to run again for the same index (a redelivered message). */
  unit?(ctx: StageContext, index: number): Promise<void>;
}

/** What the pipeline tells the engine when the last stage succeeded. */
export interface CompletionSummary {
  items_found: number;
  /** Whole credits the finished job costs (finalized once). */
  credits: number;
  blocks: number;
  minutes: number;
}

/**
 * A pipeline: its stages in order, what the finished job is billed, and how
 * an interrupted run's partial results are cleared before the restart.
 * Registered for the workers in lib/pipelines/index.ts and named for the
 * HTTP side in lib/pipelines/catalog.ts.
 *
 * @example
 * ```ts
 * export const wordCountPipeline: PipelineDefinition = {
 *   name: 'example-word-count',
 *   sourceType: 'audio',
 *   stages: [
 *     { name: 'split', status: 'extracting', progress: [0, 80], run: split, unit: countChunk },
 *     { name: 'total', status: 'synthesizing', progress: [80, 100], run: total },
 *   ],
 *   // One credit per chunk counted; what was spent up front beyond that is refunded.
 *   async complete({ job }) {
 *     const counted = (await listCounts(job)).length;
 *     return { items_found: job.items_found, credits: counted, blocks: 0, minutes: 0 };
 *   },
 *   // Results not keyed by run (here the total) go before a restart.
 *   async clearPartialResults(job) {
 *     await deleteTotal(job.id);
 *   },
 * };
 *
 * registerPipeline(wordCountPipeline);
 * ```
 */
export interface PipelineDefinition {
  /** Unique in the deployment; stored on the job (`pipeline`) and used to find the declaration again. */
  name: string;
  sourceType: SourceType;
  /**
   * A pass over a job that has already finished (read the rest): it starts
   * from complete and ends there again. Its credits are added to the job's
   * billed credits instead of finalizing them, no chat message is posted, and
   * a failed pass leaves the job complete with its items (and undoes only the
   * pass's own charge, pass_charge_round). Never what pipelineForSource picks.
   */
  followUp?: boolean;
  stages: StageDefinition[];
  /** After the last stage: the totals billing is finalized with. Throwing fails the job. */
  complete(ctx: StageContext): Promise<CompletionSummary>;
  /** Before a restart after an interruption: clear partial results (e.g. items) of the interrupted run. */
  clearPartialResults?(job: Job): Promise<void>;
}

/**
 * What starting a job on a pipeline needs to know. HTTP handlers start jobs
 * from these (lib/pipelines/catalog.ts) without loading any stage code.
 */
export interface PipelineRef {
  name: string;
  sourceType: SourceType;
  firstStage: string;
  followUp: boolean;
}

export const refOf = (p: PipelineDefinition | PipelineRef): PipelineRef =>
  'stages' in p
    ? { name: p.name, sourceType: p.sourceType, firstStage: p.stages[0].name, followUp: Boolean(p.followUp) }
    : p;

const registry = new Map<string, PipelineDefinition>();

export function registerPipeline(pipeline: PipelineDefinition): void {
  if (pipeline.stages.length === 0) throw new Error(`pipeline ${pipeline.name} has no stages`);
  const names = new Set(pipeline.stages.map((s) => s.name));
  if (names.size !== pipeline.stages.length) throw new Error(`pipeline ${pipeline.name} repeats a stage name`);
  registry.set(pipeline.name, pipeline);
}

export function getPipeline(name: string): PipelineDefinition | undefined {
  return registry.get(name);
}

/** The pipeline that processes a job of this source type, when this deployment has one. */
export function pipelineForSource(sourceType: SourceType): PipelineDefinition | undefined {
  return [...registry.values()].find((p) => p.sourceType === sourceType && !p.followUp);
}
