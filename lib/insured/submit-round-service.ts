/**
 * Making a homeowner's submit round (spec: Insured link, public: submit): the
 * rows the round takes become the adjuster's jobs, spending nothing and
 * starting no AI:
 *
 *   - a room's photos → one photo job of the matching claim room (created
 *     when the claim has none of that name), waiting in awaiting_grouping,
 *     each photo's note as its source note; photos sharing a note form one
 *     group, cut with the balanced split past MAX_PHOTOS_PER_ITEM;
 *   - each video or voice note → a job waiting in awaiting_confirmation,
 *     queued for its probe (its length prices the confirm);
 *   - typed rows → items, with their photos, on a job that is already
 *     complete and billed nothing.
 *
 * Exactly once: one maker at a time holds the round's stage on the engine
 * (its lease; submit-round-run-service.ts). It first marks the rows it takes
 * with the round (and the job each goes to), then makes the jobs; everything
 * it makes has ids derived from the link, the round and the room, so a maker
 * that died is finished by the next one (the engine's restart) with the same
 * jobs, and a row is never taken twice. The photos' re-encodes are queued
 * last, once every job is written. lib/insured/submit-service.ts decides who
 * makes a round: the submit itself for a small one, a stage worker otherwise.
 */
import pLimit from 'p-limit';
import { blobKeys } from '../blob/keys';
import { settings as currentSettings } from '../config';
import { ROWS_PER_TRANSACTION } from '../db/batch';
import { faultPoint } from '../faults/fault-points';
import { insuredKeys } from './keys';
import { derivedId } from '../inventory/item-rules';
import { saveItemBatch } from '../inventory/item-store';
import type { ItemDraft } from '../inventory/item-record-rules';
import { chunked } from '../inventory/numbering/numbering-rules';
import { getJob, putJobOnce } from '../jobs/job-store';
import { type Job, newJobRecord } from '../jobs/job-record-rules';
import { JobLog } from '../jobs/log-store';
import { photoObjectKeys } from '../photos/rules';
import { listStagedPhotos, newStagedPhoto, putStagedPhotoRows } from '../photos/staged-photo-store';
import type { StagedPhoto } from '../photos/staged-photo-record-rules';
import { dispatch, dispatchAll } from '../queue/dispatch';
import { listClaimRooms, putRoomOnce, type Room } from '../rooms/store';
import { awaitingSubmit, homeownerPhotoGroups, stillUploading, typedRowFields } from './draft-rules';
import { listDraftFiles, listDraftItems, markDraftRowsRound, type RoundRow } from './draft-store';
import type { DraftFile, DraftItem } from './draft-record-rules';
import { getInsuredLink, type InsuredRoom, listInsuredRooms } from './store';
import type { InsuredLink, SubmitRoundSummary } from './link-record-rules';
import { releaseRoundRows } from './submit-round-store';

/**
 * Marking transactions (100 rows each) in flight at once. Marking is one conditional write per row (a row is taken
 * by one round only), up to 7,000 rows at the spec's ceilings, all in the link's partition: one round trip per row,
 * even 16 at a time, took over a minute on the local stack.
 */
const MARKS_IN_FLIGHT = 4;

/** The jobs a round makes: ids derived from the link, the round and the draft room (or the file), never stored first. */
const roundJobId = {
  photos: (link: InsuredLink, round: number, draftRoomId: string) =>
    derivedId('insured-photos', link.id, round, draftRoomId),
  rows: (link: InsuredLink, round: number, draftRoomId: string) =>
    derivedId('insured-rows', link.id, round, draftRoomId),
  media: (file: DraftFile) => derivedId('insured-media', file.id),
};

/** The claim room a draft room lands in: the claim's room of that name (any case), else a new one. */
async function claimRoomFor(link: InsuredLink, draft: InsuredRoom, rooms: Room[]): Promise<Room> {
  const name = draft.name.trim();
  const existing = rooms.find((r) => r.name.trim().toLowerCase() === name.toLowerCase());
  if (existing) return existing;
  const room = await putRoomOnce(
    { id: link.claim_id, team_id: link.team_id },
    name,
    derivedId('insured-room', link.id, name.toLowerCase()),
  );
  rooms.push(room);
  return room;
}

