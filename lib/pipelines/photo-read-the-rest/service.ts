/**
 * The read-the-rest use cases behind the HTTP routes (spec: Jobs:
 * read-the-rest routes; States: complete (photo job) + POST read-the-rest):
 * the quote, and starting the pass (pipeline.ts). Only groups recorded as cut
 * short are re-read, one credit each, spent up front (the spend is idempotent
 * per charge round and refunded if the pass fails). A group still cut short
 * at PHOTO_MAX_PASSES is too dense: the user is told to segment it.
 */
import type { Identity } from '../../auth/identity-rules';
import { recordActivity } from '../../activity/service';
import { jobCharge } from '../../billing/credit-rules';
import { loadChargeExemptions } from '../../billing/exemption-service';
import { chargeJobUpFront, loadJobPayer, refundJob, startChargedRun } from '../../billing/charge-service';
import { getTeamCreditsBalance } from '../../billing/summary-service';
import { settings } from '../../config';
import { ConflictError } from '../../errors';
import { faultPoint } from '../../faults/fault-points';
import { getJob } from '../../jobs/job-store';
import type { Job } from '../../jobs/job-record-rules';
import { isProcessing } from '../../jobs/job-rules';
import { jobView } from '../../jobs/view';
import { startJob } from '../../orchestrator/engine';
import { loadJobForTeam } from '../../jobs/access-service';
import { PHOTO_READ_THE_REST } from '../../orchestrator/pipeline-catalog';
import { groupsWithPassLeft, tooDenseGroups } from './pass-rules';

const TOO_DENSE_ADVICE =
  'Some photos hold more items than one request can read, even after the last pass. Segment them (draw a box around each part) and process the segments.';

function requirePhotoJob(job: Job): void {
  if (job.source_type !== 'photo') throw new ConflictError('Read the rest is only for photo jobs.');
}

async function passCharge(job: Job, groups: number) {
  const exemptions = await loadChargeExemptions(job);
  return {
    enterprise: exemptions.enterprise,
    ...jobCharge({ sourceType: 'photo', photoRequests: groups, ...exemptions }),
  };
}

/** GET /api/jobs/{id}/read-the-rest/quote: price (one credit per group re-read), groups, balance; charges nothing. */
export async function quoteReadTheRest(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  requirePhotoJob(job);
  const groups = groupsWithPassLeft(job);
  const charge = await passCharge(job, groups.length);
  const balance = await getTeamCreditsBalance((await loadJobPayer(identity, job)).team);
  const dense = tooDenseGroups(job);
  return {
    job_id: job.id,
    groups: groups.length,
    group_indices: groups.map((g) => g.group_index),
    credits: charge.credits,
    max_passes: settings().PHOTO_MAX_PASSES,
    too_dense: dense,
    advice: dense.length ? TOO_DENSE_ADVICE : null,
    enterprise: charge.enterprise,
    billing_enabled: balance.billing_enabled,
    credits_balance: balance.credits_balance,
    buy_url: balance.buy_credits_url,
  };
}

/** POST /api/jobs/{id}/read-the-rest: a complete photo job with a group that has a pass left. 402 when the billing service refuses. */
export async function startReadTheRest(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  requirePhotoJob(job);
  if (job.status !== 'complete')
    throw new ConflictError(
      isProcessing(job.status)
        ? 'The job is being processed; wait for it to finish.'
        : 'Read the rest is only for complete photo jobs.',
    );
  const groups = groupsWithPassLeft(job);
  if (groups.length === 0)
    throw new ConflictError(
      tooDenseGroups(job).length
        ? `Nothing is left to read that another pass could reach. ${TOO_DENSE_ADVICE}`
        : 'Every photo was read completely; there is nothing left to read.',
    );
  const charge = await passCharge(job, groups.length);
  const charged = await chargeJobUpFront({
    ...(await loadJobPayer(identity, job)),
    job,
    credits: charge.credits,
    flow: 'read-the-rest',
  });
  faultPoint('read-the-rest:charged', [job.id]);
  const started = await startChargedRun(charged, (write) =>
    startJob(
      charged.job,
      PHOTO_READ_THE_REST,
      {
        pass_charge_round: charged.charged ? charged.job.billing_rounds : null,
        ...write.set,
        last_pass_error: null,
        pass_request_count: 0,
      },
      write.guards,
    ),
  );
  if (!started) {
    // A racing request started the pass on the same charge round; refund only if nothing runs on it.
    const now = await getJob(job.id);
    if (charged.charged && (!now || !isProcessing(now.status))) await refundJob(charged.job);
    throw new ConflictError('The job changed while the pass was being started; reload it.');
  }
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: 'read_the_rest',
    action_label: `Read the rest of ${groups.length} photo${groups.length === 1 ? '' : 's'}`,
    target: job.original_filename ?? job.id,
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return jobView(started);
}
