/**
 * The life of an export: its formats, how long a pending one may be reused,
 * when a failing build gives up, and the file name the download carries.
 */

export const EXPORT_FORMATS = {
  excel: {
    extension: 'xlsx',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  },
  csv: { extension: 'csv', contentType: 'text/csv; charset=utf-8' },
  pdf: { extension: 'pdf', contentType: 'application/pdf' },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** What an export covers: one job's items, one room's, or a whole claim's across its active rooms. */
export type ExportScope = 'job' | 'room' | 'claim';
export type ExportStatus = 'pending' | 'ready' | 'failed';

/** Export rows (and their files' download links) are kept a week; the file itself goes with the claim. */
export const EXPORT_RETENTION_SECONDS = 7 * 86_400;

/**
 * A pending export older than this is presumed lost (its message dead-lettered after the worker's
 * attempts, each up to the queue's visibility timeout): a new request then starts a new export.
 */
export const PENDING_REUSE_SECONDS = 30 * 60;

/** Deliveries of one export message before it is marked failed; the exports queue's maxReceiveCount. */
export const EXPORT_MAX_ATTEMPTS = 3;

/** Whether a repeated request for the same scope, format and filter should answer with this export. */
export function reusablePendingExport(record: { status: ExportStatus; created_at: string }, now: Date): boolean {
  if (record.status !== 'pending') return false;
  // A concurrent request may have stamped its export a moment after `now` (or on a clock slightly ahead): still reusable.
  return now.getTime() - Date.parse(record.created_at) < PENDING_REUSE_SECONDS * 1000;
}

/** Whether this delivery is the last the queue will make, so a failure is final rather than retried. */
export function lastAttempt(receiveCount: number): boolean {
  return receiveCount >= EXPORT_MAX_ATTEMPTS;
}

/** Epoch seconds at which an export row made at `now` expires (the table's TTL attribute). */
export function exportExpiry(now: Date): number {
  return Math.floor(now.getTime() / 1000) + EXPORT_RETENTION_SECONDS;
}

/** A name part made of letters, digits, dots, dashes and underscores; spaces and anything else become dashes. */
function fileNamePart(text: string): string {
  return (
    text
      .normalize('NFKD')
      // Accents come apart from their letters under NFKD; drop the accents.
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 60)
  );
}

/**
 * The download's file name: claim number, the room when the export covers one room or job,
 * what it is, the filter and the day, e.g. `CLM-1001_Kitchen_items_approved_2025-01-31.xlsx`.
 */
export function exportFilename(parts: {
  claimNumber: string;
  roomName: string | null;
  kind: 'items' | 'report';
  format: ExportFormat;
  approvedOnly: boolean;
  at: Date;
}): string {
  const name = [
    fileNamePart(parts.claimNumber) || 'claim',
    parts.roomName === null ? '' : fileNamePart(parts.roomName),
    parts.kind,
    parts.approvedOnly ? 'approved' : '',
    parts.at.toISOString().slice(0, 10),
  ].filter(Boolean);
  return `${name.join('_')}.${EXPORT_FORMATS[parts.format].extension}`;
}

/** Content-Disposition for the download: an attachment under the export's file name (ASCII by construction). */
export function attachmentDisposition(filename: string): string {
  return `attachment; filename="${filename.replace(/["\\]/g, '')}"`;
}
