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
import pLimit from 'p-limit';
import sharp from 'sharp';
import type { QueueWorker } from '../../lib/background/functions';
import { blobKeys } from '../../lib/blob/keys';
import { putJpeg } from '../../lib/blob/objects';
import { putNewClaim } from '../../lib/claims/store';
import { putRows } from '../../lib/db/batch';
import { handleExportMessage } from '../../lib/exports/build-service';
import { EXPORT_FORMATS, type ExportFormat, exportExpiry } from '../../lib/exports/rules';
import { type ExportRecord, getExport, putExportRequest } from '../../lib/exports/store';
import { type InventoryItem, type ItemPhoto, itemRowOf, photoRowOf } from '../../lib/inventory/item-store';
import { photoUrl } from '../../lib/photos/view';
import { putNewRoom } from '../../lib/rooms/store';
import { bytes, childFigures, emitResult, printTable, queueWorker, runBenchmarkWithChild, seconds } from './report';
import { peakRssMb as measuredPeakRssMb } from '../support/process-rss';

const NAME = 'exports';
const ROOMS = 10;
const ITEMS = 5000;
const PHOTO_EDGE = 1024;
const DISTINCT_PHOTOS = 25;
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

/** A 1024 px photo with texture (so its JPEG size is a real photo's), one of a few variants. */
function photo(seed: number): Promise<Buffer> {
  const width = PHOTO_EDGE;
  const height = Math.round(PHOTO_EDGE * 0.75);
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 3) * 31 + ((i / (width * 3)) | 0) * 7 * seed) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .blur(1.2)
    .jpeg({ quality: 82 })
    .toBuffer();
}

async function seed(): Promise<{ claimId: string; teamId: string; photoBytes: number }> {
  const teamId = `bench-${randomUUID()}`;
  const claim = await putNewClaim(teamId, 'bench-user', { claim_number: 'BENCH-EXPORT', insured_name: 'Pat Bench' });
  const photos = await Promise.all(Array.from({ length: DISTINCT_PHOTOS }, (_, i) => photo(i + 1)));
  const limit = pLimit(16);
  const now = new Date().toISOString();
  let number = 0;
  let photoBytes = 0;
  for (let r = 0; r < ROOMS; r++) {
    const room = await putNewRoom(claim, `Room ${r + 1}`);
    const jobId = randomUUID();
    const prefix = blobKeys.jobPrefix(teamId, claim.id, jobId);
    const rows: Record<string, unknown>[] = [];
    const uploads: Promise<void>[] = [];
    for (let i = 0; i < ITEMS / ROOMS; i++) {
      number++;
      const id = randomUUID();
      const filename = `${String(i).padStart(6, '0')}.jpg`;
      const key = `${prefix}photos/${filename}`;
      const jpeg = photos[number % DISTINCT_PHOTOS];
      photoBytes += jpeg.length;
      uploads.push(limit(() => putJpeg(key, jpeg)));
      const item: InventoryItem = {
        id,
        job_id: jobId,
        room_id: room.id,
        claim_id: claim.id,
        team_id: teamId,
        item_number: number,
        name: `Item ${number}: ${['Sofa', 'Lamp', 'Television', 'Chair', '=Formula'][number % 5]} with a longer description`,
        quantity: 1 + (number % 3),
        brand: 'Brand',
        model: `M-${number}`,
        serial: null,
        sku: null,
        condition: 'good',
        age: '2 years',
        estimated_price: 10 + (number % 500),
        damage: null,
        notes: number % 7 === 0 ? '-see photo' : null,
        room: room.name,
        confidence: 0.9,
        evidence: null,
        needs_review: false,
        reviewed: true,
        approved: number % 2 === 0,
        is_archived: false,
        archived_at: null,
        claims_platform_submitted_at: null,
        estimation_sent_at: null,
        // The primary photo's path, as every item with a photo carries it.
        photo_path: photoUrl(jobId, filename),
        created_pass: 1,
        source_group_index: i,
        created_at: now,
        updated_at: now,
      };
      const itemPhoto: ItemPhoto = {
        id: randomUUID(),
        item_id: id,
        filename,
        job_id: jobId,
        key,
        is_primary: true,
        ordering: 0,
      };
      rows.push(itemRowOf(item), photoRowOf(itemPhoto));
    }
    await putRows(rows);
    await Promise.all(uploads);
  }
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
