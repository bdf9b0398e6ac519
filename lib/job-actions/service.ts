/**
 * Job use cases behind /api/jobs (spec: Jobs; States and transitions):
 * listing, quoting, processing (with the up-front charge and its 402),
 * cancelling a not-yet-started job whose billing is closed, logs and metrics.
 */
import type { Identity } from '../auth/identity-rules';
import { recordActivity } from '../activity/service';
import { getClaim } from '../claims/store';
import { processTrainingJob } from '../training/sandbox-service';
import { jobCharge, type JobCharge } from '../billing/credit-rules';
import { chargeJobUpFront, loadJobPayer, refundJob, startChargedRun } from '../billing/charge-service';
import { billingClosed } from '../billing/charge-store';
import { cancelBlock } from '../billing/settlement-rules';
import { getTeamCreditsBalance } from '../billing/summary-service';
import { deletePrefix } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { settings } from '../config';
import { loadChargeExemptions } from '../billing/exemption-service';
import { ConflictError, UnavailableError } from '../errors';
import { faultPoint } from '../faults/fault-points';
import { startJob } from '../orchestrator/engine';
import { pipelineRefForSource } from '../orchestrator/pipeline-catalog';
import { countPhotoAiRequests } from '../photos/photo-service';
import { photoWriteLocked, photoWriteLockFree } from '../photos/photo-write-store';
import { roomItemCountByJob } from '../rooms/counts-store';
import { loadJobForTeam } from '../jobs/access-service';
import { loadRoomForTeam } from '../rooms/access-service';
import { deleteJobRows, getJob, listRoomJobs, listTeamJobs } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import { isProcessing, STARTABLE_STATUSES } from '../jobs/job-rules';
import { readArchivedLog, readLiveLog } from '../jobs/log-store';
import { jobMetrics, jobView } from '../jobs/view';

export async function listJobs(identity: Identity) {
  return (await listTeamJobs(identity.team.id, settings().RECENT_JOBS_LIMIT)).map(jobView);
}

export async function showJob(identity: Identity, jobId: string) {
  return jobView(await loadJobForTeam(identity, jobId));
}

/** GET /api/rooms/{room_id}/jobs: with the live item count (archived items excluded) beside items_found. */
export async function listJobsInRoom(identity: Identity, roomId: string) {
  const room = await loadRoomForTeam(identity, roomId);
  const [jobs, counts] = await Promise.all([listRoomJobs(room.id), roomItemCountByJob(room.id)]);
  return jobs.map((job) => ({ ...jobView(job), current_item_count: counts.get(job.id) ?? 0 }));
}

/** What processing the job would cost now: the spec's credit rules with enterprise and training applied. */
async function chargeFor(job: Job): Promise<JobCharge & { photoRequests: number; enterprise: boolean }> {
  const [exemptions, photoRequests] = await Promise.all([
    loadChargeExemptions(job),
    job.source_type === 'photo' ? countPhotoAiRequests(job.id) : 0,
  ]);
  const charge = jobCharge({
    sourceType: job.source_type,
    durationSeconds: job.duration,
    photoRequests,
    ...exemptions,
  });
  return { ...charge, photoRequests, enterprise: exemptions.enterprise };
}

function requireMeasured(job: Job): void {
  if (job.source_type !== 'photo' && (job.duration === null || job.duration === undefined)) {
    throw new ConflictError('The upload is still being measured; try again in a moment.');
  }
}

/** GET /api/jobs/{id}/quote: the exact credit cost and the team's balance; charges nothing. */
export async function quoteJob(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  requireMeasured(job);
  const charge = await chargeFor(job);
  const balance = await getTeamCreditsBalance((await loadJobPayer(identity, job)).team);
  return {
    job_id: job.id,
    source_type: job.source_type,
    credits: charge.credits,
    blocks: charge.blocks,
    duration: job.duration,
    photo_requests: charge.photoRequests,
    enterprise: charge.enterprise,
    billing_enabled: balance.billing_enabled,
    credits_balance: balance.credits_balance,
    buy_url: balance.buy_credits_url,
  };
}

export const PHOTOS_BEING_SAVED =
  "A change to this job's photos is still being saved; process the job once it is done. Nothing was charged.";

/**
 * POST /api/jobs/{id}/process: from awaiting_grouping, awaiting_confirmation or
 * error (an errored job is charged again). Credits are spent up front — a flat
 * refusal is the spec's 402 and changes nothing — then the pipeline starts.
 * A job whose photo-write lock is held (a grouping edit still committing) is
 * 409 and nothing is charged or started.
 */
