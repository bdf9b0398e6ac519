/**
 * Billing a job owes the billing service, kept until the service confirms it
 * (spec: Processing rules 5 and 6; States and transitions, the refund rows;
 * Errors: a failed refund is logged and never raised).
 *
 * The write that ends a run records what the run owes in the same conditional
 * update as its status (owedFields, settlement-store.ts): refunds_owed,
 * refund_state 'pending' and an entry in the sparse pending-billing index. settleJobBilling then asks the
 * billing service and clears what it confirmed; whatever an outage leaves owed
 * is retried by the billing sweep (functions/schedules/billing-sweep.ts) until
 * it is confirmed, then refund_state is 'done'.
 *
 * - What a run owes back is decided in settlement-rules.ts.
 * - A spend whose answer was lost (billing_unconfirmed) is confirmed by asking
 *   again with the same reference: the service answers the first spend if it
 *   happened, or makes it now, so the run is charged exactly once either way.
 *   A flat refusal then means nothing is on the ledger, and nothing is owed back.
 * - A round charged and never started (the request died between the spend
 *   and the start write) is listed from its charge. Once its lease has run out
 *   (settlement-rules.ts) it is abandoned: its whole refund is owed in a write
 *   that a start on it would have had to beat (settlement-store.ts,
 *   abandonRound), then settled like any refund. The job keeps its status, so
 *   the next Process click charges a new round under a new reference.
 * - A spend asked for whose answer was never recorded (the request died during
 *   the call or before its record) is listed from the request; once its lease
 *   has run out its round is recorded as charged but unconfirmed and
 *   abandoned, with its whole refund owed (abandonUnrecordedSpend): the
 *   service is asked again under its reference, then gives back what it took.
 * - A refund the service answers 404 (no such spend) or 409 (nothing of the
 *   spend left to give back, e.g. refunded by hand at the service) is final:
 *   it is no longer owed, as for sends.
 *
 * Every call is idempotent at the service, so a settlement that loses its
 * write to a newer one (billing_version) just reads the job again.
 */
import { settings as currentSettings, type Settings } from '../config';
import { endsInvocation, faultPoint } from '../faults/fault-points';
import { BillingServiceClient } from '../integrations/billing-service';
import { getJob } from '../jobs/job-store';
import type { Job, OwedRefund } from '../jobs/job-record-rules';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';
import { getTeam } from '../teams/store';
import { getUser } from '../users/store';
import { jobChargeReference, spendDescription } from './ledger-rules';
import { abandonedRoundRefund, awaitsRound, owesBilling, unrecordedSpend } from './settlement-rules';
import { abandonRound, abandonUnrecordedSpend, recordSettlement } from './settlement-store';

export interface BillingDeps {
  /** Defaults to a client built from the current settings. */
  client?: BillingServiceClient;
  config?: Settings;
}

/** The billing service client the prepaid paths share. */
export function createBillingClient(deps: BillingDeps = {}): BillingServiceClient {
  return deps.client ?? BillingServiceClient.fromSettings(deps.config ?? currentSettings());
}

export interface Settlement {
  /**
   * none: nothing was owed. settled: nothing is owed any more. pending: something stays owed (the service did not
   * answer). waiting: nothing is owed yet, but the round is charged and its run not started while its lease holds.
   */
  state: 'none' | 'settled' | 'pending' | 'waiting';
  /** This settlement gave back the whole spend of the job's current round (billing_refunded set). */
  refundedWhole: boolean;
  job: Job | null;
}

/** A settlement's write lost to a newer one (billing_version moved): read the job again and settle what it owes now. */
class LostToNewerWrite extends Error {
  override readonly name = 'LostToNewerWrite';
}

/** Passes of settleJobBilling before it leaves the rest to the sweep; a lost pass is retried at once (every call is idempotent). */
const SETTLE_RETRY = {
  attempts: 4,
  backoffMs: 0,
  retryable: (err: unknown) => err instanceof LostToNewerWrite,
} as const;

/** Settles what the job owes now, an abandoned round's refund included; never raises. */
export async function settleJobBilling(jobId: string, deps: BillingDeps = {}): Promise<Settlement> {
  try {
    return await withRetry(async () => {
      let job = await getJob(jobId);
      if (!job) return { state: 'none', refundedWhole: false, job };
      const unrecorded = unrecordedSpend(job);
      if (unrecorded) {
        logger.warn(
          'a spend was asked for and its answer never recorded within its lease; what it took is given back',
          {
            job_id: job.id,
            team_id: job.team_id,
            reference: unrecorded.refund.spend_reference,
            asked_at: job.billing_charged_at ?? null,
          },
        );
        // Lost: its request recorded it after all, or the round moved on. Read the job again.
        job = await abandonUnrecordedSpend(job, unrecorded);
        if (!job) throw new LostToNewerWrite(`abandoning the unrecorded spend of job ${jobId} lost to a newer write`);
      }
      const abandoned = abandonedRoundRefund(job);
      if (abandoned) {
        logger.warn('a charged round never started within its lease; its spend is given back', {
          job_id: job.id,
          team_id: job.team_id,
          reference: abandoned.spend_reference,
          charged_at: job.billing_charged_at ?? null,
        });
        // Lost: the run started on it after all, or the round moved on. Read the job again.
        job = await abandonRound(job, abandoned);
        if (!job) throw new LostToNewerWrite(`abandoning the unstarted round of job ${jobId} lost to a newer write`);
      }
      if (!owesBilling(job)) return { state: awaitsRound(job) ? 'waiting' : 'none', refundedWhole: false, job };
      const done = await settleOnce(job, deps);
      if (!done) throw new LostToNewerWrite(`billing settlement of job ${jobId} lost to a newer write`);
      return done;
    }, SETTLE_RETRY);
  } catch (err) {
    // Never raises, but a crash is not caught: the refund stays owed for the sweep, as when the process dies.
    if (endsInvocation(err)) throw err;
    if (err instanceof LostToNewerWrite) {
      logger.warn('billing settlement kept losing to newer writes; the sweep will finish it', { job_id: jobId });
      return { state: 'pending', refundedWhole: false, job: await getJob(jobId).catch(() => null) };
    }
    logger.error('billing settlement failed; the sweep will retry it', {
      job_id: jobId,
      error: err instanceof Error ? err.message : String(err),
    });
    return { state: 'pending', refundedWhole: false, job: null };
  }
}

