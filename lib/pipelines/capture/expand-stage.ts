/**
 * The first stage of a capture import (spec: Capture source integration,
 * import job steps 1-3): the manifest expanded against the capture source
 * (the assignment's tree and every page of its media), the selection made,
 * media already imported on the connection skipped, each selected item
 * given its room (matched by name, else created), its job and, for photos,
 * its number and group; then the downloads are cut into units. Everything
 * gets an id derived from the runner and its run, so the stage can run again.
 */
import { blobKeys } from '../../blob/keys';
import { openCaptureSource } from '../../imports/capture/service';
import { getConnection } from '../../imports/capture/store';
import type { CaptureSourceResult } from '../../integrations/capture-source';
import {
  type CaptureManifest,
  downloadUnits,
  photoPlaces,
  roomNameOf,
  selectMedia,
  type SourceMedia,
} from '../../imports/capture/import-rules';
import { importedMediaIds, putUploadRecords, recordAssignmentClaim } from '../../imports/capture/import-store';
import { getImportBatch, updateImportBatch } from '../../imports/store';
import { derivedId } from '../../inventory/item-rules';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { PipelineFailure } from '../../orchestrator/terminal';
import { photoObjectKeys } from '../../photos/rules';
import { getRoom, listClaimRooms, putRoomOnce, type Room } from '../../rooms/store';
import { sanitizeFilename } from '../../uploads/rules';
import { plural } from '../../text';
import { type PlannedMedia, type PlannedRoom, putImportPlan } from './run-store';

/** Media ids a signing call takes: a unit's downloads are signed in one call, just before they start. */
const SIGN_BATCH = 200;
/** Bytes one unit downloads at most (one item may be larger): well inside a worker's 15 minutes. */
const UNIT_MAX_BYTES = 1024 * 1024 * 1024;
/** Media per page asked of the capture source. */
const PAGE = 200;

/** A capture source answer, or the run's failure in words the user reads. */
export function captureAnswer<T>(result: CaptureSourceResult<T>): T {
  switch (result.outcome) {
    case 'ok':
      return result.body;
    case 'unauthorized':
      throw new PipelineFailure(
        'The capture source refused the connection’s token: connect again, then retry the import.',
      );
    case 'not_found':
      throw new PipelineFailure(`The capture source does not know what was asked for (${result.detail}).`);
    case 'unprocessable':
      throw new PipelineFailure(`The capture source refused the request: ${result.detail}`);
    default:
      // Worth another attempt: the engine retries a unit that throws; a stage fails with this message.
      throw new Error(result.detail);
  }
}

/** The capture source runner's batch, its connection and the manifest it runs. */
export async function runnerBatch(job: StageContext['job']) {
  const batch = job.reads_batch_id ? await getImportBatch(job.reads_batch_id) : null;
  if (!batch || batch.read_job_id !== job.id) throw new PipelineFailure('The import moved on to another run.');
  const connection = batch.connection_id ? await getConnection(batch.connection_id) : null;
  if (!connection)
    throw new PipelineFailure('The capture source connection was removed: connect again, then retry the import.');
  const client = openCaptureSource(connection.api_token);
  return { batch, client, connection, manifest: batch.manifest as unknown as CaptureManifest };
}

