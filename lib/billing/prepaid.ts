/**
 * Up-front charge, refund and finalize for jobs (spec: Limits > Credit prices
 * and charging, rules 3-5; States and transitions, the process/402/refund
 * rows; Errors, fail-open rules; Processing rules 5 and 6).
 *
 * - chargeJobUpFront spends through the billing service at confirm, keyed on
 *   the job id and the charge round: `job:<job_id>:<round>`, round =
 *   billing_rounds + 1, because an errored job processed again is charged
 *   again. The spend is the affordability gate; there is no local balance
 *   arithmetic. A flat refusal is HTTP 402 with the spec's body and writes
 *   nothing. Billing off, zero cost, a team with no external id, config gaps
 *   and an outage proceed uncharged (logged).
 * - refundJob undoes the current round's spend once (billing_refunded), and
 *   never raises.
 * - finalizeJobBilling records the billed credits once per job success and
 *   adds them to the claim's spend. The credits are computed by the caller at
 *   finalize time from the then-current prices (jobCharge), so a rate change
 *   applies only to jobs finalized after it, and a job that finished before
 *   billing existed is never finalized retroactively: it stays at 0.
 */
import { settings as currentSettings, type Settings } from '../config';
import { addClaimSpend } from '../claims/claim';
import { isConditionalCheckFailed } from '../db/client';
import { HttpError, notFound } from '../http/errors';
import { BillingServiceClient } from '../integrations/billing-service';
import { getJob, updateJob, type Job } from '../jobs/job';
import { logger } from '../observability/logger';
import { getTeam, type Team } from '../teams/team';
import type { User } from '../users/user';
import { prepaidMode, type JobCharge } from './credits';

export const INSUFFICIENT_CREDITS = 'insufficient_credits';

/** The spend reference of one charge round of a job. */
export const jobChargeReference = (jobId: string, round: number) => `job:${jobId}:${round}`;

/** The spec's 402 body, exactly. */
export interface InsufficientCreditsBody {
  error: typeof INSUFFICIENT_CREDITS;
  credits_balance: number | null;
  required_amount: number;
  buy_url: string | null;
}

export function insufficientCredits(body: Omit<InsufficientCreditsBody, 'error'>): HttpError {
  const exact: InsufficientCreditsBody = { error: INSUFFICIENT_CREDITS, credits_balance: body.credits_balance, required_amount: body.required_amount, buy_url: body.buy_url };
  return new HttpError(402, 'Insufficient credits', exact as unknown as Record<string, unknown>);
}

export type UnchargedReason = 'billing_off' | 'config_gap' | 'zero_cost' | 'no_team_external_id' | 'unavailable';

export type ChargeOutcome =
  | { charged: true; job: Job; reference: string; transactionId: string; balance: number | null }
  | { charged: false; job: Job; reason: UnchargedReason };

interface BillingDeps {
  /** Defaults to a client built from the current settings. */
  client?: BillingServiceClient;
  config?: Settings;
}

function clientFor(deps: BillingDeps, config: Settings) {
  return deps.client ?? BillingServiceClient.fromSettings(config);
}

function spendDescription(job: Job, credits: number): string {
  const kind = job.source_type.charAt(0).toUpperCase() + job.source_type.slice(1);
  return `${kind} processing: ${credits} credit${credits === 1 ? '' : 's'} (job ${job.id})`;
}

/**
 * Spends the job's credits up front. Resolves with the (possibly updated) job
 * and whether it was charged; throws HttpError(402) on a flat refusal. On a
 * charge, billing_charged, billing_txn_id, billing_amount, billing_rounds and
 * billing_refunded=false are recorded with a write conditional on the round,
 * so two racing confirms charge (idempotently, same reference) and record once.
 */
