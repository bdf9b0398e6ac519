/**
 * How a public request reaches its link (spec: Insured link, public; Public
 * surfaces; Insured link limits > rate limits). The token in the path is the
 * credential: a malformed, unknown, revoked or expired one answers the same
 * 404, and nothing here answers 401.
 *
 * Rate limits: reads, writes and uploads per token per minute, and requests
 * with a bad token per client IP per minute (so guessing tokens is slow),
 * answered 429 with Retry-After. The counters are DynamoDB rows shared by
 * every Lambda instance: one limit for the whole service, where per-process
 * counters would allow N times the rate with N processes.
 */
import { settings as currentSettings, type Settings } from '../config';
import { takeRateSlot } from '../db/rate-window';
import { NotFoundError, RateLimitedError } from '../errors';
import { LINK_TOKEN_PATTERN, linkState, linkTokenHash } from './rules';
import { findLinkByTokenHash } from './store';
import type { InsuredLink } from './link-record-rules';

export const LINK_NOT_FOUND = 'Link not found';

/** What a public request counts against: its token's read, write or upload budget. */
export type PublicRequestKind = 'read' | 'write' | 'upload';

/** Who is asking: the client's IP (for the bad-token limit) and the clock. */
export interface PublicCaller {
  ip?: string | null;
  now?: Date;
  config?: Settings;
}

const LIMIT_OF: Record<PublicRequestKind, keyof Settings> = {
  read: 'INSURED_RATE_LIMIT_READS_PER_MINUTE',
  write: 'INSURED_RATE_LIMIT_WRITES_PER_MINUTE',
  upload: 'INSURED_RATE_LIMIT_UPLOADS_PER_MINUTE',
};

const SLOW_DOWN = 'Too many requests on this link; wait a moment and try again.';

async function spend(scope: string, key: string, limitPerMinute: number, now: Date): Promise<void> {
  const slot = await takeRateSlot({ scope, key, limitPerMinute, now });
  if (!slot.allowed) throw new RateLimitedError(SLOW_DOWN, slot.retryAfterSeconds);
}

/** The live link a token opens; the same 404 (or 429 past the bad-token limit) for anything else. */
async function liveLink(token: string, now: Date): Promise<InsuredLink | null> {
  if (!LINK_TOKEN_PATTERN.test(token)) return null;
  const link = await findLinkByTokenHash(linkTokenHash(token));
  return link && linkState(link, now) === 'live' ? link : null;
}

/**
 * The link of a public request, after its rate limit: the token's budget for
 * this kind of request, or the client IP's bad-token budget when the token
 * opens nothing (429 once spent, 404 before).
 */
export async function openLink(token: string, kind: PublicRequestKind, caller: PublicCaller = {}) {
  const now = caller.now ?? new Date();
  const config = caller.config ?? currentSettings();
  const link = await liveLink(token, now);
  if (!link) {
    await spend(
      'insured-unknown-token',
      caller.ip || 'unknown',
      config.INSURED_RATE_LIMIT_UNKNOWN_TOKEN_PER_MINUTE,
      now,
    );
    throw new NotFoundError(LINK_NOT_FOUND);
  }
  await spend(`insured-${kind}`, link.id, Number(config[LIMIT_OF[kind]]), now);
  return link;
}