export async function expandManifest(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const runId = job.run_id as string;
  const { batch, client, connection, manifest } = await runnerBatch(job);
  const tree = captureAnswer(await client.tree(manifest.assignment_id));
  const media: SourceMedia[] = [];
  let cursor: string | undefined;
  do {
    const page = captureAnswer(await client.media(manifest.assignment_id, cursor, PAGE));
    media.push(...page.data);
    cursor = page.next_cursor ?? undefined;
    await ctx.heartbeat(0.5);
  } while (cursor);

  // A retry reads only what failed before.
  const retryOnly = batch.runs > 1 ? new Set(batch.failed_media_ids ?? []) : null;
  const selected = selectMedia(media, manifest).filter((m) => !retryOnly || retryOnly.has(m.id));
  const imported = await importedMediaIds(
    connection.id,
    selected.map((m) => m.id),
  );
  const toImport = selected.filter((m) => !imported.has(m.id));

  const locations = new Map(tree.locations.map((l) => [l.id, l.name]));
  const groups = new Map(tree.locations.flatMap((l) => l.groups.map((g) => [g.id, g.name] as const)));
  const claimRooms = await listClaimRooms(batch.claim_id, false);
  const rooms = new Map<string, PlannedRoom & { room: Room }>();
  const targetRoom = manifest.target.mode === 'room' ? await getRoom(manifest.target.room_id, true) : null;
  if (manifest.target.mode === 'room' && !targetRoom) throw new PipelineFailure('The room to import into is gone.');
  const roomFor = async (m: SourceMedia) => {
    const name = targetRoom ? targetRoom.name : roomNameOf(m, locations);
    const key = name.toLowerCase();
    const known = rooms.get(key);
    if (known) return known;
    const existing = targetRoom ?? claimRooms.find((r) => r.name.trim().toLowerCase() === key);
    const room =
      existing ??
      (await putRoomOnce(
        { id: batch.claim_id, team_id: batch.team_id },
        name,
        derivedId('capture-room', batch.id, key),
      ));
    const planned = { room, room_id: room.id, room_name: room.name, created: !existing };
    rooms.set(key, planned);
    return planned;
  };

  const planned: PlannedMedia[] = [];
  const captureGroup = new Map<PlannedMedia, string | null>();
  const photosByJob = new Map<string, PlannedMedia[]>();
  for (const m of toImport) {
    const { room } = await roomFor(m);
    const jobId =
      m.type === 'photo'
        ? derivedId('capture-photos', job.id, runId, room.id)
        : derivedId('capture-media', job.id, runId, m.id);
    const prefix = blobKeys.jobPrefix(batch.team_id, batch.claim_id, jobId);
    const entry: PlannedMedia = {
      media_id: m.id,
      type: m.type,
      filename: m.filename,
      content_type: m.content_type,
      size_bytes: m.size_bytes,
      captured_at: m.captured_at,
      job_id: jobId,
      room_id: room.id,
      room_name: room.name,
      index: null,
      group_index: null,
      key: `${prefix}media/${sanitizeFilename(m.filename)}`,
      meta: {
        assignment: tree.assignment.title,
        location: m.location_id ? (locations.get(m.location_id) ?? null) : null,
        group: m.group_id ? (groups.get(m.group_id) ?? null) : null,
        captured_at: m.captured_at,
        filename: m.filename,
      },
    };
    captureGroup.set(entry, m.group_id);
    if (m.type === 'photo') photosByJob.set(jobId, [...(photosByJob.get(jobId) ?? []), entry]);
    planned.push(entry);
  }
  // Photos are numbered per room job in capture order; a capture group's photos share a group.
  for (const [jobId, photos] of photosByJob) {
    const places = photoPlaces(photos.map((p) => captureGroup.get(p) ?? null));
    const prefix = blobKeys.jobPrefix(batch.team_id, batch.claim_id, jobId);
    photos.forEach((p, i) => {
      p.index = places[i].index;
      p.group_index = places[i].group_index;
      p.key = photoObjectKeys(prefix, places[i].index).key;
    });
  }

  const positions = planned.map((p, i) => ({ i, size_bytes: p.size_bytes }));
  const units = downloadUnits(positions, SIGN_BATCH, UNIT_MAX_BYTES).map((u) => u.map((p) => p.i));
  await putImportPlan(job, {
    run_id: runId,
    media: planned,
    units,
    rooms: [...rooms.values()].map(({ room_id, room_name, created }) => ({ room_id, room_name, created })),
    skipped: selected.length - toImport.length,
  });
  await putUploadRecords(
    planned.map((p) => ({
      connection_id: connection.id,
      external_media_id: p.media_id,
      batch_id: batch.id,
      job_id: p.job_id,
      status: 'registered' as const,
      sha256: null,
      size_bytes: null,
      meta: p.meta,
      updated_at: new Date().toISOString(),
    })),
  );
  await recordAssignmentClaim(connection.id, manifest.assignment_id, batch.claim_id);
  if (batch.runs === 1)
    await updateImportBatch(
      batch.id,
      { status: 'importing', readJobId: job.id },
      { total: selected.length, skipped: selected.length - toImport.length },
    );
  await log.info(
    `Capture import: ${plural(selected.length, 'media item')} selected, ${toImport.length} to download ` +
      `(${selected.length - toImport.length} imported before) into ${plural(rooms.size, 'room')}, ${plural(units.length, 'unit')}`,
  );
  return { kind: 'fanout', units: units.length, concurrency: 1 };
}
