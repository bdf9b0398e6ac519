/**
 * GET /api/billing/summary (spec: Settings, activity, billing): the team's
 * total spend in whole credits, the flat rates, and with prepaid mode on the
 * balance from the billing service and where to buy credits.
 */
import type { Identity } from '../auth/identity-rules';
import { listTeamClaims } from '../claims/store';
import { settings as currentSettings, type Settings } from '../config';
import { BillingServiceClient } from '../integrations/billing-service';
import { logger } from '../observability/logger';
import type { Team } from '../teams/team-record-rules';
import { prepaidBillingActive } from './credit-rules';

export interface BillingSummary {
  /** Whole credits the team has been billed (the name is historical). */
  total_spend_usd: number;
  /** Credits per block (video, audio) or per AI request (photo). */
  rates: { video: number; photo: number; audio: number };
  /** Length of a billing block in seconds. */
  block_seconds: number;
  billing_enabled: boolean;
  /** From the billing service; null with billing off or when it is unreachable. */
  credits_balance: number | null;
  buy_credits_url: string | null;
}

/** Sum of the spend of the team's claims, active and archived. */
async function sumTeamSpend(teamId: string): Promise<number> {
  const [active, archived] = await Promise.all([listTeamClaims(teamId, false), listTeamClaims(teamId, true)]);
  return Math.round([...active, ...archived].reduce((sum, claim) => sum + (claim.spend_credits ?? 0), 0));
}

export interface TeamCreditsBalance {
  billing_enabled: boolean;
  /** From the billing service; null with billing off, no team external id, or when it is unreachable. */
  credits_balance: number | null;
  buy_credits_url: string | null;
}

/**
 * The team's prepaid balance as the summary and the quotes show it. Never
 * throws: billing off is false/null, an unreachable service is a null balance
 * (logged).
 */
export async function getTeamCreditsBalance(
  team: Pick<Team, 'id' | 'external_id'>,
  deps: { client?: BillingServiceClient; config?: Settings } = {},
): Promise<TeamCreditsBalance> {
  const config = deps.config ?? currentSettings();
  const out: TeamCreditsBalance = { billing_enabled: false, credits_balance: null, buy_credits_url: null };
  if (!prepaidBillingActive(config)) return out;
  out.billing_enabled = true;
  if (team.external_id === null || team.external_id === undefined) return out;
  const result = await (deps.client ?? BillingServiceClient.fromSettings(config)).balance({ teamId: team.external_id });
  if (result.outcome === 'ok') {
    out.credits_balance = result.balance;
    out.buy_credits_url = result.buyUrl;
  } else {
    logger.warn('billing balance unavailable', {
      team_id: team.id,
      reason: result.error.reason,
      status: result.error.status,
      error: result.error.message,
    });
  }
  return out;
}

/** GET /api/billing/summary. */
export async function getBillingSummary(
  identity: Pick<Identity, 'team'>,
  deps: { client?: BillingServiceClient; config?: Settings } = {},
): Promise<BillingSummary> {
  const config = deps.config ?? currentSettings();
  const [total, balance] = await Promise.all([
    sumTeamSpend(identity.team.id),
    getTeamCreditsBalance(identity.team, { ...deps, config }),
  ]);
  return {
    total_spend_usd: total,
    rates: {
      video: config.COST_PER_VIDEO_BLOCK,
      photo: config.COST_PER_PHOTO_REQUEST,
      audio: config.COST_PER_AUDIO_BLOCK,
    },
    block_seconds: config.BILLING_BLOCK_SECONDS,
    ...balance,
  };
}
