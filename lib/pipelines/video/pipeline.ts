/**
 * The video pipeline (walkthrough videos into numbered items with close-ups):
 *
 *   probe (extracting):         measure the upload, clear an earlier attempt's frames, plan the extraction units
 *   extract (extracting, then transcribing once only the transcript is left), two branches side by side:
 *       frames                  one unit per 2-minute stretch, frames straight to the bucket
 *       transcribe              the speech track transcribed; visual-only without one
 *   chunk (segmenting):         chunks of CHUNK_DURATION_SECONDS with their frames (by density) and narration
 *   analyze (analyzing):        one vision call per chunk, OPENROUTER_CONCURRENCY in flight (55 → 85 %)
 *   synthesize (synthesizing):  merge across chunk boundaries, order by video time, crop, save, auto-approve
 *
 * Billed per BILLING_BLOCK_SECONDS of the video at COST_PER_VIDEO_BLOCK, less
 * the stretches whose AI call failed.
 */
import { deletePrefix } from '../../blob/client';
import { deleteJobItems } from '../../inventory/item-store';
import type { PipelineDefinition } from '../../orchestrator/pipeline';
import { recordingCredits } from '../recording-billing';
import { analyzeChunk, planChunks, startChunkAnalysis } from './analyze';
import { extractFrameUnit, planFrameUnits, probeVideo, transcribeVideo } from './extract';
import { clearFrames } from './frame-packs';
import { photosPrefix, synthesizeVideo } from './synthesize';
import { PIPELINE_PICTURE_PREFIX } from '../../photos/rules';

export const videoPipeline: PipelineDefinition = {
  name: 'video',
  sourceType: 'video',
  stages: [
    { name: 'probe', status: 'extracting', progress: [0, 2], run: probeVideo },
    {
      name: 'extract',
      status: 'extracting',
      progress: [2, 40],
      branches: [
        { name: 'frames', run: planFrameUnits, unit: extractFrameUnit },
        { name: 'transcribe', run: transcribeVideo },
      ],
      // Extracting while frames are written; transcribing once the frames are done and the transcript is not.
      statusWhile: (done) => (done.includes('frames') ? 'transcribing' : 'extracting'),
    },
    { name: 'chunk', status: 'segmenting', progress: [40, 55], run: planChunks },
    { name: 'analyze', status: 'analyzing', progress: [55, 85], run: startChunkAnalysis, unit: analyzeChunk },
    { name: 'synthesize', status: 'synthesizing', progress: [85, 100], run: synthesizeVideo },
  ],
  async complete({ job }) {
    return { items_found: job.items_found, ...(await recordingCredits(job)) };
  },
  // A restarted run saves its items and cuts its pictures again; its frames are cleared by the probe too.
  async clearPartialResults(job) {
    await deleteJobItems(job.id, 1);
    await deletePrefix(`${photosPrefix(job)}${PIPELINE_PICTURE_PREFIX}`);
    await clearFrames(job);
  },
};