/** A job of the round whose photos want re-encoding: its rows when this submit wrote them, else read again. */
interface ReencodeJob {
  id: string;
  rows?: StagedPhoto[];
}

/**
 * Queues the re-encode of the round's photos that have none yet, ten to a call (the worker is idempotent). Queued
 * once every job is written, so the re-encodes do not compete with the submit's own writes.
 */
async function queueReencodes(jobs: ReencodeJob[]): Promise<void> {
  const messages: { job_id: string; index: number }[] = [];
  for (const job of jobs) {
    const photos = job.rows ?? (await listStagedPhotos(job.id));
    for (const p of photos)
      if (!p.normalized && !p.unreadable_reason) messages.push({ job_id: job.id, index: p.index });
  }
  await dispatchAll('photos', messages);
}

/**
 * The homeowner's files as the job's staged photos (rows, not written), each original used where it lies: nothing
 * is copied (at the link's ceiling that was 2,000 copies inside the API's 29 s). The re-encode worker reads the
 * original and writes the job's upright JPEG; the original stays the link's file (`original_kept`).
 */
function stagedInPlace(
  job: Pick<Job, 'id' | 'team_id' | 'claim_id'>,
  files: DraftFile[],
  fields: (file: DraftFile, index: number) => Partial<StagedPhoto>,
): StagedPhoto[] {
  const prefix = blobKeys.jobPrefix(job.team_id, job.claim_id, job.id);
  const homeownerFolder = `${blobKeys.claimPrefix(job.team_id, job.claim_id)}insured/`;
  return files.map((file, index) => {
    if (!file.key.startsWith(homeownerFolder)) throw new Error(`homeowner file ${file.id} is outside its claim`);
    const { filename, key } = photoObjectKeys(prefix, index);
    const row = newStagedPhoto({
      jobId: job.id,
      index,
      filename,
      key,
      incomingKey: file.key,
      originalFilename: file.filename,
      capturedAt: null,
      sizeBytes: file.size_bytes,
    });
    return { ...row, id: derivedId('insured-photo', job.id, file.id), original_kept: true, ...fields(file, index) };
  });
}

/** A room's photos → one awaiting_grouping job, notes as source notes, grouped by note. */
async function submitRoomPhotos(
  link: InsuredLink,
  room: Room,
  round: number,
  draftRoomId: string,
  files: DraftFile[],
): Promise<ReencodeJob> {
  const jobId = roundJobId.photos(link, round, draftRoomId);
  if (await getJob(jobId, true)) return { id: jobId };
  const groups = homeownerPhotoGroups(
    files.map((f) => f.note),
    currentSettings().MAX_PHOTOS_PER_ITEM,
  );
  const job = newJobRecord({
    id: jobId,
    room,
    userId: link.invited_by_user_id,
    sourceType: 'photo',
    status: 'awaiting_grouping',
    fileSizeBytes: files.reduce((n, f) => n + f.size_bytes, 0),
  });
  const rows = stagedInPlace(job, files, (file, index) => ({
    group_index: groups[index],
    source_description: file.note,
  }));
  // The rows before the job: a half-filled job is never seen.
  await putStagedPhotoRows(rows);
  job.photo_next_index = rows.length;
  job.photo_count_hint = 0;
  await putJobOnce(job);
  await new JobLog(job.id).info(`${rows.length} photo(s) from the homeowner’s link, waiting to be grouped`);
  return { id: job.id, rows };
}

/** A video or voice note → a job waiting for the adjuster's confirm, probed for its length. */
async function submitMedia(link: InsuredLink, room: Room, file: DraftFile) {
  const job = newJobRecord({
    id: roundJobId.media(file),
    room,
    userId: link.invited_by_user_id,
    sourceType: file.kind === 'audio' ? 'audio' : 'video',
    status: 'awaiting_confirmation',
    // The bytes stay where the homeowner put them (under the claim): a 1.5 GB copy gains nothing.
    mediaKey: file.key,
    originalFilename: file.filename,
    fileSizeBytes: file.size_bytes,
  });
  const fresh = !(await getJob(job.id, true));
  const saved = await putJobOnce(job);
  if (fresh) await new JobLog(saved.id).info(`${file.filename} from the homeowner’s link, waiting for confirmation`);
  await dispatch('probe', { job_id: saved.id });
  return saved;
}

