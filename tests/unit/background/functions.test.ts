/**
 * Covers: lib/background/functions.ts (the photo worker's batch size and memory), lib/media/heic.ts.
 *
 * The photo worker's memory is bounded: the photos it decodes at once (its
 * SQS batch, processed by Powertools in parallel) times the measured peak of
 * one HEIC decode, plus the runtime, fit in the function's memorySize. The
 * peak itself is measured by `npm run bench -- photo-memory`.
 */
import { backgroundFunctions, type QueueWorker } from '../../../lib/background/functions';
import { HEIC_DECODE_PEAK_RSS_MB } from '../../../lib/media/heic';

/** Node, the AWS SDK and sharp loaded, before any photo (measured ~150 MB; rounded up). */
const RUNTIME_BASELINE_MB = 200;

const photoWorker = backgroundFunctions.find((f): f is QueueWorker => f.kind === 'queue' && f.name === 'photoWorker')!;

it('takes one photo per invocation', () => {
  expect(photoWorker.batchSize).toBe(1);
});

it('fits its worst case, a batch of HEIC decodes, in its memory', () => {
  expect(photoWorker.memorySize).toBeDefined();
  expect(RUNTIME_BASELINE_MB + photoWorker.batchSize * HEIC_DECODE_PEAK_RSS_MB).toBeLessThanOrEqual(
    photoWorker.memorySize!,
  );
});