export async function chargeJobUpFront(
  input: { job: Job; team: Pick<Team, 'id' | 'external_id'>; user: Pick<User, 'id' | 'external_id'> | null; credits: number },
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
    logger.warn('billing enabled but not configured; failing open, job proceeds uncharged', { ...context, missing: mode.missing });
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
  const stored = await getJob(job.id);
  if (!stored) throw notFound('Job not found');
  const previous = stored.billing_rounds ?? 0;
  if (previous > (job.billing_rounds ?? 0) && stored.billing_charged && !stored.billing_refunded && stored.billing_txn_id) {
    // A racing confirm charged the job after the caller read it: that charge
    // stands for this one too (never two live charges from one read).
    logger.info('job already charged by a concurrent confirm; not charging again', { ...context, reference: jobChargeReference(job.id, previous) });
    return { charged: true, job: stored, reference: jobChargeReference(job.id, previous), transactionId: stored.billing_txn_id, balance: null };
  }
  const round = previous + 1;
  const reference = jobChargeReference(job.id, round);
  const amount = Math.ceil(credits);
  const client = clientFor(deps, config);
  const result = await client.spend({ teamId: team.external_id, userId: user?.external_id ?? null, amount, reference, description: spendDescription(stored, amount) });

  if (result.outcome === 'insufficient') {
    logger.info('billing service refused the charge: insufficient credits', { ...context, reference, balance: result.balance, required: result.required });
    throw insufficientCredits({ credits_balance: result.balance, required_amount: result.required, buy_url: result.buyUrl });
  }
  if (result.outcome === 'unavailable') {
    logger.error('billing service unavailable; failing open, job proceeds uncharged', {
      ...context,
      reference,
      reason: result.error.reason,
      status: result.error.status,
      error: result.error.message,
    });
    return { charged: false, job, reason: 'unavailable' };
  }

  const recorded = await updateJob(job.id, {
    set: { billing_charged: true, billing_txn_id: result.transactionId, billing_amount: amount, billing_rounds: round, billing_refunded: false },
    condition: previous === 0 ? 'attribute_not_exists(billing_rounds) OR billing_rounds = :prev' : 'billing_rounds = :prev',
    values: { ':prev': previous },
  });
  if (recorded) {
    logger.info('credits spent up front', { ...context, reference, transaction_id: result.transactionId, balance: result.balance });
    return { charged: true, job: recorded, reference, transactionId: result.transactionId, balance: result.balance };
  }

  // Lost the conditional write. A racing confirm with the same reference got
  // the same (idempotent) answer and recorded it: that is this charge.
  const current = await getJob(job.id);
  if (current && current.billing_rounds === round && current.billing_txn_id === result.transactionId && !current.billing_refunded) {
    return { charged: true, job: current, reference, transactionId: result.transactionId, balance: result.balance };
  }
  // The job is gone or moved on without this charge: give the credits back.
  logger.error('charge could not be recorded on the job; refunding it', { ...context, reference, transaction_id: result.transactionId, job_exists: Boolean(current) });
  const refund = await client.refund({ teamId: team.external_id, reference });
  if (refund.outcome !== 'refunded') logger.error('refund of an unrecorded charge failed', { ...context, reference, error: refund.error.message });
  throw new HttpError(409, 'The job changed while it was being charged; try again.');
}

export type RefundOutcome = { refunded: boolean; job: Job | null; reason?: 'not_charged' | 'already_refunded' | 'missing' | 'no_team_external_id' | 'unavailable' | 'raced' };

/**
 * Refunds the job's current up-front charge. Idempotent: it re-reads the job
 * and acts only when billing_charged and not billing_refunded; the refund call
 * is idempotent per reference, and billing_refunded=true is set with a
 * conditional write on the same round. A failed refund is logged, never raised.
 */
