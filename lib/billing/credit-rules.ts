/**
 * Credit rules (spec: Limits > Credit prices and charging; Events > Outbound
 * signals, Revenue). Pure functions: no I/O beyond reading settings and one log
 * line when prepaid mode is misconfigured.
 *
 * - Time is rounded UP to whole blocks of BILLING_BLOCK_SECONDS (20 s is 1
 *   block, 25 s is 2, 90 s is 5). A missing or zero duration is 0 blocks.
 * - Video costs COST_PER_VIDEO_BLOCK per block, audio COST_PER_AUDIO_BLOCK per
 *   block, photo COST_PER_PHOTO_REQUEST per AI request. Named (user-described)
 *   groups make no AI call, so the caller passes only the requests that reach
 *   the AI (and, at finalize, only the ones that succeeded: a failed AI request
 *   is never billed).
 * - Enterprise teams and training claims are charged 0 credits; the blocks are
 *   still computed so the job records the basis.
 * - Credits are whole: a fractional price is rounded up to the next credit.
 * - Prices are read when the charge is computed, so a rate change applies only
 *   to jobs charged or finalized after it.
 */
import type * as z from 'zod';
import { settings as currentSettings, type Settings } from '../config';
import { InsufficientCreditsError } from '../errors';
import type { insufficientCreditsBody } from '../http/schemas';
import type { SourceType } from '../jobs/job-rules';
import { logger } from '../observability/logger';
import type { Team } from '../teams/team-record-rules';

/** Settings the credit rules read. */
export type CreditSettings = Pick<
  Settings,
  'BILLING_BLOCK_SECONDS' | 'COST_PER_VIDEO_BLOCK' | 'COST_PER_AUDIO_BLOCK' | 'COST_PER_PHOTO_REQUEST'
>;

/** Float noise guard: 60.000000000001 s is still 3 blocks of 20 s. */
const EPSILON = 1e-9;

const ceilWhole = (value: number) => Math.max(0, Math.ceil(value - EPSILON));

/** Whole blocks, rounded up; 0 for a missing, zero, negative or non-finite duration. */
export function billedBlocks(seconds: number | null | undefined, blockSeconds: number): number {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  if (!Number.isFinite(blockSeconds) || blockSeconds <= 0)
    throw new RangeError(`blockSeconds must be positive (got ${blockSeconds})`);
  return ceilWhole(seconds / blockSeconds);
}

/** Whole minutes, rounded up; informational only (billed_minutes). */
export function billedMinutes(seconds: number | null | undefined): number {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  return ceilWhole(seconds / 60);
}

export interface JobChargeInput {
  sourceType: SourceType;
  /** Video/audio length in seconds (Job.duration); ignored for photos. */
  durationSeconds?: number | null;
  /** Photo jobs: AI requests to bill (one per group that reaches the AI; described/named groups excluded). */
  photoRequests?: number | null;
  /** The team's enterprise flag: every charge is exempt. */
  enterprise?: boolean;
  /** A training claim: never charged. */
  training?: boolean;
  /** Prices in force; defaults to the current settings. */
  settings?: CreditSettings;
}

export interface JobCharge {
  /** Whole credits to charge (billed_cost_usd; the field name is historical). */
  credits: number;
  /** The basis of the charge (billed_blocks): time blocks for video/audio, AI requests for photos. */
  blocks: number;
  /** Whole minutes, rounded up; informational (billed_minutes). 0 for photos. */
  minutes: number;
}

/** What a job costs under the given (default: current) prices. */
export function jobCharge(input: JobChargeInput): JobCharge {
  const config = input.settings ?? currentSettings();
  let blocks: number;
  let perBlock: number;
  let minutes = 0;
  switch (input.sourceType) {
    case 'video':
      blocks = billedBlocks(input.durationSeconds, config.BILLING_BLOCK_SECONDS);
      perBlock = config.COST_PER_VIDEO_BLOCK;
      minutes = billedMinutes(input.durationSeconds);
      break;
    case 'audio':
      blocks = billedBlocks(input.durationSeconds, config.BILLING_BLOCK_SECONDS);
      perBlock = config.COST_PER_AUDIO_BLOCK;
      minutes = billedMinutes(input.durationSeconds);
      break;
    case 'photo': {
      const requests = input.photoRequests ?? 0;
      blocks = Number.isFinite(requests) && requests > 0 ? Math.floor(requests) : 0;
      perBlock = config.COST_PER_PHOTO_REQUEST;
      break;
    }
    default:
      throw new RangeError(`unknown source type ${String(input.sourceType)}`);
  }
  const exempt = Boolean(input.enterprise || input.training);
  const credits = exempt ? 0 : ceilWhole(blocks * Math.max(0, perBlock));
  return { credits, blocks, minutes };
}

