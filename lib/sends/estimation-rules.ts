/**
 * The estimation platform send, as pure rules (spec: Estimation platform send:
 * the destination rule, rules 1-7, the create payload mapping, the item
 * mapping; Limits > Credit prices, rules 7-9). No I/O: the service
 * (estimation-service.ts) reads the records, calls the remote and writes.
 */
import { createHash } from 'node:crypto';
import type { Claim } from '../claims/claim-record-rules';
import { ConflictError, type DomainError, RemoteFailureError, UnprocessableError } from '../errors';
import type { InventoryItem, ItemPhoto } from '../inventory/item-record-rules';
import type {
  EstimationCatalog,
  EstimationClaimPayload,
  EstimationItem,
  EstimationItemPhoto,
} from '../integrations/estimation-platform';
import { compact, itemQuantity, itemTitle, present, publicBase, publicPhotoUrls } from './payload-rules';

type CatalogSchedule = EstimationCatalog['schedules'][number];

/** Where a send goes, decided by the server (the destination rule). */
export type Destination =
  | { mode: 'append_linked'; claim_key: string }
  | { mode: 'append_target'; claim_key: string /** Found in the firm's list before the charge. */; claim_id?: string }
  | { mode: 'create' };

/**
 * A claim already linked appends to its linked claim (a target named in the
 * request is ignored); a named target is appended to and becomes the link;
 * otherwise the send creates the remote claim.
 */
export function sendDestination(
  claim: Pick<Claim, 'estimation_claim_key'>,
  targetClaimKey: string | null | undefined,
): Destination {
  if (claim.estimation_claim_key) return { mode: 'append_linked', claim_key: claim.estimation_claim_key };
  const target = targetClaimKey?.trim();
  if (target) return { mode: 'append_target', claim_key: target };
  return { mode: 'create' };
}

export const NOTHING_NEW = 'Nothing new to send: every selected item has already been sent to the estimation platform.';

/**
 * Rule 1: only items never sent travel, whatever the caller asks. The ticked
 * ids select among them (ids of sent, archived or other claims' items are
 * ignored); without a selection every unsent item goes. Order: as given.
 */
export function itemsToSend<T extends Pick<InventoryItem, 'id' | 'estimation_sent_at' | 'is_archived'>>(
  activeItems: T[],
  selectedIds: string[] | null | undefined,
): T[] {
  const unsent = activeItems.filter((i) => !i.is_archived && !i.estimation_sent_at);
  if (!selectedIds || selectedIds.length === 0) return unsent;
  const wanted = new Set(selectedIds);
  return unsent.filter((i) => wanted.has(i.id));
}

/** An order-independent fingerprint of the item ids in a batch (rule 7's digest). */
export function batchDigest(itemIds: string[]): string {
  const sorted = [...new Set(itemIds)].sort();
  return createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 32);
}

/**
 * The charge reference of a send (Limits rule 7): ce-send:{claim_id} for the
 * claim's first send, ce-add:{claim_id}:{digest} for a later one. The billing
 * service answers a repeated reference with its first answer, also after a
 * refund or a refusal (402), so a send attempted again after a refunded or
 * refused one is a new round: round 1 carries the spec's reference, round n > 1 appends ":r<n>". The
 * claim's round only moves on (a send done keeps it), so no reference is ever
 * used twice.
 */
export function sendChargeReference(
  claim: Pick<Claim, 'id' | 'estimation_submitted_at'>,
  itemIds: string[],
  round: number,
): string {
  const base = claim.estimation_submitted_at ? `ce-add:${claim.id}:${batchDigest(itemIds)}` : `ce-send:${claim.id}`;
  return round > 1 ? `${base}:r${round}` : base;
}

/** What a send costs: sent items are free (they never travel); enterprise teams and training claims pay nothing. */
export function sendCredits(input: {
  itemCount: number;
  creditsPerItem: number;
  enterprise: boolean;
  training: boolean;
}): number {
  if (input.enterprise || input.training) return 0;
  return Math.max(0, Math.ceil(input.itemCount * input.creditsPerItem));
}

/** loss_type (human text) to the remote's lowercase peril values; anything not listed is omitted. */
const PERILS: Record<string, string> = {
  fire: 'fire',
  'fire damage': 'fire',
  smoke: 'smoke',
  'smoke damage': 'smoke',
  water: 'water',
  'water damage': 'water',
  flood: 'flood',
  flooding: 'flood',
  wind: 'wind',
  windstorm: 'wind',
  hurricane: 'wind',
  tornado: 'wind',
  hail: 'hail',
  theft: 'theft',
  burglary: 'theft',
  vandalism: 'vandalism',
  mold: 'mold',
  lightning: 'lightning',
  earthquake: 'earthquake',
  collapse: 'collapse',
};

