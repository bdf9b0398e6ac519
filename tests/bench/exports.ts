/**
 * Benchmark (e): exports of a big claim. A claim of 5,000 items with 5,000
 * real JPEG photos (1024 px, in the bucket) across 10 rooms is exported as
 * the Excel workbook with its Photos sheet and as the PDF report. Each export
 * is built by the exports worker's own use case (handleExportMessage: read
 * the items, make the thumbnails, build, store, mark ready) in a fresh Node
 * process with the worker's environment; its wall time and peak RSS
 * (getrusage maxrss) are printed against the bounds.
 *
 *   pass: each export builds in < 30 s and < 1 GiB peak RSS
 *
 * Seeding (rows written directly through the stores, photos uploaded) is
 * printed, not measured. Run through `npm run bench -- exports`
 * (tests/bench/run.js); `node <bundle> --child <export id>` is the measured process.
 */
import { randomUUID } from 'node:crypto';
import type { QueueWorker } from '../../lib/background/functions';
import { blobKeys } from '../../lib/blob/keys';
import { putNewClaim } from '../../lib/claims/store';
import { handleExportMessage } from '../../lib/exports/build-service';
import { EXPORT_FORMATS, type ExportFormat, exportExpiry } from '../../lib/exports/rules';
import { type ExportRecord, getExport, putExportRequest } from '../../lib/exports/store';
import { bytes, childFigures, emitResult, printTable, queueWorker, runBenchmarkWithChild, seconds } from './report';
import { peakRssMb as measuredPeakRssMb } from '../support/process-rss';
import { PHOTO_EDGE, seedClaimItems } from './shared/claim-items';

const NAME = 'exports';
const ROOMS = 10;
const ITEMS = 5000;
const BOUND_SECONDS = 30;
const BOUND_RSS_MB = 1024;

interface ChildFigures {
  seconds: number;
  peakRssMb: number;
  baselineRssMb: number;
  status: string;
  items: number | null;
  fileBytes: number;
}

/** The measured process: builds one export through the worker's use case and prints its figures. */
async function child(exportId: string): Promise<void> {
  const baselineRssMb = measuredPeakRssMb();
  const started = performance.now();
  await handleExportMessage({ export_id: exportId });
  const elapsed = (performance.now() - started) / 1000;
  const peakRssMb = measuredPeakRssMb();
  const record = await getExport(exportId, true);
  const { headObject } = await import('../../lib/blob/objects');
  const head = record ? await headObject(record.object_key) : null;
  const figures: ChildFigures = {
    seconds: elapsed,
    peakRssMb,
    baselineRssMb,
    status: record?.status ?? 'missing',
    items: record?.item_count ?? null,
    fileBytes: head?.size ?? 0,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

async function seed(): Promise<{ claimId: string; teamId: string; photoBytes: number }> {
  const teamId = `bench-${randomUUID()}`;
  const claim = await putNewClaim(teamId, 'bench-user', { claim_number: 'BENCH-EXPORT', insured_name: 'Pat Bench' });
  const { photoBytes } = await seedClaimItems(claim, { rooms: ROOMS, items: ITEMS });
  return { claimId: claim.id, teamId, photoBytes };
}

async function newExport(teamId: string, claimId: string, format: ExportFormat): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  const record: ExportRecord = {
    id,
    team_id: teamId,
    claim_id: claimId,
    scope: 'claim',
    scope_id: claimId,
    format,
    approved_only: false,
    status: 'pending',
    filename: null,
    object_key: blobKeys.claimExport(teamId, claimId, id, EXPORT_FORMATS[format].extension),
    item_count: null,
    error: null,
    requested_by: 'bench-user',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: exportExpiry(now),
  };
  if (!(await putExportRequest(record, null))) throw new Error('could not record the export');
  return id;
}

const measure = (worker: QueueWorker, exportId: string) => childFigures<ChildFigures>(__filename, [exportId], worker);

async function main() {
  const worker = queueWorker('exportWorker');
  const seedStarted = performance.now();
  const { claimId, teamId, photoBytes } = await seed();
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const excel = measure(worker, await newExport(teamId, claimId, 'excel'));
  const pdf = measure(worker, await newExport(teamId, claimId, 'pdf'));
  const ok = (f: ChildFigures) =>
    f.status === 'ready' && f.items === ITEMS && f.seconds < BOUND_SECONDS && f.peakRssMb < BOUND_RSS_MB;
  const row = (f: ChildFigures) =>
    `${seconds(f.seconds)} wall, peak RSS ${f.peakRssMb.toFixed(0)} MB (runtime ${f.baselineRssMb.toFixed(0)} MB), ${f.items} items, ${bytes(f.fileBytes)} file, ${f.status}`;
  printTable(`Exports: ${ITEMS} items with ${ITEMS} photos (${PHOTO_EDGE} px JPEG) in ${ROOMS} rooms`, [
    ['seeding (not measured)', `${seconds(seedSeconds)}, ${bytes(photoBytes)} of photos uploaded`],
    ['Excel with Photos sheet', row(excel)],
    ['PDF report', row(pdf)],
    ['bound (each)', `< ${BOUND_SECONDS} s and < ${BOUND_RSS_MB} MB peak RSS`],
    ['worker environment', JSON.stringify(worker.environment ?? {})],
  ]);
  emitResult({
    name: NAME,
    pass: ok(excel) && ok(pdf),
    summary: {
      excel: `${seconds(excel.seconds)} / ${excel.peakRssMb.toFixed(0)} MB`,
      pdf: `${seconds(pdf.seconds)} / ${pdf.peakRssMb.toFixed(0)} MB`,
      bound: `${BOUND_SECONDS} s / ${BOUND_RSS_MB} MB`,
    },
  });
}

runBenchmarkWithChild(NAME, main, (args) => child(args[0]));