/** Dollars per credit for a team: its credit_rate, else DEFAULT_TEAM_CREDIT_RATE. */
export function teamCreditRate(
  team: Pick<Team, 'credit_rate'> | null | undefined,
  config: Pick<Settings, 'DEFAULT_TEAM_CREDIT_RATE'> = currentSettings(),
): number {
  const rate = team?.credit_rate;
  return typeof rate === 'number' && Number.isFinite(rate) ? rate : config.DEFAULT_TEAM_CREDIT_RATE;
}

/**
 * Revenue in dollars for the chat message: credits used times the team's
 * credit rate (else DEFAULT_TEAM_CREDIT_RATE). Rounded to 6 decimals only to
 * drop float noise (3 × 0.15 is 0.45, not 0.44999…); format it for display at
 * the edge.
 */
export function revenueUsd(
  credits: number,
  team: Pick<Team, 'credit_rate'> | null | undefined,
  config: Pick<Settings, 'DEFAULT_TEAM_CREDIT_RATE'> = currentSettings(),
): number {
  if (!Number.isFinite(credits) || credits <= 0) return 0;
  return Math.round(credits * teamCreditRate(team, config) * 1e6) / 1e6;
}

export type PrepaidSettings = Pick<Settings, 'ENABLE_BILLING' | 'BILLING_APP_DOMAIN' | 'BILLING_APP_API_KEY'>;

export interface PrepaidMode {
  /** True only with ENABLE_BILLING on and both BILLING_APP_DOMAIN and BILLING_APP_API_KEY set. */
  active: boolean;
  /** off: ENABLE_BILLING false. config_gap: on, but a required setting is empty (fail open). */
  reason: 'active' | 'off' | 'config_gap';
  /** Names (never values) of the missing settings. */
  missing: ('BILLING_APP_DOMAIN' | 'BILLING_APP_API_KEY')[];
}

/** Whether prepaid mode is in force, and why not. Pure; see prepaidBillingActive for the logging variant. */
export function prepaidMode(config: PrepaidSettings = currentSettings()): PrepaidMode {
  if (!config.ENABLE_BILLING) return { active: false, reason: 'off', missing: [] };
  const missing: PrepaidMode['missing'] = [];
  if (!config.BILLING_APP_DOMAIN.trim()) missing.push('BILLING_APP_DOMAIN');
  if (!config.BILLING_APP_API_KEY.trim()) missing.push('BILLING_APP_API_KEY');
  return missing.length
    ? { active: false, reason: 'config_gap', missing }
    : { active: true, reason: 'active', missing };
}

/**
 * Prepaid mode on? With ENABLE_BILLING on but the domain or key missing, the
 * instance fails open: it answers false and logs the gap (names only).
 */
export function prepaidBillingActive(config: PrepaidSettings = currentSettings()): boolean {
  const mode = prepaidMode(config);
  if (mode.reason === 'config_gap') {
    logger.warn('billing enabled but not configured; failing open (processing proceeds uncharged)', {
      missing: mode.missing,
    });
  }
  return mode.active;
}

/** The spec's 402 body, exactly (its schema is also the OpenAPI document's). */
type InsufficientCreditsBody = z.output<typeof insufficientCreditsBody>;

/** The 402 refusal with the spec's body, in its field order. */
export function insufficientCredits(body: Omit<InsufficientCreditsBody, 'error'>): InsufficientCreditsError {
  const exact: InsufficientCreditsBody = {
    error: 'insufficient_credits',
    credits_balance: body.credits_balance,
    required_amount: body.required_amount,
    buy_url: body.buy_url,
  };
  return new InsufficientCreditsError(exact);
}