export async function refundJob(job: Pick<Job, 'id'>, deps: BillingDeps & { team?: Pick<Team, 'id' | 'external_id'> } = {}): Promise<RefundOutcome> {
  try {
    const current = await getJob(job.id);
    if (!current) return { refunded: false, job: null, reason: 'missing' };
    if (!current.billing_charged) return { refunded: false, job: current, reason: 'not_charged' };
    if (current.billing_refunded) return { refunded: false, job: current, reason: 'already_refunded' };

    const config = deps.config ?? currentSettings();
    const round = current.billing_rounds;
    const reference = jobChargeReference(current.id, round);
    const context = { job_id: current.id, team_id: current.team_id, reference, amount: current.billing_amount };
    const team = deps.team && deps.team.id === current.team_id ? deps.team : await getTeam(current.team_id);
    if (team?.external_id === null || team?.external_id === undefined) {
      logger.error('refund failed: the team has no external id', context);
      return { refunded: false, job: current, reason: 'no_team_external_id' };
    }
    // A charged job is refunded even if ENABLE_BILLING was switched off since.
    const result = await clientFor(deps, config).refund({ teamId: team.external_id, reference });
    if (result.outcome === 'unavailable') {
      logger.error('refund failed; the charge stays on the job', { ...context, reason: result.error.reason, status: result.error.status, error: result.error.message });
      return { refunded: false, job: current, reason: 'unavailable' };
    }
    const updated = await updateJob(current.id, {
      set: { billing_refunded: true },
      condition: 'billing_charged = :true AND billing_refunded = :false AND billing_rounds = :round',
      values: { ':true': true, ':false': false, ':round': round },
    });
    if (!updated) return { refunded: false, job: await getJob(current.id), reason: 'raced' };
    logger.info('up-front charge refunded', { ...context, transaction_id: result.transactionId, balance: result.balance });
    return { refunded: true, job: updated };
  } catch (err) {
    logger.error('refund failed', { job_id: job.id, error: err instanceof Error ? err.message : String(err) });
    return { refunded: false, job: null, reason: 'unavailable' };
  }
}

export type FinalizeOutcome = { finalized: boolean; job: Job | null };

/** What a job's completing write records for billing: its billed credits, once (billing_finalized_at). */
export function completionBilling(charge: JobCharge, now = new Date()) {
  const credits = Math.max(0, Math.ceil(charge.credits));
  return {
    credits,
    set: { billed_cost_usd: credits, billed_blocks: charge.blocks, billed_minutes: charge.minutes, billing_finalized_at: now.toISOString() },
    add: {},
    condition: 'attribute_not_exists(billing_finalized_at) OR billing_finalized_at = :null',
    values: { ':null': null } as Record<string, unknown>,
  };
}

/**
 * What a follow-up pass's completing write records (read the rest: one credit
 * per group re-read and answered): its credits added to the job's billed
 * credits, once per pass (pass_billed).
 */
export function passCompletionBilling(charge: JobCharge, pass: string) {
  const credits = Math.max(0, Math.ceil(charge.credits));
  return {
    credits,
    set: { pass_billed: pass },
    add: { billed_cost_usd: credits, billed_blocks: charge.blocks },
    condition: 'attribute_not_exists(pass_billed) OR pass_billed <> :pass',
    values: { ':pass': pass } as Record<string, unknown>,
  };
}

/** Adds finalized credits to the claim's spend; a claim deleted meanwhile keeps nothing to add to. */
export async function addFinalizedSpend(job: Pick<Job, 'id' | 'claim_id'>, credits: number): Promise<void> {
  // A crash between the job's write and this one would lose the claim's increment; the job's
  // billed_cost_usd stays the record of truth.
  try {
    await addClaimSpend(job.claim_id, credits);
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    logger.warn('claim gone at finalize; spend not added to it', { job_id: job.id, claim_id: job.claim_id });
  }
}

/**
 * Records the billed credits exactly once per job success: the write is
 * conditional on billing_finalized_at being null, and only the call that wins
 * it adds the credits to the claim's spend. `charge` comes from jobCharge at
 * finalize time (current prices; 0 for enterprise and training). A pipeline's
 * completion makes the same write together with the status change
 * (lib/orchestrator/terminal.ts), so a complete job is never seen unbilled.
 */
export async function finalizeJobBilling(job: Pick<Job, 'id' | 'claim_id'>, charge: JobCharge, now = new Date()): Promise<FinalizeOutcome> {
  const billing = completionBilling(charge, now);
  const updated = await updateJob(job.id, { set: billing.set, condition: billing.condition, values: billing.values }, now);
  if (!updated) {
    logger.debug('billing already finalized (or job gone); nothing added', { job_id: job.id });
    return { finalized: false, job: null };
  }
  await addFinalizedSpend({ id: job.id, claim_id: updated.claim_id ?? job.claim_id }, billing.credits);
  logger.info('billing finalized', { job_id: job.id, claim_id: updated.claim_id, credits: billing.credits, blocks: charge.blocks, minutes: charge.minutes });
  return { finalized: true, job: updated };
}