export function perilOf(lossType: string | null): string | undefined {
  if (!lossType) return undefined;
  return PERILS[lossType.trim().toLowerCase().replace(/\s+/g, ' ')];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isUuid = (value: string | null | undefined): value is string => Boolean(value && UUID.test(value));

export interface Pricing {
  depreciation_schedule_id?: string | null;
  shopping_profile_id?: string | null;
}

/**
 * An item's photos as absolute URLs, primary first, falling back to the
 * legacy photo_path when it has no ItemPhoto rows. Empty without a public
 * base URL: the remote cannot fetch a path.
 */
export function itemPhotoLinks(
  item: Pick<InventoryItem, 'photo_path'>,
  photos: Pick<ItemPhoto, 'job_id' | 'filename' | 'is_primary' | 'ordering'>[],
  publicBaseUrl: string,
): EstimationItemPhoto[] {
  const base = publicBase(publicBaseUrl);
  if (!base) return [];
  const urls = publicPhotoUrls(photos, publicBaseUrl).map((p) => p.url);
  if (urls.length === 0 && item.photo_path) urls.push(`${base}${item.photo_path}`);
  return urls.map((url, i) => ({ url, kind: i === 0 ? 'primary' : 'additional' }));
}

/** Whether an item has any photo at all (to warn when photos could not travel). */
export const itemHasPhotos = (item: Pick<InventoryItem, 'photo_path'>, photos: unknown[]) =>
  photos.length > 0 || Boolean(item.photo_path);

/** The item mapping: the InventoryItem id is the external_id; extras go under details; the primary photo also sets image_url. */
export function remoteItem(
  item: Pick<
    InventoryItem,
    | 'id'
    | 'name'
    | 'quantity'
    | 'brand'
    | 'sku'
    | 'condition'
    | 'age'
    | 'notes'
    | 'room'
    | 'estimated_price'
    | 'model'
    | 'serial'
    | 'damage'
    | 'item_number'
  >,
  photos: EstimationItemPhoto[],
): EstimationItem {
  const details = compact({
    model: present(item.model),
    serial: present(item.serial),
    damage: present(item.damage),
    item_number: item.item_number ? String(item.item_number) : undefined,
  });
  return compact({
    external_id: item.id,
    title: itemTitle(item),
    quantity: itemQuantity(item),
    brand: present(item.brand),
    sku: present(item.sku),
    condition: present(item.condition),
    age: present(item.age),
    description: present(item.notes),
    room: present(item.room),
    estimated_price: typeof item.estimated_price === 'number' ? item.estimated_price : undefined,
    details: Object.keys(details).length > 0 ? details : undefined,
    photos: photos.length > 0 ? photos : undefined,
    image_url: photos[0]?.url,
  });
}

/**
 * The create payload mapping. external_reference is the full claim id (the
 * remote's dedupe key: never shortened or hashed). created_by is the claim's
 * creator when known, else the sender; user_id only when that user's external
 * id is a UUID, email always. Pricing travels only here, blank choices omitted.
 */
export function createPayload(input: {
  claim: Pick<
    Claim,
    'id' | 'claim_number' | 'loss_type' | 'coverage_type' | 'claim_type' | 'adjuster_name' | 'zip_code' | 'insured_name'
  >;
  createdBy: { external_id: string | null; email: string };
  pricing: Pricing;
  items: EstimationItem[];
}): EstimationClaimPayload {
  const { claim, createdBy, pricing, items } = input;
  const coverage: EstimationClaimPayload['coverage_type'] =
    claim.coverage_type === 'ACV' ? 'acv' : claim.coverage_type === 'RCV' ? 'rcv' : undefined;
  const claimType =
    claim.claim_type === 'Residential' || claim.claim_type === 'Commercial'
      ? (claim.claim_type.toLowerCase() as 'residential' | 'commercial')
      : undefined;
  const zip = present(claim.zip_code);
  const insured = present(claim.insured_name);
  return compact({
    external_reference: claim.id,
    peril: perilOf(claim.loss_type),
    coverage_type: coverage,
    claim_type: claimType,
    depreciation_schedule_id: present(pricing.depreciation_schedule_id),
    shopping_profile_id: present(pricing.shopping_profile_id),
    metadata: compact({ source_claim_number: claim.claim_number, adjuster_name: present(claim.adjuster_name) }),
    loss_address: zip ? { zip } : undefined,
    policyholder: insured ? { name: insured } : undefined,
    created_by: compact({
      user_id: isUuid(createdBy.external_id) ? createdBy.external_id : undefined,
      email: createdBy.email,
    }),
    items,
  });
}

/**
 * Rule 3's preselection for the modal: the default schedule (else the first),
 * and within it the default shopping profile, else the first; a schedule with
 * no profiles preselects none (it is still valid).
 */
export function preselectedPricing(schedules: CatalogSchedule[]): {
  depreciation_schedule_id: string | null;
  shopping_profile_id: string | null;
} {
  const schedule = schedules.find((s) => s.is_default) ?? schedules[0];
  if (!schedule) return { depreciation_schedule_id: null, shopping_profile_id: null };
  return { depreciation_schedule_id: schedule.id, shopping_profile_id: defaultProfileOf(schedule) };
}

function defaultProfileOf(schedule: CatalogSchedule): string | null {
  const profile = schedule.shopping_profiles.find((p) => p.is_default) ?? schedule.shopping_profiles[0];
  return profile?.id ?? null;
}

/**
 * "Always send the shopping profile when the schedule has any": a chosen
 * schedule with profiles and no (or an unknown) profile gets its default
 * profile; a schedule with none sends none.
 */
export function completedPricing(pricing: Pricing, schedules: CatalogSchedule[] | null): Pricing {
  const scheduleId = present(pricing.depreciation_schedule_id);
  const profileId = present(pricing.shopping_profile_id);
  if (!scheduleId || !schedules) return { depreciation_schedule_id: scheduleId, shopping_profile_id: profileId };
  const schedule = schedules.find((s) => s.id === scheduleId);
  if (!schedule) return { depreciation_schedule_id: scheduleId, shopping_profile_id: profileId };
  if (schedule.shopping_profiles.length === 0) return { depreciation_schedule_id: scheduleId };
  const known = schedule.shopping_profiles.some((p) => p.id === profileId);
  return {
    depreciation_schedule_id: scheduleId,
    shopping_profile_id: known ? profileId : (defaultProfileOf(schedule) ?? undefined),
  };
}

export const NOT_CONFIGURED = 'The estimation platform is not configured: no API base URL is set.';
export const NO_TEAM_KEY =
  'This team has no estimation platform key: sign in again from the claims platform to receive one, or ask an administrator.';
export const FIRM_NOT_PROVISIONED =
  "The estimation platform does not recognise this team's key: the firm is not provisioned there.";
export const REMOTE_CLAIM_GONE =
  'The estimation platform claim this send appends to no longer exists or belongs to another firm. Nothing was sent.';

/** The training dry run's stand-in for the remote's claim key and id: stable per claim, never a real key. */
export function dryRunRemoteClaim(claimId: string): { claim_key: string; claim_id: string } {
  const hex = createHash('sha256').update(`training:${claimId}`).digest('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  return { claim_key: `TRAINING-${hex.slice(0, 10).toUpperCase()}`, claim_id: id };
}

/** Whether every requested id is among those a send carried (false for none requested). */
export function coveredBy(requested: string[], carried: string[]): boolean {
  if (requested.length === 0) return false;
  const sent = new Set(carried);
  return requested.every((id) => sent.has(id));
}

/**
 * Whether a send that overlapped a request (a double click), or an
 * interrupted send just finished for it, answers the request with its result:
 * only when the request has nothing of its own left to send (`leftToSend`:
 * the items it would send now, after that send's stamps) and names no item
 * that send did not carry. A request that would still send an item (one added
 * meanwhile, by anyone) sends it itself: it is never answered with a batch
 * that left it out.
 */
export function answeredBySend(leftToSend: number, requested: string[] | null | undefined, carried: string[]): boolean {
  if (leftToSend > 0) return false;
  return !requested?.length || coveredBy(requested, carried);
}

/** A remote answer that is not a success, as the remote client reports it. */
export type RemoteRefusal =
  | { outcome: 'unauthorized' }
  | { outcome: 'not_found'; detail: string }
  | { outcome: 'unprocessable'; detail: string }
  | { outcome: 'unavailable'; detail: string };

/**
 * Rule 6's error mapping: a remote 401 is a firm not provisioned (409, never
 * re-emitted as 401); a 422 passes the remote's detail through; an append to a
 * claim that is gone or another firm's is 409; anything else, and an
 * unreachable remote, is 502.
 */
export function remoteFailure(refusal: RemoteRefusal, call: 'append' | 'create' | 'read'): DomainError {
  switch (refusal.outcome) {
    case 'unauthorized':
      return new ConflictError(FIRM_NOT_PROVISIONED);
    case 'unprocessable':
      return new UnprocessableError(refusal.detail);
    case 'not_found':
      return call === 'append'
        ? new ConflictError(REMOTE_CLAIM_GONE)
        : new RemoteFailureError(`The estimation platform answered 404: ${refusal.detail}`);
    case 'unavailable':
      return new RemoteFailureError(`The estimation platform is unreachable or failed: ${refusal.detail}`);
  }
}
