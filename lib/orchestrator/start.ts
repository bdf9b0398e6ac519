/**
 * Starting a job's run: the one write that opens a run (status, a fresh
 * run_id, the first stage queued) and the first stage's message. Apart from
 * the engine (engine.ts) so that what only starts jobs (an upload's end, an
 * import, a capture webhook) does not bring the engine's terminal paths and
 * what hears a run's end into its function.
 */
import { randomUUID } from 'node:crypto';
import { updateJob } from '../jobs/job-store';
import type { Job, SliceFields } from '../jobs/job-record-rules';
import { PREPARING_STATUSES, STARTABLE_STATUSES } from '../jobs/job-rules';
import { JobLog } from '../jobs/log-store';
import { newRunTraceparent } from '../observability/job-trace';
import { refOf, type PipelineDefinition, type PipelineRef } from './pipeline';
import { queuedStage, sendStage } from './transitions';

const NO_RUN_YET = { condition: 'attribute_type(run_id, :null_type)', values: { ':null_type': 'NULL' } };

/**
 * Starts (or restarts) a job on a pipeline: status pending, a fresh run, the
 * first stage queued. Returns null when the job is not in a startable state.
 * A preparing pipeline starts from its preparing status and stays in it
 * (the guard is then what keeps a second start out).
 */
export async function startJob(
  job: Job,
  definition: PipelineDefinition | PipelineRef,
  extra: Partial<SliceFields<'billing' | 'photo'>> = {},
  /**
   * Further conditions the start write must meet (no photo edit under way, the charged round still open); null
   * result when one does not. Their value placeholders must differ.
   */
  guards: readonly { condition: string; values: Record<string, unknown> }[] = [],
): Promise<Job | null> {
  const pipeline = refOf(definition);
  const now = new Date().toISOString();
  // A preparing run starts once per job (a restart after an interruption is recovery's, not a start).
  const conditions = [...guards, ...(pipeline.preparation ? [NO_RUN_YET] : [])];
  const started = await updateJob(job.id, ['job', 'run', 'billing', 'photo'], {
    // A follow-up pass starts from a complete job and keeps its earlier stage timings.
    expectStatus: pipeline.followUp ? ['complete'] : pipeline.preparation ? PREPARING_STATUSES : STARTABLE_STATUSES,
    ...(conditions.length > 0
      ? {
          condition:
            conditions.length === 1 ? conditions[0].condition : conditions.map((c) => `(${c.condition})`).join(' AND '),
          values: Object.assign({}, ...conditions.map((c) => c.values)),
        }
      : {}),
    set: {
      ...extra,
      status: pipeline.preparation ? pipeline.firstStatus : 'pending',
      current_stage: 'Queued',
      progress_pct: 0,
      error_message: null,
      pipeline: pipeline.name,
      follow_up_pass: pipeline.followUp,
      run_id: randomUUID(),
      // The run's trace: its messages carry it and its end records the root span (lib/observability/job-trace.ts).
      trace_parent: newRunTraceparent(),
      ...queuedStage(pipeline.firstStage),
      ...(pipeline.followUp ? {} : { stage_timings: {} }),
      started_at: now,
      finished_at: null,
      heartbeat_at: now,
    },
  });
  if (!started) return null;
  await new JobLog(job.id).info(`Queued for processing (${pipeline.name})`);
  await sendStage('job', started);
  return started;
}
