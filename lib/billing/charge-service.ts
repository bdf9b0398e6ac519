/**
 * Up-front charge and refund for jobs (spec: Limits > Credit prices and
 * charging, rules 4-5; States and transitions, the process/402/refund rows;
 * Errors, fail-open rules; Processing rule 6). Finalize is in
 * finalize-service.ts.
 *
 * - chargeJobUpFront spends through the billing service at confirm, keyed on
 *   the job id and the charge round: `job:<job_id>:<round>`, round =
 *   billing_rounds + 1, because an errored job processed again is charged
 *   again, or the round after the last refused one if that is later: the
 *   service remembers a refusal under its reference, so a refused round is
 *   never asked again (nextChargeRound). A round charged and never started (billing_round_started false:
 *   the function died between the spend and the start write) is reused by the
 *   next start while its lease holds (settlement-rules.ts); once it has run
 *   out the round is given back (by the billing sweep, or by this next start
 *   before it charges) and the start charges a new round under a new
 *   reference. A start's write holds only while its round is still charged,
 *   not given back and not abandoned (chargedRoundStart), so a start and the
 *   give-back never both win. The spend itself is recorded as asked for
 *   before it is made (recordSpendRequest), so a request that dies during the
 *   call or before its answer is recorded is found and given back the same
 *   way; a start within the lease asks again under the same reference and gets
 *   the first answer. The payer is the job's own team (loadJobPayer), also
 *   when an administrator acts on another team's job. The spend is the
 *   affordability gate; there is no local balance arithmetic. A flat refusal
 *   is HTTP 402 with the spec's body and leaves the job uncharged (its spend
 *   request cleared, its round recorded as refused: billing_refused_round). Billing off, zero cost, a team with no external id,
 *   config gaps and an outage proceed uncharged (logged).
 * - A spend whose answer was lost (a timeout, a dropped connection, a 5xx:
 *   the service may have charged) is not treated as uncharged: the job
 *   records the round as charged but unconfirmed and proceeds, and the
 *   settlement asks again with the same reference (settlement-service.ts),
 *   so the run is charged once, never twice and never silently for free.
 * - A Cancel never discards a job while its spend is in flight (from
 *   recordSpendRequest until the answer's record or clear), nor while a
 *   charged round is not given back or anything is owed: its delete is
 *   conditional on that (charge-store.ts, billingClosed). A spend whose
 *   request comes after a Cancel finds no job and is never made.
 * - refundJob owes the current round's spend back (durably, on the job) and
 *   settles it now; what the service does not confirm the billing sweep
 *   retries. It never raises.
 */
