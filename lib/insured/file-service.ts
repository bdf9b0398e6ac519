/**
 * The homeowner's photos (spec: Insured link, public: files, item photos,
 * note edit and removal, content, thumb). A photo goes straight to the bucket
 * in two calls on the same route, like the adjuster's item photos:
 *
 *   {filename, content_type, size, note?} → the file, counted against the
 *       link's ceilings at once (413 past one; 415 for what is not a photo),
 *       and a presigned POST limited to the declared size and the file's key;
 *   {file_id} → the upload is copied where no presigned POST reaches and
 *       the copy checked (it arrived; its header is an image's, else 415 and
 *       it is removed); the file, now that copy, is ready.
 *
 * The presigned POST stays valid after the confirm, so the key it names may
 * be written again: what is checked is the copy, and the copy is all that is
 * read afterwards (content, thumbnail, the submit's jobs).
 *
 * A room's photo carries the homeowner's note (the source note the AI reads
 * at grouping); a typed row's photo goes to the table only, never to the AI.
 * Removing a file gives back its file count, never its bytes (the byte
 * ceiling is lifetime). Content answers 302 to a short-lived presigned GET
 * (the thumbnail: thumb-service.ts).
 */
import { randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { presignedGet, type ServedAs } from '../blob/client';
import { presignedUploadForm } from '../blob/presigned-post';
import { blobKeys } from '../blob/keys';
import { copyObject, deleteObjectWith, headObject, readObjectHead } from '../blob/objects';
import { s3ForTeam } from '../blob/team-credentials';
import { settings as currentSettings } from '../config';
import { ConflictError, NotFoundError, TooLargeError, UnsupportedTypeError } from '../errors';
import { HttpResponse } from '../http/response';
import { SNIFF_HEAD_BYTES, sniffImage } from '../media/sniff';
import { photoUploadContentType, sniffedTypeProblem } from '../photos/upload-rules';
import { servedContentType } from '../photos/rules';
import { abortMultipart } from '../uploads/multipart-store';
import { sanitizeFilename } from '../uploads/rules';
import { RECORDING_SNIFF_BYTES, recordingContentType } from '../uploads/sniff-rules';
import { openLink, type PublicCaller } from './access-service';
import {
  boundBefore,
  type DraftProblem,
  fileCeilingProblem,
  linkCeilings,
  photoFileProblem,
  SUBMITTED_ROW,
} from './draft-rules';
import { deleteDraftFile, getDraftFile, getDraftItem, putDraftFile, updateDraftFile } from './draft-store';
import type { DraftFile } from './draft-record-rules';
import { getInsuredLink, listInsuredRooms } from './store';
import type { InsuredLink } from './link-record-rules';
import { draftFileView } from './view';

const FILE_NOT_FOUND = 'File not found';
/** Where a link's files live: under the claim (its purge takes them), one folder per file. */
export const draftFileFolder = (link: Pick<InsuredLink, 'team_id' | 'claim_id' | 'id'>, fileId: string) =>
  `${blobKeys.claimPrefix(link.team_id, link.claim_id)}insured/${link.id}/files/${fileId}/`;

/**
 * Where a photo's checked bytes are kept: a folder of the file's own that no
 * presigned POST names (a sanitized file name has no '/').
 */
const checkedPhotoKey = (uploadKey: string) => {
  const cut = uploadKey.lastIndexOf('/') + 1;
  return `${uploadKey.slice(0, cut)}checked/${uploadKey.slice(cut)}`;
};

/** The key a checked photo was uploaded under (an upload form may have written it again since). */
const uploadKeyOf = (checkedKey: string) => checkedKey.replace(/\/checked\/([^/]*)$/, '/$1');

export function handleDraftProblem(problem: DraftProblem): never {
  throw problem.status === 413 ? new TooLargeError(problem.detail) : new UnsupportedTypeError(problem.detail);
}

/** 413 with the ceiling a refused reservation hit; 404 when the link itself went (revoked meanwhile). */
export async function handleRefusedReservation(link: InsuredLink, bytes: number): Promise<never> {
  const now = await getInsuredLink(link.id);
  const usage = {
    bytes_reserved: now?.bytes_reserved ?? 0,
    files_count: now?.files_count ?? 0,
    items_count: now?.items_count ?? 0,
  };
  const problem = fileCeilingProblem(usage, bytes, linkCeilings(currentSettings()));
  if (problem) throw new TooLargeError(problem);
  throw new NotFoundError('Link not found');
}

/** A file of this link, or 404: a file id of another link is the same 404 as an unknown one. */
export async function loadDraftFile(link: InsuredLink, fileId: string): Promise<DraftFile> {
  const file = await getDraftFile(link.id, fileId);
  if (!file || file.link_id !== link.id) throw new NotFoundError(FILE_NOT_FOUND);
  return file;
}

type PhotoOwner = { room_id: string; item_id: null } | { room_id: null; item_id: string };

interface PhotoRequest {
  filename: string;
  content_type: string;
  size: number;
  note?: string | null;
}

/** First call: the file (pending, counted against the ceilings) and a presigned POST for its bytes. */
async function issuePhotoUpload(token: string, link: InsuredLink, owner: PhotoOwner, body: PhotoRequest) {
  const config = currentSettings();
  const ceilings = linkCeilings(config);
  const problem = photoFileProblem(body, ceilings);
  if (problem) handleDraftProblem(problem);
  const id = randomUUID();
  const now = new Date().toISOString();
  const file: DraftFile = {
    id,
    link_id: link.id,
    kind: 'photo',
    ...owner,
    filename: body.filename,
    content_type: photoUploadContentType(body.content_type),
    size_bytes: body.size,
    note: owner.room_id ? (body.note ?? null) : null,
    key: `${draftFileFolder(link, id)}${sanitizeFilename(body.filename)}`,
    status: 'pending',
    s3_upload_id: null,
    chunk_size: null,
    part_count: null,
    round: null,
    job_id: null,
    thumb_key: null,
    created_at: now,
    updated_at: now,
  };
  const reserved = await putDraftFile(file, {
    bytesBefore: boundBefore(ceilings.totalBytes, file.size_bytes),
    filesBefore: boundBefore(ceilings.files, 1),
  });
  if (!reserved) await handleRefusedReservation(link, file.size_bytes);
  const expiresIn = config.PRESIGNED_URL_TTL_SECONDS;
  const upload = await presignedUploadForm(
    file.key,
    // Fields become eq conditions of the signed policy.
    { maxBytes: file.size_bytes, fields: { 'Content-Type': file.content_type, 'x-amz-meta-insured-file-id': file.id } },
    expiresIn,
    await s3ForTeam(link.team_id),
  );
  return {
    file: draftFileView(token, file),
    upload,
    max_bytes: file.size_bytes,
    expires_in: expiresIn,
  };
}

/** Second call: the photo arrived and is an image: ready. Repeating it answers the same file. */
async function confirmPhotoUpload(token: string, link: InsuredLink, owner: PhotoOwner, fileId: string) {
  const file = await loadDraftFile(link, fileId);
  if (file.kind !== 'photo' || file.room_id !== owner.room_id || file.item_id !== owner.item_id)
    throw new NotFoundError(FILE_NOT_FOUND);
  if (file.status === 'ready') return { file: draftFileView(token, file) };
  const uploadKey = file.key;
  const checkedKey = checkedPhotoKey(uploadKey);
  const client = await s3ForTeam(link.team_id);
  if (!(await copyObject(uploadKey, checkedKey, client))) {
    // A confirm running alongside may have made it ready (and removed the upload) meanwhile.
    const now = await loadDraftFile(link, fileId);
    if (now.status === 'ready') return { file: draftFileView(token, now) };
    throw new ConflictError('The photo has not arrived yet: send it to the upload URL first.');
  }
  const head = await headObject(checkedKey, client);
  const header = head ? await readObjectHead(checkedKey, SNIFF_HEAD_BYTES, client) : null;
  const notPhoto = header ? sniffedTypeProblem(sniffImage(header)) : 'The upload could not be read.';
  if (notPhoto || !head) {
    await Promise.all([deleteObjectWith(client, checkedKey), deleteObjectWith(client, uploadKey)]);
    await deleteDraftFile(file);
    throw new UnsupportedTypeError(`${notPhoto} The file was not added.`);
  }
  const ready = await updateDraftFile(file, { status: 'ready', size_bytes: head.size, key: checkedKey }, [
    'pending',
    'ready',
  ]);
  if (!ready) throw new NotFoundError(FILE_NOT_FOUND);
  // Never read again: a second POST to it changes nothing the service uses.
  await deleteObjectWith(client, uploadKey);
  return { file: draftFileView(token, ready) };
}

export type PhotoBody = PhotoRequest | { file_id: string };

/** POST .../{token}/rooms/{room_id}/files: one photo plus its note (two calls: issue, then confirm). */
export async function addRoomPhoto(token: string, roomId: string, body: PhotoBody, caller: PublicCaller = {}) {
  const link = await openLink(token, 'upload', caller);
  const rooms = await listInsuredRooms(link.id);
  if (!rooms.some((r) => r.id === roomId)) throw new NotFoundError('Room not found');
  const owner: PhotoOwner = { room_id: roomId, item_id: null };
  return 'file_id' in body
    ? confirmPhotoUpload(token, link, owner, body.file_id)
    : issuePhotoUpload(token, link, owner, body);
}

/** POST .../{token}/items/{item_id}/photos: a photo for the typed row (the table only; never sent to the AI). */
export async function addItemPhoto(token: string, itemId: string, body: PhotoBody, caller: PublicCaller = {}) {
  const link = await openLink(token, 'upload', caller);
  const item = await getDraftItem(link.id, itemId);
  if (!item) throw new NotFoundError('Item not found');
  if (item.round !== null) throw new ConflictError(SUBMITTED_ROW);
  const owner: PhotoOwner = { room_id: null, item_id: item.id };
  return 'file_id' in body
    ? confirmPhotoUpload(token, link, owner, body.file_id)
    : issuePhotoUpload(token, link, owner, { ...body, note: null });
}

/** PATCH .../{token}/files/{file_id}: the note of a room's file. */
export async function editFileNote(
  token: string,
  fileId: string,
  body: { note: string | null },
  caller: PublicCaller = {},
) {
  const link = await openLink(token, 'write', caller);
  const file = await loadDraftFile(link, fileId);
  if (file.round !== null) throw new ConflictError(SUBMITTED_ROW);
  if (!file.room_id) throw new ConflictError('A typed item’s photo has no note; edit the item instead.');
  const updated = await updateDraftFile(file, { note: body.note }, [file.status]);
  if (!updated) throw new ConflictError(SUBMITTED_ROW);
  return draftFileView(token, updated);
}

/**
 * Removes a file's bytes (and a chunked upload's parts) from the bucket, the
 * upload a form wrote again after its confirm included. Every key is known:
 * the team's role may list nothing.
 */
export async function deleteFileBytes(file: DraftFile, client: S3Client): Promise<void> {
  if (file.s3_upload_id && file.status !== 'ready')
    await abortMultipart(file.key, file.s3_upload_id, client).catch(() => {});
  const keys = new Set([file.key, uploadKeyOf(file.key), ...(file.thumb_key ? [file.thumb_key] : [])]);
  await Promise.all([...keys].map((key) => deleteObjectWith(client, key)));
}

/**
 * How a file's bytes are served: a photo or a recording as the type its first bytes show, shown or played in
 * the page; bytes that are neither (whatever they were stored as) only as a download.
 */
async function servedFile(file: DraftFile, client: S3Client): Promise<ServedAs> {
  const photo = file.kind === 'photo';
  const header = await readObjectHead(file.key, photo ? SNIFF_HEAD_BYTES : RECORDING_SNIFF_BYTES, client);
  const contentType = !header
    ? null
    : photo
      ? servedContentType(sniffImage(header))
      : recordingContentType(header, file.kind === 'audio' ? 'audio' : 'video');
  if (contentType) return { contentType, disposition: 'inline' };
  return { contentType: 'application/octet-stream', disposition: { attachment: file.filename } };
}

/** DELETE .../{token}/files/{file_id}: the file goes, bytes too; its bytes still count against the link's ceiling. */
export async function removeFile(token: string, fileId: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'write', caller);
  const file = await loadDraftFile(link, fileId);
  if (file.round !== null) throw new ConflictError(SUBMITTED_ROW);
  if (file.status === 'completing') throw new ConflictError('This upload is being completed; try again shortly.');
  if (!(await deleteDraftFile(file))) throw new ConflictError(SUBMITTED_ROW);
  await deleteFileBytes(file, await s3ForTeam(link.team_id));
  return { id: file.id, deleted: true };
}

/** GET .../{token}/files/{file_id}/content: 302 to the full-size bytes. */
export async function redirectToFileContent(token: string, fileId: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'read', caller);
  const file = await loadDraftFile(link, fileId);
  if (file.status !== 'ready') throw new NotFoundError(FILE_NOT_FOUND);
  const ttl = currentSettings().PRESIGNED_URL_TTL_SECONDS;
  const client = await s3ForTeam(link.team_id);
  return HttpResponse.redirect(await presignedGet(file.key, await servedFile(file, client), ttl, client));
}
