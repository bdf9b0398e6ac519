/**
 * What the engine runs. A run belongs to a subject of some kind (a job
 * today; any record that carries the engine's fields) and the engine reads
 * and writes only those fields, through the kind's store: stages, leases,
 * fan-out counters, branches, heartbeats. Everything a kind decides for
 * itself — how a run ends (billing, logs, what hears of it), what a restart
 * resets, what the watchdog does with a subject waiting for a run — is a
 * hook of its kind. Messages carry the kind, so one queue, one lease
 * mechanism and one watchdog serve every kind.
 */
import type { RowUpdate } from '../db/update';
import type { RunContext, RunLog, RunPipeline } from './pipeline';
import type { RunState } from '../db/run-state';

/** A run's subject as the engine sees it: the engine's fields (lib/db/run-state.ts) and what every subject has. */
export interface RunRecord extends RunState {
  id: string;
  status: string;
  current_stage: string;
  progress_pct: number;
  created_at: string;
  updated_at: string;
}

/** One conditional update of a subject's row (the kind's store adds its own bookkeeping, e.g. the open-runs index). */
export type RunUpdate = RowUpdate;

/** The UpdateItem input of a RunUpdate, usable as one item of a transaction. */
export interface UpdateInput {
  TableName: string;
  Key: Record<string, unknown>;
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** What the watchdog did with one run (the sweep report counts them). */
export type WatchdogAction = 'requeued' | 'recovered' | 'failed';

/**
 * A kind of subject the engine runs. Its methods are the engine's only way
 * to the subject's row and to what the kind decides.
 */
export interface RunKind<R extends RunRecord = RunRecord, C extends RunContext = RunContext> {
  /** Carried by every message of its runs. */
  name: string;
  /** Unit rows of a run are kept under this partition (one per subject). */
  unitPartition(id: string): string;
  get(id: string): Promise<R | null>;
  /** The subject after the update, or null when its condition did not hold. */
  update(id: string, update: RunUpdate, now?: Date): Promise<R | null>;
  updateInput(id: string, update: RunUpdate, now?: Date): UpdateInput;
  log(id: string): RunLog;
  /** The context a step of this kind's pipelines receives: the record, its log and the engine's heartbeat. */
  context(record: R, heartbeat: RunContext['heartbeat']): C;
  /** The statuses a run is under way in (stages run, the watchdog watches). */
  runningStatuses: readonly string[];
  /** Ids of the subjects whose run is under way (the open-runs index), one page at a time. */
  activeIds(): AsyncGenerator<string>;
  /** Ends the run in failure with a message for its user; null when it was not under way (or another run owns it). */
  fail(record: R, message: string): Promise<R | null>;
  /** After the last stage's closing write: the kind's completion (its pipeline's `complete`, billing, events). */
  complete(record: R, pipeline: RunPipeline): Promise<void>;
  /**
   * A run whose worker died: where a restart begins (`from`: a stage name;
   * the first stage when absent) and the fields it sets besides the engine's
   * own (status, what the interrupted run counted), or null when this run is
   * not restarted but failed (a stage only its request could run).
   */
  restartFields(record: R, pipeline: RunPipeline): { from?: string; set: Record<string, unknown> } | null;
  /**
   * The watchdog, for a subject listed as under way that has no run yet: what
   * it did when the subject is waiting for something of its kind (a job for
   * its uploads), null when it is not (the age limits then apply as to a run).
   */
  inspectWaiting?(record: R, now: Date): Promise<{ action: WatchdogAction | null } | null>;
  /** The longest a run may take, in seconds, before the watchdog fails it. */
  timeoutSeconds(): number;
  /** What the watchdog and the admin tell the user when they end a run. */
  messages: {
    /** An interruption that ends the run: the second, or one the kind does not restart after. */
    interrupted: string;
    stuckForADay: string;
    hung: string;
    timedOut(minutes: number): string;
    /** An administrator stopped the run. */
    dismissed: string;
  };
}