import { settings as currentSettings } from '../config';
import { ConflictError, NotFoundError } from '../errors';
import { endsInvocation, faultPoint } from '../faults/fault-points';
import { isProcessing } from '../jobs/job-rules';
import { getJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import { logger } from '../observability/logger';
import type { Identity } from '../auth/identity-rules';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';
import {
  chargedRoundStart,
  clearSpendRequest,
  recordChargeRound,
  recordRefusedSpend,
  recordSpendRequest,
} from './charge-store';
import { insufficientCredits, prepaidMode } from './credit-rules';
import { jobChargeReference, spendDescription } from './ledger-rules';
import { type BillingDeps, createBillingClient, settleJobBilling } from './settlement-service';
import {
  abandonedRoundRefund,
  nextChargeRound,
  owesBilling,
  unrecordedSpend,
  racingChargeRound,
  unstartedRound,
  wholeRefund,
} from './settlement-rules';
import { abandonRound } from './settlement-store';

/** The clicks that charge a job up front: a Process click and a read-the-rest pass's. */
type ChargedFlow = 'job-start' | 'read-the-rest';

type UnchargedReason = 'billing_off' | 'config_gap' | 'zero_cost' | 'no_team_external_id' | 'unavailable';

/** `unconfirmed`: the spend's answer was lost; the round counts as charged until settlement says otherwise. */
export type ChargeOutcome =
  | {
      charged: true;
      job: Job;
      reference: string;
      transactionId: string | null;
      balance: number | null;
      unconfirmed?: boolean;
    }
  | { charged: false; job: Job; reason: UnchargedReason };

/**
 * Who pays for a job: its own team. The acting user is named on the spend only
 * when they belong to that team (an administrator acting on another team's job
 * charges that team, never their own).
 */
export async function loadJobPayer(
  identity: Pick<Identity, 'team' | 'user'>,
  job: Pick<Job, 'team_id'>,
): Promise<{ team: Team; user: User | null }> {
  if (identity.team.id === job.team_id) return { team: identity.team, user: identity.user };
  const team = await getTeam(job.team_id);
  if (!team) throw new NotFoundError('Job not found');
  return { team, user: null };
}

/**
 * Spends the job's credits up front. Resolves with the (possibly updated) job
 * and whether it was charged; throws InsufficientCreditsError (402) on a flat refusal. On a
 * charge, billing_charged, billing_txn_id, billing_amount, billing_rounds and
 * billing_refunded=false are recorded with a write conditional on the round,
 * so two racing confirms charge (idempotently, same reference) and record once.
 */
export async function chargeJobUpFront(
  input: {
    job: Job;
    team: Pick<Team, 'id' | 'external_id'>;
    user: Pick<User, 'id' | 'external_id'> | null;
    credits: number;
    /** The click being charged (a Process click unless named): names its fault points, `<flow>:recorded|spent`. */
    flow?: ChargedFlow;
  },
  deps: BillingDeps = {},
): Promise<ChargeOutcome> {
  const { job, team, user, credits } = input;
  const config = deps.config ?? currentSettings();
  const context = { job_id: job.id, team_id: team.id, credits };
  if (!config.ENABLE_BILLING) {
    logger.debug('billing off; job proceeds uncharged', context);
    return { charged: false, job, reason: 'billing_off' };
  }
  const mode = prepaidMode(config);
  if (!mode.active) {
    logger.warn('billing enabled but not configured; failing open, job proceeds uncharged', {
      ...context,
      missing: mode.missing,
    });
    return { charged: false, job, reason: 'config_gap' };
  }
  if (!(credits > 0)) {
    logger.info('zero cost; job proceeds uncharged', context);
    return { charged: false, job, reason: 'zero_cost' };
  }
  if (team.external_id === null || team.external_id === undefined) {
    logger.warn('team has no external id; job proceeds uncharged', context);
    return { charged: false, job, reason: 'no_team_external_id' };
  }

  // The round comes from the stored job, not the caller's copy: a stale copy
  // would reuse a spent (maybe refunded) reference and charge nothing.
  let stored = await getJob(job.id);
  if (!stored) throw new NotFoundError('Job not found');
  // An earlier round still owing billing is settled before a new round starts (its spend state is per round),
  // and an unstarted round (or an unrecorded spend) whose lease has run out is given back first.
  if (owesBilling(stored) || abandonedRoundRefund(stored) || unrecordedSpend(stored))
    stored = (await settleJobBilling(stored.id, deps)).job ?? stored;
  const previous = stored.billing_rounds ?? 0;
  if (racingChargeRound(stored, job.billing_rounds ?? 0) || unstartedRound(stored)) {
    // A racing confirm charged the job after the caller read it, or an earlier
    // start charged it and died before the run began: that charge stands for
    // this start too (never two live charges for one run).
    logger.info('job already charged for a run not yet started; not charging again', {
      ...context,
      reference: jobChargeReference(job.id, previous),
    });
    return {
      charged: true,
      job: stored,
      reference: jobChargeReference(job.id, previous),
      transactionId: stored.billing_txn_id,
      balance: null,
    };
  }
  // Never a refused round's: the billing service would answer its reference with the same 402 after a top-up.
  const round = nextChargeRound(stored);
  const reference = jobChargeReference(job.id, round);
  const amount = Math.ceil(credits);
  // Recorded as asked for before it is made: a request that dies during the call or before the answer is
  // recorded leaves it for the billing sweep, which gives back what it took once the round's lease has run out.
  if (!(await recordSpendRequest(job.id, { previous, round, amount }))) return racingRound(job.id, round);
  faultPoint(`${input.flow ?? 'job-start'}:recorded`, [job.id]);
  const client = createBillingClient({ ...deps, config });
  const result = await client.spend({
    teamId: team.external_id,
    userId: user?.external_id ?? null,
    amount,
    reference,
    description: spendDescription(stored, amount),
  });
  faultPoint(`${input.flow ?? 'job-start'}:spent`, [job.id]);

  if (result.outcome === 'insufficient') {
    await recordRefusedSpend(job.id, round);
    logger.info('billing service refused the charge: insufficient credits', {
      ...context,
      reference,
      balance: result.balance,
      required: result.required,
    });
    throw insufficientCredits({
      credits_balance: result.balance,
      required_amount: result.required,
      buy_url: result.buyUrl,
    });
  }
  if (result.outcome === 'unavailable' && result.error.mayHaveApplied) {
    // The service may have charged and its answer was lost: the job proceeds on an unconfirmed charge.
    logger.error(
      'billing service did not answer the spend; failing open, the job proceeds and the spend is confirmed later with the same reference',
      {
        ...context,
        reference,
        reason: result.error.reason,
        status: result.error.status,
        error: result.error.message,
      },
    );
    return recordCharge({ job, stored, round, amount, reference, transactionId: null, balance: null, team, client });
  }
  if (result.outcome === 'unavailable') {
    await clearSpendRequest(job.id, round);
    logger.error('billing service unavailable; failing open, job proceeds uncharged', {
      ...context,
      reference,
      reason: result.error.reason,
      status: result.error.status,
      error: result.error.message,
    });
    return { charged: false, job, reason: 'unavailable' };
  }

  return recordCharge({
    job,
    stored,
    round,
    amount,
    reference,
    transactionId: result.transactionId,
    balance: result.balance,
    team,
    client,
  });
}

/**
 * A racing confirm recorded the round this one was about to ask for: its
 * charge stands for this start too. Anything else is a conflict.
 */
async function racingRound(jobId: string, round: number): Promise<ChargeOutcome> {
  const current = await getJob(jobId);
  if (current && current.billing_rounds === round && unstartedRound(current)) {
    return {
      charged: true,
      job: current,
      reference: jobChargeReference(jobId, round),
      transactionId: current.billing_txn_id,
      balance: null,
      ...(current.billing_unconfirmed ? { unconfirmed: true } : {}),
    };
  }
  throw new ConflictError('The job changed while it was being charged; try again.');
}

/**
 * Records a round's charge on the job, conditional on the round, so two
 * racing confirms (same reference, same idempotent answer) record once. A
 * null transaction id records the charge as unconfirmed and lists the job for
 * the billing sweep.
 */
async function recordCharge(input: {
  job: Job;
  stored: Job;
  round: number;
  amount: number;
  reference: string;
  transactionId: string | null;
  balance: number | null;
  team: Pick<Team, 'id' | 'external_id'>;
  client: ReturnType<typeof createBillingClient>;
}): Promise<ChargeOutcome> {
  const { job, round, amount, reference, transactionId, balance, team, client } = input;
  const previous = input.stored.billing_rounds ?? 0;
  const context = { job_id: job.id, team_id: team.id, credits: amount, reference };
  const unconfirmed = transactionId === null;
  const recorded = await recordChargeRound(job.id, { previous, round, amount, transactionId });
  if (recorded) {
    if (!unconfirmed) logger.info('credits spent up front', { ...context, transaction_id: transactionId, balance });
    return { charged: true, job: recorded, reference, transactionId, balance, ...(unconfirmed ? { unconfirmed } : {}) };
  }

  // Lost the conditional write. A racing confirm with the same reference got
  // the same (idempotent) answer and recorded it: that is this charge.
  const current = await getJob(job.id);
  if (
    current &&
    current.billing_rounds === round &&
    !current.billing_refunded &&
    (unconfirmed || current.billing_unconfirmed || current.billing_txn_id === transactionId)
  ) {
    return {
      charged: true,
      job: current,
      reference,
      transactionId: current.billing_txn_id,
      balance,
      ...(current.billing_unconfirmed ? { unconfirmed: true } : {}),
    };
  }
  // The job is gone (a purge: a Cancel cannot discard it while its spend is in flight) or moved on without this
  // charge: give the credits back.
  logger.error('charge could not be recorded on the job; refunding it', {
    ...context,
    transaction_id: transactionId,
    job_exists: Boolean(current),
  });
  const refund = await client.refund({ teamId: team.external_id as number, reference });
  if (refund.outcome === 'unavailable')
    logger.error('refund of an unrecorded charge failed', { ...context, error: refund.error.message });
  throw new ConflictError('The job changed while it was being charged; try again.');
}

/**
 * Starts a run on a charge. `start` gets what its start write must set and
 * require (chargedRoundStart: the round marked started, and still open). A
 * start that fails outright (its write or its first dispatch threw) gives the
 * charge back through the owed-refund record before the error goes on, unless
 * the job is running on it after all; a start that never returns (the function
 * died) leaves the round to the next start while its lease holds, and to the
 * billing sweep's give-back after.
 */
export async function startChargedRun<T>(
  charged: ChargeOutcome,
  start: (write: ReturnType<typeof chargedRoundStart>) => Promise<T>,
): Promise<T> {
  try {
    return await start(chargedRoundStart(charged.charged ? charged.job.billing_rounds : null));
  } catch (err) {
    if (charged.charged) {
      const now = await getJob(charged.job.id).catch(() => null);
      if (!now || !isProcessing(now.status)) await refundJob(charged.job);
    }
    throw err;
  }
}

export type RefundOutcome = {
  refunded: boolean;
  job: Job | null;
  reason?: 'not_charged' | 'already_refunded' | 'missing' | 'unavailable' | 'raced';
};

/**
 * Gives back the job's current up-front charge when its run did not start:
 * records the refund as owed on the job and the round as abandoned
 * (conditional on the round not having started, so it survives an outage and
 * never gives back the charge of a run that did start), then settles it.
 * Idempotent: only a charged, not yet refunded round is refunded, and the
 * service refunds a reference once. `refunded` is true for the call that
 * recorded billing_refunded. A failed refund is logged and stays owed for the
 * billing sweep; it never raises.
 */
export async function refundJob(job: Pick<Job, 'id'>, deps: BillingDeps = {}): Promise<RefundOutcome> {
  try {
    const current = await getJob(job.id);
    if (!current) return { refunded: false, job: null, reason: 'missing' };
    const owed = wholeRefund(current);
    if (!owed)
      return { refunded: false, job: current, reason: current.billing_charged ? 'already_refunded' : 'not_charged' };
    if (!(current.refunds_owed ?? []).some((o) => o.reference === owed.reference)) {
      const marked = await abandonRound(current, owed);
      if (!marked) return { refunded: false, job: await getJob(current.id), reason: 'raced' };
    }
    const settled = await settleJobBilling(current.id, deps);
    if (settled.refundedWhole) return { refunded: true, job: settled.job };
    if (settled.state === 'pending') return { refunded: false, job: settled.job, reason: 'unavailable' };
    return { refunded: false, job: settled.job, reason: 'already_refunded' };
  } catch (err) {
    if (endsInvocation(err)) throw err; // a crash returns nothing: the refund stays owed for the billing sweep
    logger.error('refund failed', { job_id: job.id, error: err instanceof Error ? err.message : String(err) });
    return { refunded: false, job: null, reason: 'unavailable' };
  }
}