export async function processJob(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  if (!STARTABLE_STATUSES.includes(job.status)) {
    throw new ConflictError(
      isProcessing(job.status) ? 'The job is already being processed.' : `A ${job.status} job cannot be processed.`,
    );
  }
  // A large grouping edit commits in several transactions: a plan fixed now could take its photos half-regrouped.
  if (photoWriteLocked(job)) throw new ConflictError(PHOTOS_BEING_SAVED);
  // A training claim's photos become fixture items at once: no pipeline, no AI, no credits.
  if (job.source_type === 'photo' && (await getClaim(job.claim_id))?.is_training) {
    const done = await processTrainingJob(job);
    if (!done) throw new ConflictError('The job changed while it was being started; reload it.');
    return jobView(done);
  }
  const pipeline = pipelineRefForSource(job.source_type);
  if (!pipeline)
    throw new UnavailableError(
      `Processing ${job.source_type} jobs is not available in this deployment yet. Nothing was charged.`,
    );
  requireMeasured(job);
  const charge = await chargeFor(job);
  const charged = await chargeJobUpFront({
    ...(await loadJobPayer(identity, job)),
    job,
    credits: charge.credits,
    flow: 'job-start',
  });
  faultPoint('job-start:charged', [job.id]);
  // The lock is checked again in the start write itself: an edit that took it after the check above must not be
  // planned half-applied. So is the charged round: one the billing sweep gave back meanwhile is not started on.
  const started = await startChargedRun(charged, (write) =>
    startJob(charged.job, pipeline, write.set, [photoWriteLockFree(), ...write.guards]),
  );
  if (!started) {
    // Someone else started (or cancelled) it between our read and our write.
    // A racing start shares our charge reference, so only refund if the job is not running on it.
    const now = await getJob(job.id);
    if (charged.charged && (!now || !isProcessing(now.status))) await refundJob(charged.job);
    throw new ConflictError('The job changed while it was being started; reload it.');
  }
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: 'process_job',
    action_label: `Started processing ${job.source_type}`,
    target: job.original_filename ?? job.id,
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return jobView(started);
}

/** Why a Cancel was refused while the job's billing is open (cancelBlock), in the words the user sees. */
const CANCEL_REFUSED: Record<NonNullable<ReturnType<typeof cancelBlock>>, string> = {
  spend_in_flight:
    'The job is being charged for a Process click and cannot be cancelled meanwhile; reload it in a moment.',
  billing_owed: 'Credits charged for this job are still being given back; it can be cancelled once that is done.',
  round_charged:
    'The job is charged for a run that has not started yet: process it, or cancel it once the charge has been ' +
    'given back (within a few minutes).',
};

/**
 * POST /api/jobs/{id}/cancel: discards a job that has not started (awaiting_confirmation) and its file, while none
 * of its billing is open (cancelBlock: a job whose charge was given back whole is cancelled like one never charged).
 * The read only words the refusal: the delete is conditional on the status and the open billing (billingClosed), so
 * a spend asked for after the read keeps the job (409), and nothing is written.
 */
export async function cancelJob(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  if (job.status !== 'awaiting_confirmation')
    throw new ConflictError('Only a job waiting for confirmation can be cancelled.');
  const blocked = cancelBlock(job);
  if (blocked) throw new ConflictError(CANCEL_REFUSED[blocked]);
  const removed = await deleteJobRows(job, { expectStatus: 'awaiting_confirmation', condition: billingClosed() });
  if (!removed) {
    const now = await getJob(job.id);
    const since = now?.status === 'awaiting_confirmation' ? cancelBlock(now) : null;
    throw new ConflictError(since ? CANCEL_REFUSED[since] : 'The job changed while it was being cancelled; reload it.');
  }
  await deletePrefix(blobKeys.jobPrefix(job.team_id, job.claim_id, job.id));
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: 'cancel_job',
    action_label: `Cancelled ${job.source_type} upload`,
    target: job.original_filename ?? job.id,
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return { cancelled: true, id: job.id };
}

/** GET /api/jobs/{id}/logs: the live buffer while it runs, the archive once finished. */
export async function getJobLogs(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  if (job.status === 'complete' || job.status === 'error') {
    const archived = await readArchivedLog(job.id);
    if (archived) return { job_id: job.id, source: 'archive' as const, lines: archived };
  }
  return { job_id: job.id, source: 'live' as const, lines: await readLiveLog(job.id) };
}

export async function getJobMetrics(identity: Identity, jobId: string) {
  return jobMetrics(await loadJobForTeam(identity, jobId));
}
