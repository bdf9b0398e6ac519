/**
 * Pipelines are declarations: an ordered list of stages, each with the
 * status its subject runs under and the progress range it covers. The engine
 * (engine.ts) runs them one SQS message at a time, for every run kind
 * (run-kind.ts): a job's pipelines are PipelineDefinitions; another kind
 * declares its pipelines as RunPipelines of its own context and record. How
 * to add one: docs/orchestrator.md.
 */
import type { Job } from '../jobs/job-record-rules';
import { type JobStatus, PREPARING_STATUSES, type SourceType } from '../jobs/job-rules';
import type { JobLog } from '../jobs/log-store';
import { logger } from '../observability/logger';

/** A run's own log (what its user reads), beside the service's log. */
export interface RunLog {
  info(message: string): Promise<void>;
  warn(message: string): Promise<void>;
  error(message: string): Promise<void>;
}

/** The run log of a kind that keeps none of its own (a send): its lines go to the service's log, with `context`. */
export function serviceRunLog(context: Record<string, unknown>): RunLog {
  return {
    info: async (message) => logger.info(message, context),
    warn: async (message) => logger.warn(message, context),
    error: async (message) => logger.error(message, context),
  };
}

/** What every step's context has, whatever the kind adds (a job's context adds the job). */
export interface RunContext {
  log: RunLog;
  /** Records liveness and, optionally, progress within the stage's range (0..1). */
  heartbeat(fraction?: number): Promise<void>;
}

/** A job pipeline's step context: the job, its log, a heartbeat. */
export interface StageContext extends RunContext {
  job: Job;
  log: JobLog;
}

/** What a stage asks the engine to do next; `set` is written with the engine's own fields in the same write. */
export type StageOutcome<R = Job> =
  | { kind: 'next'; set?: Partial<R> }
  /** Fan out: one unit message per element, at most `concurrency` in flight; the stage ends when all are done. */
  | { kind: 'fanout'; units: number; concurrency: number; set?: Partial<R> };

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
export type StageDefinition<C extends RunContext = StageContext, R = Job, S extends string = JobStatus> =
  | StepStage<C, R, S>
  | BranchStage<C, R, S>;

interface StageBase<S extends string> {
  /** Unique within the pipeline; stage messages, unit rows and stage_timings are keyed by it. */
  name: string;
  /** The subject's status while this stage runs (for a job, one of the processing statuses). */
  status: S;
  /** Progress percent at the start and at the end of the stage. */
  progress: [number, number];
}

/** The work of a stage, or of one branch of a stage: a run under a lease, optionally fanning out units. */
export interface Step<C extends RunContext = StageContext, R = Job> {
  /**
   * The work. Throwing fails the run (unless the stage allows `retries`):
   * with the message of a PipelineFailure, else "The <name> stage failed: …".
   */
  run(ctx: C): Promise<StageOutcome<R>>;
  /** Runs one fan-out unit; must be safe to run again for the same index (a redelivered message). */
  unit?(ctx: C, index: number): Promise<void>;
}

/** A stage that is one step. */
export interface StepStage<C extends RunContext = StageContext, R = Job, S extends string = JobStatus>
  extends StageBase<S>,
    Step<C, R> {
  branches?: never;
  /**
   * Further attempts of `run`, in the same invocation and under the same
   * lease after a pause, when it throws anything but a PipelineFailure (a
   * store or queue fault that passes): for a stage whose work is safe to run
   * again. Unset, a throw fails the run at once.
   */
  retries?: number;
}

/** One branch of a branch stage: a step with a name unique within its stage (lower case letters, digits, _). */
export interface BranchDefinition<C extends RunContext = StageContext, R = Job> extends Step<C, R> {
  name: string;
}

/**
 * A stage made of branches that run side by side, each a step of its own
 * (its own lease, its own fan-out). The stage moves on once, when every
 * branch is done.
 *
 * @example
 * ```ts
 * const extract: StageDefinition = {
 *   name: 'extract',
 *   status: 'extracting',
 *   progress: [0, 40],
 *   branches: [
 *     { name: 'frames', run: planFrameRanges, unit: extractFrameRange },
 *     { name: 'transcript', run: transcribe },
 *   ],
 *   // Extracting while frames are written; transcribing once only the transcript is left.
 *   statusWhile: (done) => (done.includes('frames') ? 'transcribing' : 'extracting'),
 * };
 * ```
 */
export interface BranchStage<C extends RunContext = StageContext, R = Job, S extends string = JobStatus>
  extends StageBase<S> {
  branches: BranchDefinition<C, R>[];
  /**
   * The job status while the branches run, given the names of those already
   * done: asked when the stage starts (none done) and after each branch that
   * leaves others running (the join leaves the status to the next stage).
   * Without it, `status` throughout.
   */
  statusWhile?(done: readonly string[]): S;
  run?: never;
  unit?: never;
}

export const isBranchStage = <C extends RunContext, R, S extends string>(
  stage: StageDefinition<C, R, S>,
): stage is BranchStage<C, R, S> => Array.isArray(stage.branches);

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
 * HTTP side in lib/orchestrator/pipeline-catalog.ts.
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
/** The stages, branch stages and steps of any kind's pipeline, as the engine runs them (each kind types its own). */
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type AnyStageDefinition = StageDefinition<any, any, string>;
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type AnyBranchStage = BranchStage<any, any, string>;
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type AnyStep = Step<any, any>;

