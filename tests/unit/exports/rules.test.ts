import {
  attachmentDisposition,
  EXPORT_MAX_ATTEMPTS,
  EXPORT_RETENTION_SECONDS,
  exportExpiry,
  exportFilename,
  lastAttempt,
  PENDING_REUSE_SECONDS,
  reusablePendingExport,
} from '../../../lib/exports/rules';

const now = new Date('2025-01-31T12:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe('reusablePendingExport', () => {
  it('reuses a recent pending export', () => {
    expect(reusablePendingExport({ status: 'pending', created_at: ago(10) }, now)).toBe(true);
    expect(reusablePendingExport({ status: 'pending', created_at: ago(0) }, now)).toBe(true);
    // Stamped a moment later by a concurrent request.
    expect(reusablePendingExport({ status: 'pending', created_at: ago(-1) }, now)).toBe(true);
  });

  it('does not reuse a finished or a stale export', () => {
    expect(reusablePendingExport({ status: 'ready', created_at: ago(10) }, now)).toBe(false);
    expect(reusablePendingExport({ status: 'failed', created_at: ago(10) }, now)).toBe(false);
    expect(reusablePendingExport({ status: 'pending', created_at: ago(PENDING_REUSE_SECONDS) }, now)).toBe(false);
  });
});

it('gives up on the last delivery the queue makes', () => {
  expect(lastAttempt(1)).toBe(false);
  expect(lastAttempt(EXPORT_MAX_ATTEMPTS - 1)).toBe(false);
  expect(lastAttempt(EXPORT_MAX_ATTEMPTS)).toBe(true);
  expect(lastAttempt(EXPORT_MAX_ATTEMPTS + 4)).toBe(true);
});

it('expires export rows a week after the request', () => {
  expect(exportExpiry(now)).toBe(Math.floor(now.getTime() / 1000) + EXPORT_RETENTION_SECONDS);
});

describe('exportFilename', () => {
  const base = {
    claimNumber: 'CLM-1001',
    roomName: null,
    kind: 'items',
    format: 'excel',
    approvedOnly: false,
    at: now,
  } as const;

  it('names the claim, room, kind, filter and day', () => {
    expect(exportFilename(base)).toBe('CLM-1001_items_2025-01-31.xlsx');
    expect(exportFilename({ ...base, roomName: 'Living room', format: 'csv', approvedOnly: true })).toBe(
      'CLM-1001_Living-room_items_approved_2025-01-31.csv',
    );
    expect(exportFilename({ ...base, kind: 'report', format: 'pdf' })).toBe('CLM-1001_report_2025-01-31.pdf');
  });

  it('keeps only safe characters and never leaves a part empty', () => {
    expect(exportFilename({ ...base, claimNumber: '../../etc "x"', roomName: 'Café / Büro' })).toBe(
      'etc-x_Cafe-Buro_items_2025-01-31.xlsx',
    );
    expect(exportFilename({ ...base, claimNumber: '???', roomName: '***' })).toBe('claim_items_2025-01-31.xlsx');
    expect(exportFilename({ ...base, claimNumber: 'A'.repeat(100) }).startsWith(`${'A'.repeat(60)}_items`)).toBe(true);
  });
});

it('makes an attachment disposition without quotes or backslashes in the name', () => {
  expect(attachmentDisposition('a.xlsx')).toBe('attachment; filename="a.xlsx"');
  expect(attachmentDisposition('a"b\\c.csv')).toBe('attachment; filename="abc.csv"');
});
