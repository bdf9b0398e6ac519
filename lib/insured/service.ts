/**
 * The insured link (spec: Insured link, adjuster side and public; Public
 * surfaces; Events > Inbound webhook from the mail service).
 *
 * Adjuster side: an invitation makes a link for one claim and mails its URL
 * (32 random bytes, base64url, in the path); only the token's SHA-256 is
 * stored. Re-inviting an address that has a live link, and resend, rotate
 * that link's token and mail the new URL: the old URL stops working, drafts
 * stay. Revoke shuts the link on its next request.
 *
 * Public side: the token is the credential. Unknown, revoked and expired
 * tokens all answer the same 404, and nothing here ever answers 401 (the
 * frontend signs a user out on a 401).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity-rules';
import { getClaim } from '../claims/store';
import { settings as currentSettings, type Settings } from '../config';
import { NotFoundError } from '../errors';
import { MailClient } from '../integrations/mail';
import { logger } from '../observability/logger';
import { loadClaimForTeam } from '../claims/access-service';
import { LINK_NOT_FOUND, openLink, type PublicCaller } from './access-service';
import {
  bareMessageId,
  insuredLinkUrl,
  invitationMail,
  linkExpiry,
  linkState,
  linkTokenHash,
  MAIL_EVENT_MAX_AGE_SECONDS,
  mailEventKind,
  mailEventSignatureValid,
  normalizeEmail,
  submitProcessing,
} from './rules';
import type { mailEventBody } from './schemas';
import {
  findLinkIdByMessageId,
  getInsuredLink,
  listClaimInsuredLinks,
  listInsuredRooms,
  markMailEventSeen,
  putLinkMailRow,
  putInsuredRoomOnce,
  putNewInsuredLink,
  recordLinkOpened,
  rotateLinkToken,
  updateInsuredLink,
} from './store';
import type { InsuredLink } from './link-record-rules';
import { draftFileView, draftItemView, insuredLinkView } from './view';
import { linkCeilings } from './draft-rules';
import { listDraftFiles, listDraftItems } from './draft-store';

export interface InsuredDeps {
  config?: Settings;
  now?: Date;
}

const newToken = () => randomBytes(32).toString('base64url');

/** Mails the link's URL when mail is configured; whether it went. A failed mail is logged, never raised. */
async function mailInvitation(
  link: InsuredLink,
  token: string,
  adjusterName: string,
  config: Settings,
): Promise<{ sent: boolean; notConfigured: boolean }> {
  const client = MailClient.fromSettings(config);
  if (!client.isConfigured) return { sent: false, notConfigured: true };
  const claim = await getClaim(link.claim_id);
  const mail = invitationMail({
    url: insuredLinkUrl(config.PUBLIC_APP_BASE_URL, token),
    claimNumber: claim?.claim_number ?? '',
    insuredName: claim?.insured_name ?? null,
    adjusterName,
    expiresAt: link.expires_at,
  });
  try {
    const sent = await client.send({ to: link.insured_email, ...mail });
    const messageId = bareMessageId(sent.id);
    await putLinkMailRow(messageId, link.id);
    await updateInsuredLink(link.id, { mail_message_id: messageId, mail_sent_at: new Date().toISOString() });
    return { sent: true, notConfigured: false };
  } catch (err) {
    logger.error('insured link invitation mail failed', {
      link_id: link.id,
      error: err instanceof Error ? err.message : String(err),
    });
    return { sent: false, notConfigured: false };
  }
}

/** GET /api/claims/{claim_id}/insured-links: the claim's invitations, newest first. */
export async function listInsuredLinks(identity: Identity, claimId: string) {
  const claim = await loadClaimForTeam(identity, claimId);
  const links = await listClaimInsuredLinks(claim.id);
  return { links: links.map((l) => insuredLinkView(l)) };
}

