/**
 * Benchmark (d): the photo worker's peak memory on HEIC. A fresh Node process
 * with the photo worker's environment (MALLOC_ARENA_MAX) re-encodes 12 MP
 * Display P3 HEICs (tests/fixtures/images/photo-12mp-p3.heic) with
 * normalizePhoto, the worker's decode, `batchSize` at a time as Powertools
 * runs one SQS batch, for several batches as a warm container would. Its peak
 * RSS (getrusage maxrss) is printed against the function's memorySize.
 *
 *   pass: peak RSS <= memorySize
 *
 * Also printed: the peak of one decode next to HEIC_DECODE_PEAK_RSS_MB, the
 * figure the unit test sizes the worker with (tests/unit/background/functions.test.ts).
 *
 * Run through `npm run bench -- photo-memory` (tests/bench/run.js); the local
 * stack it starts is not used. `node <bundle> --child <photos> <batch>` is the
 * measured process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueWorker } from '../../lib/background/functions';
import { HEIC_DECODE_PEAK_RSS_MB } from '../../lib/media/heic';
import { normalizePhoto } from '../../lib/media/images';
import { childFigures, emitResult, printTable, queueWorker, runBenchmarkWithChild, seconds } from './report';
import { peakRssMb } from '../support/process-rss';

const NAME = 'photo-worker-memory';
const FIXTURE = join(process.cwd(), 'tests', 'fixtures', 'images', 'photo-12mp-p3.heic');
const BATCHES = 4;

interface ChildFigures {
  peakRssMb: number;
  baselineRssMb: number;
  seconds: number;
  width: number;
  height: number;
}

/** The measured process: `photos` decodes, `batch` at a time; prints its figures as JSON. */
async function child(photos: number, batch: number): Promise<void> {
  const heic = readFileSync(FIXTURE);
  const baselineRssMb = peakRssMb();
  const started = performance.now();
  let size = { width: 0, height: 0 };
  for (let done = 0; done < photos; done += batch) {
    const results = await Promise.all(
      Array.from({ length: Math.min(batch, photos - done) }, () => normalizePhoto(heic)),
    );
    size = { width: results[0].width, height: results[0].height };
  }
  const figures: ChildFigures = {
    peakRssMb: peakRssMb(),
    baselineRssMb,
    seconds: (performance.now() - started) / 1000,
    ...size,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Runs the measured process with the worker's environment and returns its figures. */
function measure(worker: QueueWorker, photos: number, batch: number): ChildFigures {
  return childFigures<ChildFigures>(__filename, [String(photos), String(batch)], worker);
}

async function main() {
  const worker = queueWorker('photoWorker');
  if (!worker.memorySize) throw new Error('photoWorker has no memorySize');
  const one = measure(worker, 1, 1);
  const run = measure(worker, BATCHES * worker.batchSize, worker.batchSize);
  const pass = run.peakRssMb <= worker.memorySize;
  printTable(
    `Photo worker memory: ${one.width}x${one.height} HEIC, environment ${JSON.stringify(worker.environment ?? {})}`,
    [
      ['runtime before any photo', `${one.baselineRssMb.toFixed(0)} MB`],
      [
        'peak RSS, one decode',
        `${one.peakRssMb.toFixed(0)} MB (unit test sizes with ${HEIC_DECODE_PEAK_RSS_MB} MB per decode)`,
      ],
      [
        `peak RSS, ${BATCHES} batches of ${worker.batchSize}`,
        `${run.peakRssMb.toFixed(0)} MB in ${seconds(run.seconds)}`,
      ],
      ['bound (photoWorker memorySize)', `${worker.memorySize} MB`],
      ['headroom', `${(worker.memorySize - run.peakRssMb).toFixed(0)} MB`],
    ],
  );
  emitResult({
    name: NAME,
    pass,
    summary: {
      'peak RSS': `${run.peakRssMb.toFixed(0)} MB`,
      bound: `${worker.memorySize} MB`,
      'batch size': String(worker.batchSize),
      'one decode': `${one.peakRssMb.toFixed(0)} MB`,
    },
  });
}

runBenchmarkWithChild(NAME, main, (args) => child(Number(args[0]), Number(args[1])));
