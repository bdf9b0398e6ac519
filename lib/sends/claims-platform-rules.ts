/**
 * The claims platform send, as pure rules (spec: Claims platform send, rules
 * 1-8; Limits > Credit prices, rules 6, 8 and 9). No I/O.
 */
import { createHash } from 'node:crypto';
import type { Claim } from '../claims/claim-record-rules';
import type { Settings } from '../config';
import { ConflictError, type DomainError, RemoteFailureError } from '../errors';
import type { PlatformClaimFields, PlatformItemFields, PlatformPhoto } from '../integrations/claims-platform';
import type { InventoryItem, ItemPhoto } from '../inventory/item-record-rules';
import { compact, itemQuantity, itemTitle, present, publicPhotoUrls } from './payload-rules';

export const NO_TEAM_TOKEN =
  'This team has no claims platform token: sign in again from the claims platform, or ask an administrator.';
export const CLAIMS_PLATFORM_NOT_CONFIGURED = 'The claims platform is not configured: no API base URL is set.';
export const SEND_IN_PROGRESS = 'A claims platform send is already starting for this claim; try again in a moment.';
export const NOTHING_TO_SUBMIT = 'Nothing to submit: every active item of the selected rooms has been submitted.';

/** The token a send authenticates with: the team's, else the optional global bearer token (rule 1). */
export function sendToken(teamToken: string | null, globalBearer: string): string | null {
  return teamToken?.trim() || globalBearer.trim() || null;
}

/**
 * The lease of a send's request on its run (lib/config: CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS), longer than an HTTP
 * function may run (29 s): a live request never loses it, and a dead one's send is failed by the watchdog after it.
 */
export const requestLeaseMs = (config: Pick<Settings, 'CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS'>) =>
  config.CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS * 1000;

/**
 * Rule 3: items of the selected rooms (all rooms when none are named) that
 * are active and not yet submitted; archived rooms are never selected.
 */
export function itemsToSubmit<
  T extends Pick<InventoryItem, 'room_id' | 'is_archived' | 'claims_platform_submitted_at'>,
>(activeItems: T[], roomIds: string[] | null | undefined): T[] {
  const rooms = roomIds && roomIds.length > 0 ? new Set(roomIds) : null;
  return activeItems.filter(
    (i) => !i.is_archived && !i.claims_platform_submitted_at && (!rooms || rooms.has(i.room_id)),
  );
}

/**
 * Limits rule 6: the charge key counts the claim's items already submitted,
 * so each batch has its own; a later round of the same count (after a
 * refunded failure) adds :r<round>, so a reference is never used twice.
 */
export function submissionChargeKey(claimId: string, alreadySubmitted: number, round: number): string {
  const base = `as-send:${claimId}:${alreadySubmitted}`;
  return round > 1 ? `${base}:r${round}` : base;
}

/** The refund of one item's credit when it failed for good: its own key at the billing service, so it lands once. */
export function itemRefundReference(chargeKey: string, itemId: string): string {
  return `${chargeKey}:item:${itemId}`;
}

/** Rule 6: the adjuster id travels only for a legacy integer external id; a UUID user omits it. */
export function adjusterIdOf(externalId: string | null | undefined): number | undefined {
  if (!externalId || !/^\d{1,15}$/.test(externalId)) return undefined;
  return Number(externalId);
}

export function remoteClaimFields(
  claim: Pick<
    Claim,
    'claim_number' | 'insured_name' | 'loss_type' | 'coverage_type' | 'claim_type' | 'zip_code' | 'adjuster_name'
  >,
  sender: { external_id: string | null },
  profiles: { shopping_profile_id?: string | null; depreciation_profile_id?: string | null },
): PlatformClaimFields {
  return compact({
    claim_number: claim.claim_number,
    insured_name: present(claim.insured_name),
    loss_type: present(claim.loss_type),
    coverage_type: claim.coverage_type ?? undefined,
    claim_type: claim.claim_type ?? undefined,
    zip_code: present(claim.zip_code),
    adjuster_name: present(claim.adjuster_name),
    adjuster_id: adjusterIdOf(sender.external_id),
    shopping_profile_id: present(profiles.shopping_profile_id),
    depreciation_profile_id: present(profiles.depreciation_profile_id),
  });
}

export function remoteItemFields(
  item: Pick<
    InventoryItem,
    | 'room_id'
    | 'name'
    | 'quantity'
    | 'brand'
    | 'sku'
    | 'condition'
    | 'age'
    | 'notes'
    | 'estimated_price'
    | 'model'
    | 'serial'
    | 'damage'
    | 'item_number'
  >,
): PlatformItemFields {
  return compact({
    room_external_id: item.room_id,
    title: itemTitle(item),
    quantity: itemQuantity(item),
    brand: present(item.brand),
    sku: present(item.sku),
    condition: present(item.condition),
    age: present(item.age),
    description: present(item.notes),
    estimated_price: typeof item.estimated_price === 'number' ? item.estimated_price : undefined,
    model: present(item.model),
    serial: present(item.serial),
    damage: present(item.damage),
    item_number: item.item_number || undefined,
  });
}

/** Photos by URL, primary first; none without a public base URL (the platform could not fetch a path). */
export function remotePhotos(
  photos: Pick<ItemPhoto, 'id' | 'job_id' | 'filename' | 'is_primary' | 'ordering'>[],
  publicBaseUrl: string,
): (PlatformPhoto & { external_id: string })[] {
  return publicPhotoUrls(photos, publicBaseUrl).map(({ photo, url }, i) => ({
    external_id: photo.id,
    url,
    is_primary: i === 0,
  }));
}

/** Rule 4: any remote rejection or unreachability is 502. */
export function claimsPlatformFailure(detail: string): DomainError {
  return new RemoteFailureError(`The claims platform refused or did not answer the submission: ${detail}`);
}

/** The missing settings that stop a send before any network call (409). */
export function sendRefusal(input: { baseUrl: string; token: string | null }): DomainError | null {
  if (!input.baseUrl.trim()) return new ConflictError(CLAIMS_PLATFORM_NOT_CONFIGURED);
  if (!input.token) return new ConflictError(NO_TEAM_TOKEN);
  return null;
}

/** The training dry run's stand-in claim key: stable per claim, never a real key. */
export function dryRunClaimKey(claimId: string): string {
  return `TRAINING-${createHash('sha256').update(`claims-platform:${claimId}`).digest('hex').slice(0, 10).toUpperCase()}`;
}

/** CLAIMS_PLATFORM_APP_URL's deep link to a remote claim; null when unset (rendered as plain text). */
export function claimDeepLink(appUrl: string, claimKey: string | null): string | null {
  const base = appUrl.trim().replace(/\/+$/, '');
  return base && claimKey ? `${base}/lkq/${encodeURIComponent(claimKey)}` : null;
}