/** POST /api/claims/{claim_id}/insured-links: invite an address, or resend its live link. */
export async function createInsuredLink(
  identity: Identity,
  claimId: string,
  body: { email: string },
  deps: InsuredDeps = {},
) {
  const config = deps.config ?? currentSettings();
  const now = deps.now ?? new Date();
  const claim = await loadClaimForTeam(identity, claimId);
  const email = normalizeEmail(body.email);
  const live = (await listClaimInsuredLinks(claim.id)).find(
    (l) => l.insured_email === email && linkState(l, now) === 'live',
  );
  if (live) return { ...(await rotateAndMail(identity, live, config)), resent: true };

  const token = newToken();
  const at = now.toISOString();
  const link: InsuredLink = {
    id: randomUUID(),
    claim_id: claim.id,
    team_id: claim.team_id,
    token_hash: linkTokenHash(token),
    insured_email: email,
    invited_by_user_id: identity.user.id,
    created_at: at,
    expires_at: linkExpiry(now, config.INSURED_LINK_TTL_DAYS),
    revoked_at: null,
    insured_name: null,
    opened_at: null,
    last_opened_at: null,
    open_count: 0,
    mail_message_id: null,
    mail_sent_at: null,
    delivered_at: null,
    mail_opened_at: null,
    mail_clicked_at: null,
    mail_failed_at: null,
    submitted_at: null,
    updated_at: at,
  };
  await putNewInsuredLink(link);
  const mail = await mailInvitation(link, token, identity.user.name, config);
  return {
    link: insuredLinkView((await getInsuredLink(link.id)) ?? link, now),
    url: insuredLinkUrl(config.PUBLIC_APP_BASE_URL, token),
    mail_sent: mail.sent,
    not_configured: mail.notConfigured,
    resent: false,
  };
}

async function rotateAndMail(identity: Identity, link: InsuredLink, config: Settings) {
  const token = newToken();
  const rotated = await rotateLinkToken(link, linkTokenHash(token), {});
  if (!rotated) throw new NotFoundError('The link changed while it was being resent; try again.');
  const mail = await mailInvitation(rotated, token, identity.user.name, config);
  return {
    link: insuredLinkView((await getInsuredLink(link.id)) ?? rotated),
    url: insuredLinkUrl(config.PUBLIC_APP_BASE_URL, token),
    mail_sent: mail.sent,
    not_configured: mail.notConfigured,
  };
}

async function loadLinkForTeam(identity: Identity, linkId: string): Promise<InsuredLink> {
  const link = await getInsuredLink(linkId);
  if (!link) throw new NotFoundError(LINK_NOT_FOUND);
  // Team scoping through the link's claim: another team's link is the same 404.
  await loadClaimForTeam(identity, link.claim_id).catch(() => {
    throw new NotFoundError(LINK_NOT_FOUND);
  });
  return link;
}

/** POST /api/insured-links/{link_id}/resend: a new token (the old URL stops working), mailed again; drafts stay. */
export async function resendInsuredLink(identity: Identity, linkId: string, deps: InsuredDeps = {}) {
  const config = deps.config ?? currentSettings();
  const link = await loadLinkForTeam(identity, linkId);
  return { ...(await rotateAndMail(identity, link, config)), resent: true };
}

/** POST /api/insured-links/{link_id}/revoke: the link answers 404 from its next request; submitted work stays. */
export async function revokeInsuredLink(identity: Identity, linkId: string) {
  const link = await loadLinkForTeam(identity, linkId);
  const revoked = link.revoked_at ? link : await updateInsuredLink(link.id, { revoked_at: new Date().toISOString() });
  if (!revoked) throw new NotFoundError(LINK_NOT_FOUND);
  return insuredLinkView(revoked);
}

/** GET /api/public/insured/{token}: the wizard's state; records the open. */
export async function showInsuredWizard(token: string, caller: PublicCaller = {}) {
  const now = caller.now ?? new Date();
  const link = await openLink(token, 'read', caller);
  const claim = await getClaim(link.claim_id);
  if (!claim) throw new NotFoundError(LINK_NOT_FOUND);
  await recordLinkOpened(link.id, now.toISOString());
  return wizardState(token, link, claim);
}

