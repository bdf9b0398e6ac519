/**
 * Insured link rules (spec: Insured link, adjuster side and public; Public
 * surfaces; States > Insured link lifecycle; Events > Inbound webhook from the
 * mail service). Pure: the clock and keys are passed in.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Only this digest of a link's token is stored; the token itself lives only in the emailed URL. */
export const linkTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** A token is 32 random bytes, base64url: 43 characters of [A-Za-z0-9_-]. Anything else is not one. */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export type LinkState = 'live' | 'revoked' | 'expired';

/** Revoked wins over expired; a link past its expiry is expired even if never opened. */
export function linkState(link: { revoked_at: string | null; expires_at: string }, now: Date): LinkState {
  if (link.revoked_at) return 'revoked';
  return Date.parse(link.expires_at) <= now.getTime() ? 'expired' : 'live';
}

export function linkExpiry(now: Date, ttlDays: number): string {
  return new Date(now.getTime() + ttlDays * 86_400_000).toISOString();
}

/** The homeowner's URL: the app's origin with the token in the path. */
export function insuredLinkUrl(appBaseUrl: string, token: string): string {
  return `${appBaseUrl.trim().replace(/\/+$/, '')}/insured/${token}`;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The invitation mail: who asked, for which claim, the link and how long it works. */
export function invitationMail(input: {
  url: string;
  claimNumber: string;
  insuredName: string | null;
  adjusterName: string;
  expiresAt: string;
}): { subject: string; text: string } {
  const greeting = input.insuredName ? `Hello ${input.insuredName},` : 'Hello,';
  const until = input.expiresAt.slice(0, 10);
  return {
    subject: `Your contents inventory for claim ${input.claimNumber}`,
    text: [
      greeting,
      '',
      `${input.adjusterName} has asked you to list the contents for claim ${input.claimNumber}.`,
      'Open the link below to add rooms, photos with notes, a walkthrough video or a voice note, and items you type in.',
      '',
      input.url,
      '',
      `The link works until ${until}. Keep it private: anyone with it can add to your inventory.`,
    ].join('\n'),
  };
}

/** Mail events the link records, from the mail service's event names. */
export type MailEventKind = 'delivered' | 'opened' | 'clicked' | 'failed';

export function mailEventKind(event: unknown): MailEventKind | null {
  return event === 'delivered' || event === 'opened' || event === 'clicked' || event === 'failed' ? event : null;
}

/** How long a signed mail event stays acceptable: an older one is a replay. */
export const MAIL_EVENT_MAX_AGE_SECONDS = 15 * 60;

/**
 * The mail service's webhook signature: HMAC-SHA256 of timestamp + token with
 * the signing key, hex. Compared in constant time; a missing key rejects all,
 * and a timestamp out of the window is refused.
 */
export function mailEventSignatureValid(
  signature: { timestamp?: unknown; token?: unknown; signature?: unknown },
  signingKey: string,
  now: Date,
): boolean {
  if (!signingKey) return false;
  const { timestamp, token, signature: given } = signature;
  if (typeof timestamp !== 'string' || typeof token !== 'string' || typeof given !== 'string') return false;
  const seconds = Number(timestamp);
  if (!Number.isFinite(seconds) || Math.abs(now.getTime() / 1000 - seconds) > MAIL_EVENT_MAX_AGE_SECONDS) return false;
  const expected = createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest();
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The mail service's message id without its angle brackets (events carry it bare). */
export const bareMessageId = (id: string) => id.trim().replace(/^<|>$/g, '');

/** True while a submit round is being handed over (started, its jobs not all made yet). */
export const submitProcessing = (link: { submit_round?: number; submitted_round?: number }) =>
  (link.submitted_round ?? 0) < (link.submit_round ?? 0);