/**
 * Any kind's pipeline, as the engine sees it: its stages, and how an
 * interrupted run's partial results are cleared before a restart. Its kind's
 * completion (run-kind.ts) reads whatever else the kind declares on it.
 */
// biome-ignore lint/suspicious/noExplicitAny: the engine runs every kind's pipelines; each kind types its own.
export interface RunPipeline<C extends RunContext = any, R = any, S extends string = string> {
  /** Unique in the deployment; stored on the subject (`pipeline`) and used to find the declaration again. */
  name: string;
  /** The run kind whose subjects it runs (run-kind.ts); jobs when absent. */
  kind?: string;
  stages: StageDefinition<C, R, S>[];
  /** Before a restart after an interruption: clear partial results of the interrupted run. */
  clearPartialResults?(record: R): Promise<void>;
}

export interface PipelineDefinition extends RunPipeline<StageContext, Job, JobStatus> {
  kind?: 'job';
  sourceType: SourceType;
  /**
   * A pass over a job that has already finished (read the rest): it starts
   * from complete and ends there again. Its credits are added to the job's
   * billed credits instead of finalizing them, no chat message is posted, and
   * a failed pass leaves the job complete with its items (and undoes only the
   * pass's own charge, pass_charge_round). Never what pipelineRefForSource (lib/orchestrator/pipeline-catalog.ts) picks.
   */
  followUp?: boolean;
  /**
   * A pipeline that prepares a job instead of finishing it (the PDF import):
   * every stage runs in a preparing status (importing_pdf), the run starts
   * from that status, and whether it succeeds or fails it leaves the job in
   * the status after it (awaiting_grouping) with what it made. Nothing is
   * billed, no chat message is posted and the log is not archived: the job's
   * life goes on. A failure is recorded as the job's `preparation_error`.
   * `complete` is asked for the items (photos) it made; its credits must be 0.
   */
  preparation?: boolean;
  /**
   * Preparing pipelines: what the watchdog does with a job waiting in the
   * first stage's status whose run never started, once its upload links have
   * expired (nothing more can arrive): settle what did arrive, then start the
   * run or end the wait. Without it the wait ends with nothing read.
   */
  uploadsExpired?(job: Job): Promise<void>;
  /** After the last stage: the totals billing is finalized with. Throwing fails the job. */
  complete(ctx: StageContext): Promise<CompletionSummary>;
}

/**
 * What starting a job on a pipeline needs to know. HTTP handlers start jobs
 * from these (lib/orchestrator/pipeline-catalog.ts) without loading any stage code.
 */
export interface PipelineRef {
  name: string;
  sourceType: SourceType;
  firstStage: string;
  /** The first stage's status: where a preparing run starts (a processing run starts in pending). */
  firstStatus: JobStatus;
  followUp: boolean;
  preparation: boolean;
}

export const refOf = (p: PipelineDefinition | PipelineRef): PipelineRef =>
  'stages' in p
    ? {
        name: p.name,
        sourceType: p.sourceType,
        firstStage: p.stages[0].name,
        firstStatus: p.stages[0].status,
        followUp: Boolean(p.followUp),
        preparation: Boolean(p.preparation),
      }
    : p;

const registry = new Map<string, RunPipeline>();

const isJobPipeline = (pipeline: RunPipeline): pipeline is PipelineDefinition => (pipeline.kind ?? 'job') === 'job';

export function registerPipeline(pipeline: RunPipeline): void {
  if (pipeline.stages.length === 0) throw new Error(`pipeline ${pipeline.name} has no stages`);
  const names = new Set(pipeline.stages.map((s) => s.name));
  if (
    isJobPipeline(pipeline) &&
    pipeline.preparation &&
    pipeline.stages.some((s) => !PREPARING_STATUSES.includes(s.status))
  )
    throw new Error(`pipeline ${pipeline.name} prepares jobs: every stage must run in a preparing status`);
  if (names.size !== pipeline.stages.length) throw new Error(`pipeline ${pipeline.name} repeats a stage name`);
  for (const stage of pipeline.stages) {
    // Unit rows of a branch are keyed '<stage>/<branch>': neither name may contain the separators.
    if (/[#/]/.test(stage.name)) throw new Error(`pipeline ${pipeline.name}: stage name ${stage.name} has # or /`);
    if (!isBranchStage(stage)) continue;
    const branchNames = stage.branches.map((b) => b.name);
    if (branchNames.length === 0 || branchNames.some((n) => !/^[a-z][a-z0-9_]*$/.test(n)))
      throw new Error(
        `pipeline ${pipeline.name}: stage ${stage.name} needs branches named in lower case (a-z, 0-9, _)`,
      );
    if (new Set(branchNames).size !== branchNames.length)
      throw new Error(`pipeline ${pipeline.name}: stage ${stage.name} repeats a branch name`);
  }
  registry.set(pipeline.name, pipeline);
}

/** Any kind's pipeline named `name`. */
export function getPipeline(name: string): RunPipeline | undefined {
  return registry.get(name);
}

/** The preparing pipeline whose runs start in `status` (the job has no run yet, so no pipeline name). */
export function preparingPipelineFor(status: JobStatus): PipelineDefinition | undefined {
  return [...registry.values()].filter(isJobPipeline).find((p) => p.preparation && p.stages[0].status === status);
}
