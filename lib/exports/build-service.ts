/**
 * The exports worker's use case: build one export's file, store it under the
 * claim's prefix and mark the export ready. Idempotent: a redelivered message
 * for an export already ready does nothing, and a build that died midway is
 * simply built again over the same object key. A failure is retried by the
 * queue; on the last delivery the export is marked failed, so a poller is not
 * left waiting on an export no one will build.
 */
import type { SQSRecord } from 'aws-lambda';
import { getClaim } from '../claims/store';
import { listJobItems } from '../inventory/item-store';
import type { InventoryItem } from '../inventory/item-record-rules';
import { getJob } from '../jobs/job-store';
import { logger } from '../observability/logger';
import { countDelivery } from '../queue/delivery';
import { getRoom, listClaimRooms } from '../rooms/store';
import { csvFile } from './csv-view';
import { reportFile } from './report-view';
import { attachmentDisposition, EXPORT_FORMATS, EXPORT_MAX_ATTEMPTS, exportFilename, lastAttempt } from './rules';
import type { ExportMessage } from './schemas';
import { contentItems, type ExportContent, groupByRoom, selectExportItems } from './selection-rules';
import { type ExportRecord, getExport, listRoomItems, putExportFile, setExportFailed, setExportReady } from './store';
import { loadThumbnails } from './thumbnail-service';
import { workbookFile } from './workbook-view';

/** The scope of an export is gone (deleted or purged since the request): nothing to build, ever. */
class ScopeGoneError extends Error {}

export async function handleExportMessage(message: ExportMessage, record?: SQSRecord): Promise<void> {
  const exported = await getExport(message.export_id, true);
  if (exported?.status !== 'pending') return;
  const started = performance.now();
  try {
    const built = await buildExportFile(exported);
    await putExportFile(exported.object_key, built.body, {
      contentType: EXPORT_FORMATS[exported.format].contentType,
      disposition: attachmentDisposition(built.filename),
    });
    await setExportReady(exported.id, { filename: built.filename, itemCount: built.itemCount });
    logger.info('export built', {
      export_id: exported.id,
      format: exported.format,
      scope: exported.scope,
      items: built.itemCount,
      bytes: built.body.length,
      duration_ms: Math.round(performance.now() - started),
      phases_ms: built.phasesMs,
    });
  } catch (err) {
    // Counted also for a message handed over by direct invoke while the queue is down (no queue counts it).
    const attempt = record ? (await countDelivery(record, EXPORT_MAX_ATTEMPTS)).attempt : 1;
    if (err instanceof ScopeGoneError) {
      await setExportFailed(exported.id, err.message);
      return;
    }
    logger.error('export build failed', { export_id: exported.id, attempt, error: String(err) });
    if (lastAttempt(attempt)) {
      await setExportFailed(exported.id, 'The export could not be built. Please try again.');
      return;
    }
    throw err;
  }
}

/** Builds the file of an export: its bytes, file name and item count. */
async function buildExportFile(
  exported: Pick<ExportRecord, 'scope' | 'scope_id' | 'format' | 'approved_only'>,
  now = new Date(),
): Promise<{ body: Buffer; filename: string; itemCount: number; phasesMs: Record<string, number> }> {
  // Where the time goes, for the log: reading the records, making thumbnails, writing the file.
  const phasesMs: Record<string, number> = {};
  let mark = performance.now();
  const lap = (phase: string) => {
    const at = performance.now();
    phasesMs[phase] = Math.round(at - mark);
    mark = at;
  };
  const { content, claimNumber, roomName } = await loadExportContent(exported, now);
  const items = contentItems(content);
  lap('records');
  let body: Buffer;
  if (exported.format === 'csv') body = csvFile(content);
  else {
    const thumbnails = await loadThumbnails(items);
    lap('thumbnails');
    body =
      exported.format === 'excel' ? await workbookFile(content, thumbnails) : await reportFile(content, thumbnails);
  }
  lap('file');
  const filename = exportFilename({
    claimNumber,
    roomName,
    kind: exported.format === 'pdf' ? 'report' : 'items',
    format: exported.format,
    approvedOnly: exported.approved_only,
    at: now,
  });
  return { body, filename, itemCount: items.length, phasesMs };
}

async function loadExportContent(
  exported: Pick<ExportRecord, 'scope' | 'scope_id' | 'approved_only'>,
  now: Date,
): Promise<{ content: ExportContent<InventoryItem>; claimNumber: string; roomName: string | null }> {
  let claimId: string;
  let rooms: { id: string; name: string }[];
  let items: InventoryItem[];
  let scopeLabel: string;
  let roomName: string | null = null;
  if (exported.scope === 'claim') {
    claimId = exported.scope_id;
    // The claim's active rooms, in the order they were made.
    rooms = await listClaimRooms(claimId, false);
    items = (await Promise.all(rooms.map((r) => listRoomItems(r.id)))).flat();
    scopeLabel = 'Whole claim';
  } else if (exported.scope === 'room') {
    const room = await getRoom(exported.scope_id, true);
    if (!room) throw new ScopeGoneError('The room no longer exists.');
    claimId = room.claim_id;
    rooms = [room];
    items = await listRoomItems(room.id);
    roomName = room.name;
    scopeLabel = `Room: ${room.name}`;
  } else {
    const job = await getJob(exported.scope_id, true);
    if (!job) throw new ScopeGoneError('The job no longer exists.');
    const room = await getRoom(job.room_id, true);
    if (!room) throw new ScopeGoneError('The room no longer exists.');
    claimId = job.claim_id;
    rooms = [room];
    items = await listJobItems(job.id);
    roomName = room.name;
    scopeLabel = `Job ${job.id.slice(0, 8)} in ${room.name}`;
  }
  const claim = await getClaim(claimId, true);
  if (!claim) throw new ScopeGoneError('The claim no longer exists.');
  const selected = selectExportItems(items, { approvedOnly: exported.approved_only });
  return {
    content: {
      claim,
      scopeLabel,
      approvedOnly: exported.approved_only,
      generatedAt: now,
      rooms: groupByRoom(rooms, selected),
    },
    claimNumber: claim.claim_number,
    roomName,
  };
}
