/**
 * The audio pipeline (voice notes into items, without photos):
 *
 *   transcribe (transcribing):   measure the recording, transcribe it (required: no key, no items)
 *   chunk (segmenting):          the transcript cut into 2-minute chunks by word start
 *   analyze (analyzing):         one text call per chunk with speech, OPENROUTER_CONCURRENCY in flight
 *   synthesize (synthesizing):   merge across chunk boundaries, order by when named, save, auto-approve
 *
 * Billed per BILLING_BLOCK_SECONDS of the recording at COST_PER_AUDIO_BLOCK,
 * less the chunks whose AI call failed.
 */
import { deleteJobItems } from '../../inventory/item-store';
import type { PipelineDefinition } from '../../orchestrator/pipeline';
import { recordingCredits } from '../recording-billing';
import { analyzeAudioChunk, planAudioChunks, startAudioAnalysis, synthesizeAudio, transcribeAudio } from './stages';

export const audioPipeline: PipelineDefinition = {
  name: 'audio',
  sourceType: 'audio',
  stages: [
    { name: 'transcribe', status: 'transcribing', progress: [0, 40], run: transcribeAudio },
    { name: 'chunk', status: 'segmenting', progress: [40, 55], run: planAudioChunks },
    { name: 'analyze', status: 'analyzing', progress: [55, 85], run: startAudioAnalysis, unit: analyzeAudioChunk },
    { name: 'synthesize', status: 'synthesizing', progress: [85, 100], run: synthesizeAudio },
  ],
  async complete({ job }) {
    return { items_found: job.items_found, ...(await recordingCredits(job)) };
  },
  // A restarted run saves its items again.
  async clearPartialResults(job) {
    await deleteJobItems(job.id, 1);
  },
};
