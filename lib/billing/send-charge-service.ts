/**
 * Charges for sends (spec: Limits > Credit prices and charging, rules 6-9):
 * the spend is made before the remote call under the send's reference, which
 * the billing service keeps idempotent (a repeat returns the first answer and
 * never charges twice), and a failed send's refund is recorded as owed before
 * it is asked for, and asked again by the billing sweep until confirmed.
 *
 * As for jobs: a flat refusal is 402 with the spec's body and nothing is
 * written; billing off, a config gap, a team with no external id and an outage
 * let the send proceed uncharged (logged). A spend whose answer was lost may
 * have charged, or may still land: it is reported as charged but unconfirmed,
 * with the spend (`spend`) the caller records with the send's refund owed.
 * Settling such a refund first asks for the spend again under its reference
 * (the service answers the first spend, or makes it now), then refunds it: a
 * refund asked for first could meet a 404 for a spend still in flight and
 * leave the team paying for a failed send. A refusal of that spend means it
 * is not on the ledger: nothing is owed. Only a confirmed spend's 404 (or a
 * 409: nothing of it left to give back) ends the refund without one.
 */
import { settings as currentSettings } from '../config';
import { endsInvocation, faultPoint } from '../faults/fault-points';
import type { BillingServiceClient } from '../integrations/billing-service';
import { logger } from '../observability/logger';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';
import { insufficientCredits, prepaidMode } from './credit-rules';
import {
  clearOwedSendRefund,
  deferOwedSendRefund,
  getOwedSendRefund,
  owedRefundKey,
  recordOwedSendRefund,
} from './send-refund-store';
import type { OwedSendRefund, UnconfirmedSpend } from './send-refund-record-rules';
import { type BillingDeps, createBillingClient } from './settlement-service';

export type SendChargeOutcome =
  | {
      charged: true;
      credits: number;
      reference: string;
      unconfirmed: boolean;
      /** Set when unconfirmed: record it with the send's refund owed (owedSendRefundPut, refundSend). */
      spend?: UnconfirmedSpend;
    }
  | {
      charged: false;
      credits: 0;
      reason: 'billing_off' | 'config_gap' | 'zero_cost' | 'no_team_external_id' | 'unavailable';
    };

/** Spends `credits` under `reference`; throws InsufficientCreditsError (402) on a flat refusal. */
export async function chargeSend(
  input: {
    team: Pick<Team, 'id' | 'external_id'>;
    user: Pick<User, 'id' | 'external_id'> | null;
    credits: number;
    reference: string;
    description: string;
  },
  deps: BillingDeps = {},
): Promise<SendChargeOutcome> {
  const { team, user, credits, reference } = input;
  const config = deps.config ?? currentSettings();
  const context = { team_id: team.id, credits, reference };
  if (!config.ENABLE_BILLING) return { charged: false, credits: 0, reason: 'billing_off' };
  const mode = prepaidMode(config);
  if (!mode.active) {
    logger.warn('billing enabled but not configured; failing open, send proceeds uncharged', {
      ...context,
      missing: mode.missing,
    });
    return { charged: false, credits: 0, reason: 'config_gap' };
  }
  if (!(credits > 0)) return { charged: false, credits: 0, reason: 'zero_cost' };
  if (team.external_id === null || team.external_id === undefined) {
    logger.warn('team has no external id; send proceeds uncharged', context);
    return { charged: false, credits: 0, reason: 'no_team_external_id' };
  }
  const amount = Math.ceil(credits);
  const result = await createBillingClient({ ...deps, config }).spend({
    teamId: team.external_id,
    userId: user?.external_id ?? null,
    amount,
    reference,
    description: input.description,
  });
  if (result.outcome === 'insufficient') {
    logger.info('billing service refused the send: insufficient credits', { ...context, balance: result.balance });
    throw insufficientCredits({
      credits_balance: result.balance,
      required_amount: result.required,
      buy_url: result.buyUrl,
    });
  }
  if (result.outcome === 'unavailable') {
    const lost = result.error.mayHaveApplied;
    logger.error(
      lost
        ? 'billing service did not answer the send spend; it may have charged: the send proceeds, and a failure confirms it before refunding it'
        : 'billing service unavailable; failing open, send proceeds uncharged',
      { ...context, reason: result.error.reason, error: result.error.message },
    );
    if (!lost) return { charged: false, credits: 0, reason: 'unavailable' };
    const spend: UnconfirmedSpend = {
      team_external_id: team.external_id,
      user_external_id: user?.external_id ?? null,
      amount,
      description: input.description,
    };
    return { charged: true, credits: amount, reference, unconfirmed: true, spend };
  }
  logger.info('send charged', { ...context, transaction_id: result.transactionId, balance: result.balance });
  return { charged: true, credits: amount, reference, unconfirmed: false };
}

/**
 * Gives a failed send's spend back: records the refund as owed first (a row
 * in the pending-billing index; with `spend` when the charge was not
 * confirmed), then settles it. True when nothing is owed any more; otherwise
 * it stays owed and the billing sweep asks again until it is, so a retry of
 * the send under its next round's reference never leaves the team paying
 * twice. Never raises.
 */
