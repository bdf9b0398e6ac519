/**
 * Jobs as a run kind (run-kind.ts): the engine's fields live on the job's
 * row (lib/jobs/job-store.ts keeps its open-runs index, `activepk`, in step
 * with the status), a run ends through terminal.ts (billing settled in the
 * ending write, the log archived, the run's end published), an interrupted
 * run restarts once from pending (a preparing run from its preparing status)
 * with what it counted cleared, and the watchdog settles a job still waiting
 * for its uploads when their links expire.
 */
import { settings } from '../config';
import { jobIndexes } from '../jobs/keys';
import { indexRows } from '../db/query';
import { getJob, jobUpdateInput, updateJob, type JobUpdate } from '../jobs/job-store';
import type { Job, JobSlice } from '../jobs/job-record-rules';
import { PREPARING_STATUSES, RUNNING_STATUSES } from '../jobs/job-rules';
import { JobLog } from '../jobs/log-store';
import { preparingPipelineFor, type PipelineDefinition, type StageContext } from './pipeline';
import type { RunKind, RunUpdate, WatchdogAction } from './run-kind';
import { completeJob, failJob } from './terminal';

const NOTHING_CONFIRMED =
  'No contents list was confirmed for this upload before its upload links expired; the photos that arrived are ready for grouping.';
/** How long after its upload links expire a preparing job that never started is left alone. */
const UNCONFIRMED_GRACE_SECONDS = 600;

/**
 * The slices the engine writes: its own run state, the job's status and progress, and what a pipeline's stages
 * record on the job (their outcome's `set`). Never billing (terminal.ts settles it with the run's end).
 */
const ENGINE_SLICES = ['job', 'run', 'recording', 'photo', 'contents'] as const satisfies readonly JobSlice[];
type EngineSlice = (typeof ENGINE_SLICES)[number];
const asJobUpdate = (update: RunUpdate) => update as JobUpdate<EngineSlice>;

export const jobRunKind: RunKind<Job, StageContext> = {
  name: 'job',
  unitPartition: (id) => `JOBUNIT#${id}`,
  get: (id) => getJob(id),
  update: (id, update, now) => updateJob(id, ENGINE_SLICES, asJobUpdate(update), now),
  updateInput: (id, update, now) => jobUpdateInput(id, ENGINE_SLICES, asJobUpdate(update), now),
  log: (id) => new JobLog(id),
  context: (job, heartbeat) => ({ job, log: new JobLog(job.id), heartbeat }),
  runningStatuses: RUNNING_STATUSES,
  async *activeIds() {
    // The index is sparse (processing jobs only).
    for await (const row of indexRows(jobIndexes.activeJobs())) yield String(row.pk).slice('JOB#'.length);
  },
  fail: (job, message) => failJob(job, message),
  complete: (job, pipeline) => completeJob(job, pipeline as PipelineDefinition),
  restartFields: (_job, pipeline) => ({
    set: {
      // A preparing run restarts in its preparing status (it never passes through pending).
      status: (pipeline as PipelineDefinition).preparation ? pipeline.stages[0].status : 'pending',
      items_found: 0,
    },
  }),
  inspectWaiting: async (job, now) =>
    PREPARING_STATUSES.includes(job.status) ? { action: await inspectUnstartedPreparation(job, now) } : null,
  timeoutSeconds: () => settings().JOB_TIMEOUT_S,
  messages: {
    interrupted: 'Processing was interrupted twice. Nothing was charged; please process the job again.',
    stuckForADay: 'Processing stopped: the job was stuck for more than 24 hours. Nothing was charged.',
    hung: 'Processing stopped: the job stopped making progress. Nothing was charged; please process it again.',
    timedOut: (minutes) =>
      `Processing stopped: the job ran longer than ${minutes} minutes. Nothing was charged; please process it again.`,
    dismissed: 'Stopped by an administrator. Nothing was charged; please process the job again.',
  },
};

/** A job waiting in a preparing status whose files were never confirmed: once their upload links expire, nothing more can arrive. */
async function inspectUnstartedPreparation(job: Job, now: Date): Promise<WatchdogAction | null> {
  const waitedMs = now.getTime() - Date.parse(job.created_at);
  if (waitedMs <= (settings().PRESIGNED_URL_TTL_SECONDS + UNCONFIRMED_GRACE_SECONDS) * 1000) return null;
  const pipeline = preparingPipelineFor(job.status);
  if (!pipeline?.uploadsExpired) return (await failJob(job, NOTHING_CONFIRMED)) ? 'failed' : null;
  await new JobLog(job.id).warn('Watchdog: upload links expired before every file was confirmed; settling them');
  await pipeline.uploadsExpired(job);
  const after = await getJob(job.id);
  if (after?.run_id) return 'recovered';
  return after && PREPARING_STATUSES.includes(after.status) ? null : 'failed';
}
