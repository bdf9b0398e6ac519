/**
 * Pipelines are declarations: an ordered list of stages, each with the job
 * status it runs under and the progress range it covers. The engine
 * (engine.ts) runs them one SQS message at a time.
 */
import type { Job, JobStatus, SourceType } from '../jobs/job';
import type { JobLog } from '../jobs/logs';

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

export interface StageDefinition {
  name: string;
  status: JobStatus;
  /** Progress percent at the start and at the end of the stage. */
  progress: [number, number];
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

export interface PipelineDefinition {
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

export function unregisterPipeline(name: string): void {
  registry.delete(name);
}

export function getPipeline(name: string): PipelineDefinition | undefined {
  return registry.get(name);
}

/** The pipeline that processes a job of this source type, when this deployment has one. */
export function pipelineForSource(sourceType: SourceType): PipelineDefinition | undefined {
  return [...registry.values()].find((p) => p.sourceType === sourceType && !p.followUp);
}
