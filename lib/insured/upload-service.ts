/**
 * The homeowner's video or voice note (spec: Insured link, public: the
 * chunked path, same contract as /api/uploads). Bytes go straight to the
 * bucket: init opens a multipart upload whose parts are INSURED_CHUNK_MB
 * (the last one excepted) and counts the file against the link's ceilings
 * (413 over INSURED_MAX_VIDEO_MB or a link ceiling, 415 for what is not a
 * video or voice note); part-urls presigns each part for its exact size;
 * complete assembles it and the file is ready. Nothing is probed or charged
 * here: submit hands it to the adjuster as a job waiting for confirmation.
 *
 * init first ends the link's uploads left open for over a day.
 */
import { randomUUID } from 'node:crypto';
import { headObject } from '../blob/objects';
import { s3ForTeam } from '../blob/team-credentials';
import { settings as currentSettings } from '../config';
import { ConflictError, InvalidRequestError, NotFoundError, UnprocessableError } from '../errors';
import { logger } from '../observability/logger';
import {
  abortMultipart,
  completeMultipart,
  createMultipart,
  isNoSuchUpload,
  listAllParts,
  presignPart,
  type StoredPart,
} from '../uploads/multipart-store';
import {
  baseName,
  checkAssembly,
  contentTypeFor,
  partCountFor,
  partSize,
  partsOutOfRange,
  sanitizeFilename,
  STALE_UPLOAD_MS,
  type UploadKind,
} from '../uploads/rules';
import { openLink, type PublicCaller } from './access-service';
import { boundBefore, linkCeilings, mediaFileProblem } from './draft-rules';
import { closeDraftUpload, listDraftFiles, putDraftFile, updateDraftFile } from './draft-store';
import type { DraftFile, DraftFileStatus } from './draft-record-rules';
import { draftFileFolder, handleRefusedReservation, handleDraftProblem, loadDraftFile } from './file-service';
import { listInsuredRooms } from './store';
import type { InsuredLink } from './link-record-rules';
import { draftFileView } from './view';

const UPLOAD_NOT_FOUND = 'Upload not found';

/** The upload statuses of the /api/uploads contract, from the file's. */
const UPLOAD_STATUS: Record<DraftFileStatus, 'open' | 'completing' | 'completed' | 'aborted' | 'expired'> = {
  pending: 'open',
  open: 'open',
  completing: 'completing',
  ready: 'completed',
  aborted: 'aborted',
  expired: 'expired',
};

const NOT_OPEN: Record<string, string> = {
  completing: 'This upload is being completed.',
  ready: 'This upload is already completed.',
  aborted: 'This upload was aborted; start a new upload.',
  expired: 'This upload was left for over a day and expired; start a new upload.',
};

async function loadUpload(link: InsuredLink, id: string): Promise<DraftFile> {
  const file = await loadDraftFile(link, id).catch(() => {
    throw new NotFoundError(UPLOAD_NOT_FOUND);
  });
  if (file.kind === 'photo') throw new NotFoundError(UPLOAD_NOT_FOUND);
  return file;
}

/** Ends the link's uploads open for over a day: marked expired (a complete that got there first wins), parts aborted. */
async function sweepAbandonedUploads(link: InsuredLink, now: Date): Promise<void> {
  const cutoff = now.getTime() - STALE_UPLOAD_MS;
  const stale = (await listDraftFiles(link.id)).filter(
    (f) => f.status === 'open' && f.s3_upload_id && Date.parse(f.created_at) < cutoff,
  );
  for (const file of stale) {
    if (await closeDraftUpload(file, 'expired'))
      await abortMultipart(file.key, file.s3_upload_id as string, await s3ForTeam(link.team_id));
  }
  if (stale.length) logger.info('insured link: abandoned uploads expired', { link_id: link.id, count: stale.length });
}

/** POST .../{token}/uploads/init: a video or voice note of a draft room, counted against the ceilings. */
export async function initInsuredUpload(
  token: string,
  body: { kind: UploadKind; filename: string; room_id: string; total_size: number },
  caller: PublicCaller = {},
) {
  const link = await openLink(token, 'upload', caller);
  const now = caller.now ?? new Date();
  if (!(await listInsuredRooms(link.id)).some((r) => r.id === body.room_id)) throw new NotFoundError('Room not found');
  const ceilings = linkCeilings(currentSettings());
  const filename = baseName(body.filename);
  const problem = mediaFileProblem({ kind: body.kind, filename, total_size: body.total_size }, ceilings);
  if (problem) handleDraftProblem(problem);
  await sweepAbandonedUploads(link, now);

  const id = randomUUID();
  const key = `${draftFileFolder(link, id)}${sanitizeFilename(filename)}`;
  const contentType = contentTypeFor(body.kind, filename);
  const at = now.toISOString();
  const file: DraftFile = {
    id,
    link_id: link.id,
    kind: body.kind,
    room_id: body.room_id,
    item_id: null,
    filename,
    content_type: contentType,
    size_bytes: body.total_size,
    note: null,
    key,
    status: 'open',
    s3_upload_id: null,
    chunk_size: ceilings.chunkBytes,
    part_count: partCountFor(body.total_size, ceilings.chunkBytes),
    round: null,
    job_id: null,
    thumb_key: null,
    created_at: at,
    updated_at: at,
  };
  // The multipart upload first: a row never names one that does not exist.
  const client = await s3ForTeam(link.team_id);
  file.s3_upload_id = await createMultipart(key, contentType, client);
  const reserved = await putDraftFile(file, {
    bytesBefore: boundBefore(ceilings.totalBytes, file.size_bytes),
    filesBefore: boundBefore(ceilings.files, 1),
  });
  if (!reserved) {
    await abortMultipart(key, file.s3_upload_id, client);
    await handleRefusedReservation(link, file.size_bytes);
  }
  return { upload_id: id, chunk_size: file.chunk_size as number, part_count: file.part_count as number, received: [] };
}