/** A room's typed rows → items on a complete job that is billed nothing; their photos go with them. */
async function submitTypedRows(
  link: InsuredLink,
  room: Room,
  round: number,
  draftRoomId: string,
  items: DraftItem[],
  photosOf: Map<string, DraftFile[]>,
): Promise<ReencodeJob> {
  const jobId = roundJobId.rows(link, round, draftRoomId);
  const batchKey = `insured-round-${round}`;
  if (await getJob(jobId, true)) return { id: jobId };
  const now = new Date();
  const job = newJobRecord(
    {
      id: jobId,
      room,
      userId: link.invited_by_user_id,
      sourceType: 'photo',
      status: 'complete',
    },
    now,
  );
  const photoFiles = items.flatMap((item) => photosOf.get(item.id) ?? []);
  // Photos of rows are shown with their items only: never one of the job's source photos.
  const rows = stagedInPlace(job, photoFiles, () => ({ deleted: true }));
  await putStagedPhotoRows(rows);
  const photoOf = new Map(photoFiles.map((f, i) => [f.id, rows[i]]));
  const drafts: ItemDraft[] = items.map((item) => ({
    ...typedRowFields(item),
    confidence: 1,
    evidence: null,
    source_group_index: null,
    photos: (photosOf.get(item.id) ?? []).map((f) => {
      const row = photoOf.get(f.id) as StagedPhoto;
      return { filename: row.filename, key: row.key };
    }),
  }));
  await saveItemBatch(job, room.name, batchKey, 0, drafts, now);
  Object.assign(job, {
    progress_pct: 100,
    items_found: items.length,
    photo_next_index: rows.length,
    photo_count_hint: 0,
    billing_finalized_at: now.toISOString(),
  });
  await putJobOnce(job);
  await new JobLog(job.id).info(`${items.length} item(s) typed by the homeowner; nothing billed`);
  return { id: job.id, rows };
}

/** Marks rows for `round`, 100 to a transaction, MARKS_IN_FLIGHT at once; whether each is in the round now. */
async function markRows(rows: RoundRow[], round: number): Promise<boolean[]> {
  const limit = pLimit(MARKS_IN_FLIGHT);
  const runs = chunked(rows, ROWS_PER_TRANSACTION);
  return (await Promise.all(runs.map((run) => limit(() => markDraftRowsRound(run, round))))).flat();
}

/** Marks the rows this round takes (ready room files, typed rows, and those rows' ready photos), each with its job. */
async function markRound(link: InsuredLink, round: number, files: DraftFile[], items: DraftItem[]) {
  const freshItems = items.filter((i) => i.round === null);
  const roomFiles = awaitingSubmit(files.filter((f) => f.room_id));
  const jobOf = (file: DraftFile, roomOfItem: Map<string, string>) => {
    if (file.item_id) return roundJobId.rows(link, round, roomOfItem.get(file.item_id) as string);
    return file.kind === 'photo' ? roundJobId.photos(link, round, file.room_id as string) : roundJobId.media(file);
  };
  const fileRows = (some: DraftFile[], roomOfItem: Map<string, string>) =>
    some.map((file) => ({ key: insuredKeys.insuredFile(link.id, file.id), jobId: jobOf(file, roomOfItem) }));
  // The room's files and the typed rows at once; the rows' photos once it is known which rows are in.
  const [taken] = await Promise.all([
    markRows(
      freshItems.map((item) => ({
        key: insuredKeys.insuredItem(link.id, item.id),
        jobId: roundJobId.rows(link, round, item.room_id),
      })),
      round,
    ),
    markRows(fileRows(roomFiles, new Map()), round),
  ]);
  // This round's rows: those already in it (a resumed round) and those it takes now.
  const takenItems = new Set(freshItems.filter((_, i) => taken[i]).map((item) => item.id));
  const roomOfItem = new Map(
    items.filter((i) => i.round === round || takenItems.has(i.id)).map((i) => [i.id, i.room_id]),
  );
  const rowPhotos = awaitingSubmit(files.filter((f) => f.item_id && roomOfItem.has(f.item_id)));
  await markRows(fileRows(rowPhotos, roomOfItem), round);
}

