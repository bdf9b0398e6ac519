/**
 * Rows the homeowner types (spec: Insured link, public: items). A row is
 * counted against INSURED_LINK_MAX_ITEMS when added (413 past it) and given
 * back when removed. PATCH writes only the fields sent; DELETE removes the
 * row and its photos, from the bucket too. A submitted row is the
 * adjuster's: it can no longer be changed (409).
 */
import { randomUUID } from 'node:crypto';
import { s3ForTeam } from '../blob/team-credentials';
import { settings as currentSettings } from '../config';
import { ConflictError, NotFoundError, TooLargeError } from '../errors';
import { openLink, type PublicCaller } from './access-service';
import { boundBefore, itemCeilingProblem, linkCeilings, SUBMITTED_ROW } from './draft-rules';
import {
  deleteDraftFile,
  deleteDraftItem,
  getDraftItem,
  listDraftFiles,
  putDraftItem,
  updateDraftItem,
} from './draft-store';
import type { DraftItem } from './draft-record-rules';
import { deleteFileBytes } from './file-service';
import type { DraftItemFields } from './draft-schemas';
import { getInsuredLink, listInsuredRooms } from './store';
import type { InsuredLink } from './link-record-rules';
import { draftItemView } from './view';

const ITEM_NOT_FOUND = 'Item not found';

async function loadDraftItem(link: InsuredLink, itemId: string): Promise<DraftItem> {
  const item = await getDraftItem(link.id, itemId);
  if (!item || item.link_id !== link.id) throw new NotFoundError(ITEM_NOT_FOUND);
  return item;
}

const itemPhotos = async (item: DraftItem) => (await listDraftFiles(item.link_id)).filter((f) => f.item_id === item.id);

/** POST .../{token}/rooms/{room_id}/items: a typed row in a draft room. */
export async function addDraftItem(token: string, roomId: string, body: DraftItemFields, caller: PublicCaller = {}) {
  const link = await openLink(token, 'write', caller);
  if (!(await listInsuredRooms(link.id)).some((r) => r.id === roomId)) throw new NotFoundError('Room not found');
  const ceilings = linkCeilings(currentSettings());
  const now = new Date().toISOString();
  const item: DraftItem = {
    id: randomUUID(),
    link_id: link.id,
    room_id: roomId,
    name: body.name,
    quantity: body.quantity ?? 1,
    brand: body.brand ?? null,
    model: body.model ?? null,
    age: body.age ?? null,
    estimated_price: body.estimated_price ?? null,
    notes: body.notes ?? null,
    round: null,
    job_id: null,
    created_at: now,
    updated_at: now,
  };
  if (!(await putDraftItem(item, { bytesBefore: null, itemsBefore: boundBefore(ceilings.items, 1) }))) {
    const current = await getInsuredLink(link.id);
    const problem = itemCeilingProblem(
      { bytes_reserved: 0, files_count: 0, items_count: current?.items_count ?? 0 },
      ceilings,
    );
    if (problem) throw new TooLargeError(problem);
    throw new NotFoundError('Link not found');
  }
  return draftItemView(token, item, []);
}

/** PATCH .../{token}/items/{item_id}: only the fields sent are written. */
export async function editDraftItem(
  token: string,
  itemId: string,
  body: Partial<DraftItemFields>,
  caller: PublicCaller = {},
) {
  const link = await openLink(token, 'write', caller);
  const item = await loadDraftItem(link, itemId);
  if (item.round !== null) throw new ConflictError(SUBMITTED_ROW);
  const updated = await updateDraftItem(item, body);
  if (!updated) throw new ConflictError(SUBMITTED_ROW);
  return draftItemView(token, updated, await itemPhotos(updated));
}

/** DELETE .../{token}/items/{item_id}: the row and its photos (bytes included) go. */
export async function removeDraftItem(token: string, itemId: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'write', caller);
  const item = await loadDraftItem(link, itemId);
  if (item.round !== null) throw new ConflictError(SUBMITTED_ROW);
  const photos = await itemPhotos(item);
  if (!(await deleteDraftItem(item))) throw new ConflictError(SUBMITTED_ROW);
  for (const photo of photos) {
    if (await deleteDraftFile(photo)) await deleteFileBytes(photo, await s3ForTeam(link.team_id));
  }
  return { id: item.id, deleted: true, photos_deleted: photos.length };
}
