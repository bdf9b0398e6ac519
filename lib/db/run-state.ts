/**
 * The engine's fields on a run's subject row (a job's, a send's): the run,
 * its stage and lease, the fan-out counters, the branches, the heartbeat and
 * the timings. Types only, imported by the engine (lib/orchestrator/run-kind.ts)
 * and by the stores whose rows carry a run (lib/jobs/job-record-rules.ts): here
 * in the storage layer, below both, as the shape of stored rows.
 */

/** Where the current stage is; 'branches' while a stage's branches run side by side. */
export type StageState = 'queued' | 'running' | 'fanout' | 'branches' | 'done';

/** One branch of a stage whose branches run side by side (branches.ts). */
export interface BranchRun {
  state: 'queued' | 'running' | 'fanout' | 'done';
  runner?: string | null;
  lease_until?: string | null;
  fanout_total?: number;
  fanout_next?: number;
  fanout_done?: number;
  /** Progress within the branch (0..1), from its heartbeats. */
  fraction?: number;
}

interface StageTiming {
  started_at: string;
  finished_at: string | null;
  seconds: number | null;
}

export interface RunState {
  pipeline: string | null;
  run_id: string | null;
  /** The run's W3C traceparent while tracing is on: its queue messages carry it and its end records the root span. */
  trace_parent?: string | null;
  stage_name: string | null;
  stage_state: StageState | null;
  stage_runner: string | null;
  stage_lease_until: string | null;
  fanout_total: number;
  fanout_next: number;
  fanout_done: number;
  /** The fanning stage's progress range; progress moves across it as units finish. */
  fanout_progress?: [number, number] | null;
  /** While a stage's branches run side by side: each branch's own state, by branch name. */
  branches?: Record<string, BranchRun> | null;
  /** Branches of the current stage that are done (the join: the stage moves on when all are). */
  branches_done?: number;
  heartbeat_at: string | null;
  recovery_attempts: number;
  /** Per-stage timings. */
  stage_timings: Record<string, StageTiming>;
  started_at: string | null;
}
