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
 * have charged: it is reported as charged but unconfirmed, so a failure of the
 * send refunds it (a refund of a reference the service never charged is a no-op).
 */
import { settings as currentSettings } from '../config';
import { logger } from '../observability/logger';
import { getTeam, type Team } from '../teams/store';
import type { User } from '../users/store';
import { insufficientCredits, prepaidMode } from './credit-rules';
import {
  clearOwedSendRefund,
  deferOwedSendRefund,
  getOwedSendRefund,
  type OwedSendRefund,
  owedRefundKey,
  recordOwedSendRefund,
} from './send-refund-store';
import { type BillingDeps, createBillingClient } from './settlement-service';

export type SendChargeOutcome =
  | { charged: true; credits: number; reference: string; unconfirmed: boolean }
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
        ? 'billing service did not answer the send spend; it may have charged: the send proceeds and a failure refunds the reference'
        : 'billing service unavailable; failing open, send proceeds uncharged',
      { ...context, reason: result.error.reason, error: result.error.message },
    );
    return lost
      ? { charged: true, credits: amount, reference, unconfirmed: true }
      : { charged: false, credits: 0, reason: 'unavailable' };
  }
  logger.info('send charged', { ...context, transaction_id: result.transactionId, balance: result.balance });
  return { charged: true, credits: amount, reference, unconfirmed: false };
}

/**
 * Gives a failed send's spend back: records the refund as owed first (a row
 * in the pending-billing index), then asks the service. True when the service
 * confirmed it; otherwise it stays owed and the billing sweep asks again until
 * it does, so a retry of the send under its next round's reference never
 * leaves the team paying twice. Never raises.
 */
export async function refundSend(
  input: { team: Pick<Team, 'id' | 'external_id'>; reference: string },
  deps: BillingDeps = {},
): Promise<boolean> {
  const { team, reference } = input;
  const teamId = team.external_id;
  if (teamId === null || teamId === undefined) return false;
  try {
    await recordOwedSendRefund(team.id, reference);
    return (await askSendRefund({ id: team.id, external_id: teamId }, { reference }, deps)) === 'settled';
  } catch (err) {
    logger.error('refund of a failed send failed; the billing sweep retries it if it was recorded', {
      team_id: team.id,
      reference,
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}

/**
 * Asks for a send refund recorded as owed together with the failure it is
 * for (a failed send, or an item of one that failed for good;
 * submission-store.ts, submission-item-store.ts): true once confirmed;
 * otherwise the billing sweep asks again. Never raises.
 */
export async function requestOwedSendRefund(
  team: Pick<Team, 'id' | 'external_id'>,
  owed: Pick<OwedSendRefund, 'reference' | 'part'>,
  deps: BillingDeps = {},
): Promise<boolean> {
  if (team.external_id === null || team.external_id === undefined) return false;
  try {
    return (await askSendRefund({ id: team.id, external_id: team.external_id }, owed, deps)) === 'settled';
  } catch (err) {
    logger.error('refund of a failed send failed; the billing sweep retries it', {
      team_id: team.id,
      reference: owedRefundKey(owed),
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}

/** The billing sweep's part: asks again for the send refund owed under `key` ('settled' when none is). */
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
 * Asks the service for an owed send refund (all of the charge, or its part).
 * 'settled' once it answered (the refund, or a reference it never charged:
 * nothing to give back) and the owed row is gone; 'pending' while it does not answer.
 */
async function askSendRefund(
  team: { id: string; external_id: number },
  owed: Pick<OwedSendRefund, 'reference' | 'part'>,
  deps: BillingDeps,
): Promise<'settled' | 'pending'> {
  const key = owedRefundKey(owed);
  const part = owed.part ? { refundReference: owed.part.refund_reference, amount: owed.part.amount } : {};
  const result = await createBillingClient(deps).refund({
    teamId: team.external_id,
    reference: owed.reference,
    ...part,
  });
  if (result.outcome === 'unavailable') {
    logger.error('refund of a failed send did not go through; it stays owed for the billing sweep', {
      team_id: team.id,
      reference: key,
      error: result.error.message,
    });
    await deferOwedSendRefund(key);
    return 'pending';
  }
  await clearOwedSendRefund(key);
  logger.info('failed send refunded', { team_id: team.id, reference: key, outcome: result.outcome });
  return 'settled';
}