/** The wizard's state: the claim, the homeowner, the draft rooms with their files and typed rows, and the ceilings. */
async function wizardState(
  token: string,
  link: InsuredLink,
  claim: { claim_number: string; insured_name: string | null },
) {
  const [rooms, files, items] = await Promise.all([
    listInsuredRooms(link.id),
    listDraftFiles(link.id),
    listDraftItems(link.id),
  ]);
  const shown = files.filter((f) => f.status !== 'aborted' && f.status !== 'expired');
  const ceilings = linkCeilings(currentSettings());
  const limit = (n: number) => (Number.isFinite(n) ? n : null);
  return {
    claim: { claim_number: claim.claim_number, insured_name: claim.insured_name },
    insured_email: link.insured_email,
    insured_name: link.insured_name,
    expires_at: link.expires_at,
    submitted_at: link.submitted_at,
    submit_processing: submitProcessing(link),
    rooms: rooms.map((r) => ({
      id: r.id,
      name: r.name,
      created_at: r.created_at,
      files: shown.filter((f) => f.room_id === r.id).map((f) => draftFileView(token, f)),
      items: items
        .filter((i) => i.room_id === r.id)
        .map((i) =>
          draftItemView(
            token,
            i,
            shown.filter((f) => f.item_id === i.id),
          ),
        ),
    })),
    usage: {
      bytes_used: link.bytes_reserved ?? 0,
      bytes_limit: limit(ceilings.totalBytes),
      files: link.files_count ?? 0,
      files_limit: limit(ceilings.files),
      items: link.items_count ?? 0,
      items_limit: limit(ceilings.items),
      photo_max_bytes: limit(ceilings.photoBytes),
      media_max_bytes: limit(ceilings.mediaBytes),
    },
  };
}

/** POST .../{token}/identify: the homeowner's name, shown to the adjuster. Never a gate: nothing requires it. */
export async function setInsuredName(token: string, body: { name: string }, caller: PublicCaller = {}) {
  const link = await openLink(token, 'write', caller);
  const updated = await updateInsuredLink(link.id, { insured_name: body.name });
  const claim = await getClaim(link.claim_id);
  if (!updated || !claim) throw new NotFoundError(LINK_NOT_FOUND);
  return wizardState(token, updated, claim);
}

/** POST .../{token}/rooms: adds a room to the homeowner's draft; a name the draft has (any case) answers that room. */
export async function addInsuredRoom(token: string, body: { name: string }, caller: PublicCaller = {}) {
  const now = caller.now ?? new Date();
  const link = await openLink(token, 'write', caller);
  const { room, created } = await putInsuredRoomOnce({
    id: randomUUID(),
    link_id: link.id,
    name: body.name,
    created_at: now.toISOString(),
  });
  return { id: room.id, name: room.name, created_at: room.created_at, created };
}

type MailEventBody = import('zod').output<typeof mailEventBody>;

const MAIL_EVENT_FIELD = {
  delivered: 'delivered_at',
  opened: 'mail_opened_at',
  clicked: 'mail_clicked_at',
  failed: 'mail_failed_at',
} as const;

/**
 * POST /api/public/insured/mail-events: a delivery, open or click of an
 * invitation. The signature is checked before anything is read; without a
 * signing key every call is refused. A signature seen before (a replay) is
 * accepted without effect. Events for mail this service did not send are ignored.
 */
export async function recordMailEvent(body: MailEventBody, deps: InsuredDeps = {}) {
  const config = deps.config ?? currentSettings();
  const now = deps.now ?? new Date();
  if (!mailEventSignatureValid(body.signature, config.MAIL_WEBHOOK_SIGNING_KEY, now)) {
    throw new NotFoundError('Not found');
  }
  const fresh = await markMailEventSeen(
    body.signature.token,
    Math.floor(now.getTime() / 1000) + 2 * MAIL_EVENT_MAX_AGE_SECONDS,
  );
  if (!fresh) return { recorded: false, reason: 'replay' };
  const kind = mailEventKind(body['event-data'].event);
  const messageId = body['event-data'].message?.headers['message-id'];
  if (!kind || !messageId) return { recorded: false, reason: 'ignored' };
  const linkId = await findLinkIdByMessageId(bareMessageId(messageId));
  const link = linkId ? await getInsuredLink(linkId) : null;
  if (!link) return { recorded: false, reason: 'ignored' };
  const field = MAIL_EVENT_FIELD[kind];
  if (!link[field]) await updateInsuredLink(link.id, { [field]: now.toISOString() });
  return { recorded: true, reason: kind };
}