export async function refundSend(
  input: { team: Pick<Team, 'id' | 'external_id'>; reference: string; spend?: UnconfirmedSpend },
  deps: BillingDeps = {},
): Promise<boolean> {
  const { team, reference, spend } = input;
  const teamId = team.external_id;
  if (teamId === null || teamId === undefined) return false;
  try {
    await recordOwedSendRefund(team.id, reference, new Date(), spend);
    return (await askSendRefund({ id: team.id, external_id: teamId }, { reference, spend }, deps)) === 'settled';
  } catch (err) {
    // Never raises, but a crash is not caught: what was recorded stays owed for the sweep, as when the process dies.
    if (endsInvocation(err)) throw err;
    logger.error('refund of a failed send failed; the billing sweep retries it if it was recorded', {
      team_id: team.id,
      reference,
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}

/**
 * Settles a send refund recorded as owed together with the failure it is
 * for (a failed send, or an item of one that failed for good;
 * submission-store.ts, submission-item-store.ts): true once nothing is owed;
 * otherwise the billing sweep asks again. An unconfirmed charge's spend is
 * read from the owed row unless `owed.spend` gives it. Never raises.
 */
export async function requestOwedSendRefund(
  team: Pick<Team, 'id' | 'external_id'>,
  owed: Pick<OwedSendRefund, 'reference' | 'part' | 'spend'>,
  deps: BillingDeps = {},
): Promise<boolean> {
  if (team.external_id === null || team.external_id === undefined) return false;
  try {
    const spend = owed.spend ?? (await getOwedSendRefund(owedRefundKey(owed)))?.spend;
    return (
      (await askSendRefund({ id: team.id, external_id: team.external_id }, { ...owed, spend }, deps)) === 'settled'
    );
  } catch (err) {
    // Never raises, but a crash is not caught: the refund stays owed for the sweep, as when the process dies.
    if (endsInvocation(err)) throw err;
    logger.error('refund of a failed send failed; the billing sweep retries it', {
      team_id: team.id,
      reference: owedRefundKey(owed),
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}

/** The billing sweep's part: settles the send refund owed under `key` ('settled' when none is). */
export async function settleSendRefund(key: string, deps: BillingDeps = {}): Promise<'settled' | 'pending'> {
  const owed = await getOwedSendRefund(key);
  if (!owed) return 'settled';
  const team = await getTeam(owed.team_id);
  if (team?.external_id === null || team?.external_id === undefined) {
    // Nothing can reach the ledger without the team's external id; keeping it owed would retry forever.
    logger.error('send refund owed, but the team has no external id; dropped', { team_id: owed.team_id, key });
    await clearOwedSendRefund(key);
    return 'settled';
  }
  return askSendRefund({ id: team.id, external_id: team.external_id }, owed, deps);
}

/**
 * Settles an owed send refund (all of the charge, or its part): an
 * unconfirmed spend is asked for again first. 'settled' once nothing is owed
 * and the owed row is gone; 'pending' while the service does not answer.
 */
async function askSendRefund(
  team: { id: string; external_id: number },
  owed: Pick<OwedSendRefund, 'reference' | 'part' | 'spend'>,
  deps: BillingDeps,
): Promise<'settled' | 'pending'> {
  const key = owedRefundKey(owed);
  const context = { team_id: team.id, reference: key };
  const client = createBillingClient(deps);
  const teamId = owed.spend?.team_external_id ?? team.external_id;
  if (owed.spend) {
    const confirmed = await confirmSpend(client, owed.reference, owed.spend, context);
    if (confirmed === 'pending') {
      await deferOwedSendRefund(key);
      return 'pending';
    }
    if (confirmed === 'not_charged') {
      await clearOwedSendRefund(key);
      return 'settled';
    }
  }
  const part = owed.part ? { refundReference: owed.part.refund_reference, amount: owed.part.amount } : {};
  const result = await client.refund({ teamId, reference: owed.reference, ...part });
  faultPoint('send-refund:asked', [team.id]);
  if (result.outcome === 'nothing_left') {
    // A final answer: the spend has less left than this part (given back already), so nothing more is owed.
    logger.warn('send refund refused: nothing of the spend is left to give back; no longer owed', {
      ...context,
      error: result.detail,
    });
  } else if (result.outcome === 'unavailable') {
    logger.error('refund of a failed send did not go through; it stays owed for the billing sweep', {
      ...context,
      error: result.error.message,
    });
    await deferOwedSendRefund(key);
    return 'pending';
  } else if (result.outcome === 'unknown_reference') {
    // Only a confirmed spend gets here (an unconfirmed one was asked for again above): it is not on the ledger.
    logger.warn('send refund: the billing service holds no spend with this reference; nothing to give back', context);
  } else {
    logger.info('failed send refunded', { ...context, transaction_id: result.transactionId });
  }
  await clearOwedSendRefund(key);
  return 'settled';
}

/**
 * Asks again for a send's spend whose answer was lost, under its reference:
 * 'charged' when it is on the ledger (the first spend, or made now),
 * 'not_charged' when the service refuses it (not on the ledger, nothing to
 * give back), 'pending' while it does not answer.
 */
async function confirmSpend(
  client: BillingServiceClient,
  reference: string,
  spend: UnconfirmedSpend,
  context: Record<string, unknown>,
): Promise<'charged' | 'not_charged' | 'pending'> {
  const result = await client.spend({
    teamId: spend.team_external_id,
    userId: spend.user_external_id,
    amount: spend.amount,
    reference,
    description: spend.description,
  });
  if (result.outcome === 'charged') {
    logger.info('unanswered send spend confirmed with the same reference', {
      ...context,
      transaction_id: result.transactionId,
    });
    return 'charged';
  }
  if (result.outcome === 'insufficient') {
    logger.warn('unanswered send spend was not on the ledger and is refused now; nothing to give back', {
      ...context,
      balance: result.balance,
    });
    return 'not_charged';
  }
  logger.error('unanswered send spend still unconfirmed; its refund stays owed for the billing sweep', {
    ...context,
    reason: result.error.reason,
    status: result.error.status,
    error: result.error.message,
  });
  return 'pending';
}