const received = (parts: StoredPart[], file: DraftFile) =>
  parts.map((p) => p.partNumber - 1).filter((i) => i >= 0 && i < (file.part_count as number));

/** POST .../{token}/uploads/{id}/part-urls: presigned PUTs, each signed for its part's exact size. */
export async function presignInsuredParts(token: string, id: string, indices: number[], caller: PublicCaller = {}) {
  const link = await openLink(token, 'upload', caller);
  const file = await loadUpload(link, id);
  if (file.status !== 'open') throw new ConflictError(NOT_OPEN[file.status]);
  const count = file.part_count as number;
  const outOfRange = partsOutOfRange(indices, count);
  if (outOfRange.length)
    throw new UnprocessableError(
      `Invalid request: ${outOfRange.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
      outOfRange,
    );
  const ttl = currentSettings().PRESIGNED_URL_TTL_SECONDS;
  const expiresAt = new Date(Date.now() + ttl * 1000).toISOString();
  const client = await s3ForTeam(link.team_id);
  const urls = await Promise.all(
    [...new Set(indices)].map(async (index) => {
      const size = partSize(index, file.size_bytes, file.chunk_size as number);
      const url = await presignPart(file.key, file.s3_upload_id as string, index + 1, size, ttl, client);
      return { index, url, size, expires_at: expiresAt };
    }),
  );
  return { urls };
}

function statusView(file: DraftFile, indices: number[]) {
  return {
    upload_id: file.id,
    status: UPLOAD_STATUS[file.status],
    chunk_size: file.chunk_size as number,
    part_count: file.part_count as number,
    received: indices,
    file_id: file.status === 'ready' ? file.id : null,
  };
}

/** GET .../{token}/uploads/{id}: the parts S3 holds and the upload's status. */
export async function showInsuredUpload(token: string, id: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'read', caller);
  const file = await loadUpload(link, id);
  const all = [...Array(file.part_count as number).keys()];
  if (file.status === 'ready') return statusView(file, all);
  if (file.status !== 'open' && file.status !== 'completing') return statusView(file, []);
  try {
    const client = await s3ForTeam(link.team_id);
    return statusView(file, received(await listAllParts(file.key, file.s3_upload_id as string, client), file));
  } catch (err) {
    if (!isNoSuchUpload(err)) throw err;
    if (file.status === 'completing') return statusView(file, all);
    await closeDraftUpload(file, 'expired');
    return statusView({ ...file, status: 'expired' }, []);
  }
}

/**
 * POST .../{token}/uploads/{id}/complete: the parts must be the gap-free run
 * 0..n-1 adding up to total_size (400 otherwise); the object is assembled
 * once however often this is repeated, and the file is ready.
 */
export async function completeInsuredUpload(token: string, id: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'write', caller);
  let file = await loadUpload(link, id);
  const done = () => ({
    ...statusView(file, [...Array(file.part_count as number).keys()]),
    file: draftFileView(token, file),
  });
  if (file.status === 'ready') return done();
  if (file.status === 'aborted' || file.status === 'expired') throw new ConflictError(NOT_OPEN[file.status]);
  const uploadId = file.s3_upload_id as string;
  const client = await s3ForTeam(link.team_id);
  let parts: StoredPart[] | null = null;
  if (file.status === 'open') {
    try {
      parts = await listAllParts(file.key, uploadId, client);
    } catch (err) {
      if (!isNoSuchUpload(err)) throw err;
      await closeDraftUpload(file, 'expired');
      throw new ConflictError(NOT_OPEN.expired);
    }
    const check = checkAssembly(
      parts.map((p) => ({ index: p.partNumber - 1, size: p.size })),
      { total_size: file.size_bytes, chunk_size: file.chunk_size as number, part_count: file.part_count as number },
    );
    if (!check.ok) throw new InvalidRequestError(check.message);
    file = (await updateDraftFile(file, { status: 'completing' }, ['open', 'completing'])) ?? file;
  }
  try {
    await completeMultipart(file.key, uploadId, parts ?? (await listAllParts(file.key, uploadId, client)), client);
  } catch (err) {
    if (!isNoSuchUpload(err)) throw err;
    // A concurrent complete assembled it already (or is doing so now).
    if ((await headObject(file.key, client))?.size !== file.size_bytes)
      throw new ConflictError('This upload is being completed; try again shortly.');
  }
  file = (await updateDraftFile(file, { status: 'ready' }, ['completing', 'ready'])) ?? (await loadUpload(link, id));
  if (file.status !== 'ready') throw new ConflictError(NOT_OPEN[file.status] ?? 'This upload changed meanwhile.');
  return done();
}

/** DELETE .../{token}/uploads/{id}: aborts an open upload (idempotent); 409 once completed. */
export async function abortInsuredUpload(token: string, id: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'write', caller);
  const file = await loadUpload(link, id);
  if (file.status === 'ready' || file.status === 'completing')
    throw new ConflictError(`${NOT_OPEN[file.status]} Remove the file instead.`);
  if (file.status === 'open') await closeDraftUpload(file, 'aborted');
  // Repeated on every call so an abort interrupted after the row changed still reaches S3.
  await abortMultipart(file.key, file.s3_upload_id as string, await s3ForTeam(link.team_id));
  const now = await loadUpload(link, id);
  return { upload_id: id, status: now.status === 'expired' ? ('expired' as const) : ('aborted' as const) };
}