/** One pass: ask the service, then record the answers in a write conditional on billing_version; null when that write lost. */
async function settleOnce(job: Job, deps: BillingDeps): Promise<Settlement | null> {
  const context = { job_id: job.id, team_id: job.team_id };
  const team = await getTeam(job.team_id);
  const teamId = team?.external_id;
  if (teamId === null || teamId === undefined) {
    // Nothing can reach the ledger without the team's external id; keeping it owed would retry forever.
    logger.error('billing owed, but the team has no external id; dropped', {
      ...context,
      owed: job.refunds_owed,
      unconfirmed: job.billing_unconfirmed,
    });
    return record(job, { billing_unconfirmed: false }, [], false);
  }
  const client = createBillingClient(deps);
  const changes: Partial<Job> = {};
  let owed = job.refunds_owed ?? [];
  let unconfirmed = Boolean(job.billing_unconfirmed);

  if (unconfirmed) {
    const reference = jobChargeReference(job.id, job.billing_rounds);
    const user = await getUser(job.created_by_user_id);
    const spend = await client.spend({
      teamId,
      userId: user?.external_id ?? null,
      amount: job.billing_amount,
      reference,
      description: spendDescription(job, job.billing_amount),
    });
    if (spend.outcome === 'charged') {
      unconfirmed = false;
      Object.assign(changes, { billing_unconfirmed: false, billing_txn_id: spend.transactionId });
      logger.info('unanswered spend confirmed with the same reference', {
        ...context,
        reference,
        transaction_id: spend.transactionId,
        balance: spend.balance,
      });
    } else if (spend.outcome === 'insufficient') {
      // Not on the ledger, and the team cannot pay it now: the run stays uncharged (fail open), nothing to give back.
      unconfirmed = false;
      Object.assign(changes, { billing_unconfirmed: false, billing_charged: false });
      owed = owed.filter((o) => o.round !== job.billing_rounds);
      logger.warn('unanswered spend was not on the ledger and the team cannot pay it now; the run stays uncharged', {
        ...context,
        reference,
        balance: spend.balance,
      });
    } else {
      logger.error('unanswered spend still unconfirmed; the billing sweep retries it', {
        ...context,
        reference,
        reason: spend.error.reason,
        status: spend.error.status,
        error: spend.error.message,
      });
    }
  }

  const remaining: OwedRefund[] = [];
  let refundedWhole = false;
  for (const refund of owed) {
    // A refund of a spend not yet confirmed waits for it: refunding first could miss a spend still in flight.
    if (unconfirmed && refund.round === job.billing_rounds) {
      remaining.push(refund);
      continue;
    }
    const partial = refund.amount === null ? {} : { refundReference: refund.reference, amount: refund.amount };
    const result = await client.refund({ teamId, reference: refund.spend_reference, ...partial });
    faultPoint('job-refund:asked', [job.id]);
    const fields = { ...context, reference: refund.reference, amount: refund.amount };
    if (result.outcome === 'refunded') {
      if (refund.amount === null && refund.round === job.billing_rounds) refundedWhole = true;
      logger.info(
        refund.amount === null ? 'up-front charge refunded' : 'unbilled part of the up-front charge refunded',
        { ...fields, transaction_id: result.transactionId, balance: result.balance },
      );
    } else if (result.outcome === 'unknown_reference') {
      logger.error('refund dropped: the billing service holds no spend with this reference', fields);
    } else if (result.outcome === 'nothing_left') {
      // Final (409): the spend was given back already (by a part, or by hand at the service); asking again never helps.
      logger.warn('refund dropped: nothing of the spend is left to give back', { ...fields, detail: result.detail });
    } else {
      remaining.push(refund);
      logger.error('refund failed; it stays owed and the billing sweep retries it', {
        ...fields,
        reason: result.error.reason,
        status: result.error.status,
        error: result.error.message,
      });
    }
  }
  if (unconfirmed) changes.billing_unconfirmed = true;
  return record(job, changes, remaining, refundedWhole);
}

/** Records a pass's outcome; null when a newer write won (settlement-store.ts). */
async function record(
  job: Job,
  changes: Partial<Job>,
  remaining: OwedRefund[],
  refundedWhole: boolean,
): Promise<Settlement | null> {
  const pending = remaining.length > 0 || Boolean(changes.billing_unconfirmed ?? job.billing_unconfirmed);
  // A round charged and not started (or a spend not recorded yet) stays listed after its earlier rounds are
  // settled, so its lease is watched.
  const after = { ...job, ...changes, ...(refundedWhole ? { billing_refunded: true } : {}) };
  const listed = pending || awaitsRound(after);
  const updated = await recordSettlement(job, { changes, remaining, refundedWhole, listed });
  return updated ? { state: pending ? 'pending' : 'settled', refundedWhole, job: updated } : null;
}
