/**
 * Export use cases behind the HTTP routes. An export is never built in the
 * request: an Excel file with photos of a big claim outgrows both the
 * function's answer (6 MB) and the gateway's 30 s. The request records the
 * export, queues it for the exports worker (lib/exports/build-service.ts) and
 * answers 202 with a poll URL; polling answers the status and, once the file
 * is in the bucket, a short-lived download link.
 *
 * A repeated request for the same scope, format and filter while an export is
 * still pending answers with that export instead of building another.
 */
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity-rules';
import { presignedGet } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { settings } from '../config';
import { NotFoundError } from '../errors';
import { HttpResponse } from '../http/response';
import { logger } from '../observability/logger';
import { dispatch } from '../queue/dispatch';
import { loadClaimForTeam } from '../claims/access-service';
import { loadJobForTeam } from '../jobs/access-service';
import { loadRoomForTeam } from '../rooms/access-service';
import { EXPORT_FORMATS, type ExportFormat, type ExportScope, exportExpiry, reusablePendingExport } from './rules';
import type { ExportMessage } from './schemas';
import { type ExportRecord, getExport, getRequestedExportId, putExportRequest } from './store';

const EXPORT_NOT_FOUND = 'Export not found';

/** Attempts at recording a request when concurrent identical requests keep moving the request row. */
const REQUEST_ATTEMPTS = 3;

const pollUrl = (id: string) => `/api/exports/${id}`;

async function loadScope(identity: Identity, scope: ExportScope, id: string) {
  switch (scope) {
    case 'job': {
      const job = await loadJobForTeam(identity, id);
      return { teamId: job.team_id, claimId: job.claim_id };
    }
    case 'room': {
      const room = await loadRoomForTeam(identity, id);
      return { teamId: room.team_id, claimId: room.claim_id };
    }
    case 'claim': {
      const claim = await loadClaimForTeam(identity, id);
      return { teamId: claim.team_id, claimId: claim.id };
    }
  }
}

/**
 * GET .../export/{excel,csv} and GET /api/claims/{id}/report.pdf: records the export (or finds the
 * pending one for the same request), queues it, and answers 202 with where to poll.
 */
export async function requestExport(
  identity: Identity,
  scope: ExportScope,
  scopeId: string,
  format: ExportFormat,
  options: { approvedOnly: boolean },
  now = new Date(),
): Promise<HttpResponse> {
  const { teamId, claimId } = await loadScope(identity, scope, scopeId);
  const request = { team_id: teamId, scope, scope_id: scopeId, format, approved_only: options.approvedOnly };
  for (let attempt = 1; ; attempt++) {
    const previousId = await getRequestedExportId(request);
    const previous = previousId ? await getExport(previousId, true) : null;
    if (previous && reusablePendingExport(previous, now)) return accepted(previous);
    const id = randomUUID();
    const record: ExportRecord = {
      id,
      ...request,
      claim_id: claimId,
      status: 'pending',
      filename: null,
      object_key: blobKeys.claimExport(teamId, claimId, id, EXPORT_FORMATS[format].extension),
      item_count: null,
      error: null,
      requested_by: identity.user.id,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: exportExpiry(now),
    };
    if (await putExportRequest(record, previousId)) {
      const message: ExportMessage = { export_id: id };
      await dispatch('exports', message);
      logger.info('export requested', { export_id: id, scope, scope_id: scopeId, format });
      return accepted(record);
    }
    // Another identical request won the race: answer with its export (or try again if it is not reusable).
    if (attempt >= REQUEST_ATTEMPTS) throw new Error('export request kept losing to concurrent requests');
  }
}

function accepted(record: ExportRecord): HttpResponse {
  return new HttpResponse(
    202,
    { export_id: record.id, status: record.status, poll_url: pollUrl(record.id) },
    { location: pollUrl(record.id), 'cache-control': 'no-store' },
  );
}

/** GET /api/exports/{export_id}: the export's status, with a short-lived download link once it is ready. */
export async function showExport(identity: Identity, exportId: string) {
  const record = await getExport(exportId, true);
  if (!record || (!identity.isAdmin && record.team_id !== identity.team.id)) throw new NotFoundError(EXPORT_NOT_FOUND);
  const ttl = settings().PRESIGNED_URL_TTL_SECONDS;
  const ready = record.status === 'ready';
  return {
    export_id: record.id,
    status: record.status,
    format: record.format,
    scope: record.scope,
    scope_id: record.scope_id,
    approved_only: record.approved_only,
    filename: record.filename,
    item_count: record.item_count,
    download_url: ready
      ? await presignedGet(
          record.object_key,
          {
            contentType: EXPORT_FORMATS[record.format].contentType,
            disposition: { attachment: record.filename ?? `export.${EXPORT_FORMATS[record.format].extension}` },
          },
          ttl,
        )
      : null,
    download_expires_in: ready ? ttl : null,
    error: record.error,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