export const listDraft = (linkId: string) => Promise.all([listDraftFiles(linkId), listDraftItems(linkId)]);

/**
 * Makes submit `round` of the link: marks the rows it takes, makes their jobs
 * and queues the re-encodes; what it made. Run by the round's run on the
 * engine (submit-round-run-service.ts) under its stage's lease: the submit
 * request's for a small round, a stage worker's otherwise, or again after a
 * maker died. Run again, it finds its rows marked and its jobs made (their
 * ids are derived), so it makes nothing twice.
 */
export async function submitRoundRows(
  linkId: string,
  round: number,
): Promise<SubmitRoundSummary & { submitted_at: string }> {
  const link = await getInsuredLink(linkId);
  if (!link) throw new Error(`insured link ${linkId} is gone`);
  await markRound(link, round, ...(await listDraft(link.id)));
  faultPoint('insured-round:marked', [link.id]);
  // Read again: a row edited between the first read and its mark went with its edit.
  const [allFiles, allItems] = await listDraft(link.id);
  const files = allFiles.filter((f) => f.round === round);
  const items = allItems.filter((i) => i.round === round);
  const claimRooms = await listClaimRooms(link.claim_id, false);
  const photosOf = new Map<string, DraftFile[]>();
  for (const f of files) if (f.item_id) photosOf.set(f.item_id, [...(photosOf.get(f.item_id) ?? []), f]);
  let photoJobs = 0;
  let mediaJobs = 0;
  const reencodes: ReencodeJob[] = [];
  for (const draft of await listInsuredRooms(link.id)) {
    const roomFiles = files.filter((f) => f.room_id === draft.id);
    const roomItems = items.filter((i) => i.room_id === draft.id);
    if (!roomFiles.length && !roomItems.length) continue;
    const room = await claimRoomFor(link, draft, claimRooms);
    const photos = roomFiles.filter((f) => f.kind === 'photo');
    if (photos.length) {
      reencodes.push(await submitRoomPhotos(link, room, round, draft.id, photos));
      photoJobs += 1;
    }
    for (const media of roomFiles.filter((f) => f.kind !== 'photo')) {
      await submitMedia(link, room, media);
      mediaJobs += 1;
    }
    if (roomItems.length) reencodes.push(await submitTypedRows(link, room, round, draft.id, roomItems, photosOf));
    faultPoint('insured-round:making', [link.id]);
  }
  await queueReencodes(reencodes);
  faultPoint('insured-round:made', [link.id]);
  return {
    submitted_at: new Date().toISOString(),
    photo_jobs: photoJobs,
    photos: files.filter((f) => f.room_id && f.kind === 'photo').length,
    media_jobs: mediaJobs,
    items: items.length,
    pending_files: stillUploading(allFiles).length,
  };
}

/**
 * What a round the engine gives up leaves (submit-round-run-service.ts): the
 * rows whose job was made stay in it (and those jobs' photos get the
 * re-encodes the round queues last), the other rows go back to the draft, so
 * the homeowner's next submit takes them. Safe to run again.
 */
export async function restoreRoundRows(
  linkId: string,
  round: number,
): Promise<{ rows_kept: number; rows_returned: number }> {
  const [files, items] = await listDraft(linkId);
  const taken = [
    ...files
      .filter((f) => f.round === round)
      .map((f) => ({ key: insuredKeys.insuredFile(linkId, f.id), jobId: f.job_id })),
    ...items
      .filter((i) => i.round === round)
      .map((i) => ({ key: insuredKeys.insuredItem(linkId, i.id), jobId: i.job_id })),
  ];
  const made = new Set<string>();
  for (const jobId of new Set(taken.map((row) => row.jobId))) if (jobId && (await getJob(jobId, true))) made.add(jobId);
  await queueReencodes([...made].map((id) => ({ id })));
  const back = taken.filter((row) => !row.jobId || !made.has(row.jobId)).map((row) => row.key);
  await releaseRoundRows(back, round);
  return { rows_kept: taken.length - back.length, rows_returned: back.length };
}
