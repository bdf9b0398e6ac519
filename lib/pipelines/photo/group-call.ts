/**
 * One photo group's AI call (one fan-out unit): the group's JPEGs, resized to
 * PHOTO_IMAGE_MAX_PIXELS / PHOTO_IMAGE_MAX_LONG_EDGE, go to the vision model
 * with the group's prompt and an output budget computed for this request; the
 * answer's complete items are kept and a cut-short answer is recorded.
 *
 * A gateway failure (after its own retries) is recorded as a failed result,
 * never thrown: a failed request is unbilled and the run goes on. Anything
 * else (storage, database) throws, so the engine retries the unit.
 *
 * sharp is loaded only here, when a call runs (HTTP handlers that register
 * the pipeline never load it).
 */
import { settings } from '../../config';
import { readObject } from '../../blob/objects';
import { AiGatewayError, type VisionImage } from '../../integrations/ai-call';
import { AiGatewayClient } from '../../integrations/ai-gateway';
import { salvageItems } from '../../integrations/structured-output';
import { recordAiCall } from '../../jobs/ai-request-service';
import type { Job } from '../../jobs/job-record-rules';
import type { JobLog } from '../../jobs/log-store';
import { getStagedPhoto } from '../../photos/staged-photo-store';
import { readModelItem } from './answer-rules';
import { ANSWER_JSON_SCHEMA, type ModelItem } from './answer-schemas';
import { outputBudget, wasCutShort } from './budget-rules';
import type { PlannedGroup, PlannedPhoto } from './plan-rules';
import { imageLabel, systemPrompt, userText } from './prompt-rules';
import type { GroupResult, RunPlan } from './run-store';

/** The group's JPEG as stored: re-encoded (or cropped, for a segment) on demand if the background worker has not yet. */
async function groupJpeg(job: Job, photo: PlannedPhoto): Promise<Buffer> {
  if (photo.normalized) {
    const stored = await readObject(photo.key);
    if (stored) return stored.body;
  }
  const row = await getStagedPhoto(job.id, photo.index);
  if (row && !row.normalized) {
    if (photo.is_segment) {
      const { ensureSegmentCropped } = await import('../../photos/segment-service');
      await ensureSegmentCropped(job.id, photo.index);
    } else {
      const { normalizeStagedPhoto } = await import('../../photos/normalize-service');
      await normalizeStagedPhoto({ job_id: job.id, index: photo.index });
    }
  }
  const stored = await readObject(photo.key);
  if (!stored) throw new Error(`photo ${photo.filename} is missing from storage`);
  return stored.body;
}

export async function callGroup(
  job: Job,
  plan: RunPlan,
  group: PlannedGroup,
  log: JobLog,
  client = AiGatewayClient.fromSettings(settings(), { recorder: recordAiCall }),
): Promise<GroupResult> {
  const config = settings();
  const { resizeForModel } = await import('../../media/images');
  // The group's photos are fetched and resized together: reads overlap with sharp's thread pool.
  const images: (VisionImage & { width: number; height: number })[] = await Promise.all(
    group.photos.map(async (photo, i) => {
      const resized = await resizeForModel(await groupJpeg(job, photo), {
        maxPixels: config.PHOTO_IMAGE_MAX_PIXELS,
        maxLongEdge: config.PHOTO_IMAGE_MAX_LONG_EDGE,
      });
      return { label: imageLabel(group, i), jpeg: resized.jpeg, width: resized.width, height: resized.height };
    }),
  );
  const system = systemPrompt(group.prompt === 'merged' ? plan.prompts.merged : plan.prompts.unmerged);
  const text = userText(group);
  const budget = outputBudget({ texts: [system, text, ...images.map((i) => i.label)], images }, config);
  const base = { group_index: group.group_index, max_tokens: budget.maxTokens };
  try {
    const answer = await client.complete({
      system,
      text,
      images: images.map(({ label, jpeg }) => ({ label, jpeg })),
      maxTokens: budget.maxTokens,
      responseFormat: ANSWER_JSON_SCHEMA,
      context: {
        jobId: job.id,
        teamId: job.team_id,
        purpose: 'photo-group',
        detail: { group_index: group.group_index, pass: group.pass },
      },
    });
    const salvaged = salvageItems(answer.content);
    let items = salvaged.items.map(readModelItem).filter((i): i is ModelItem => i !== null);
    // A merged group or a segment is one known item: exactly one, never split.
    const single = group.prompt === 'merged';
    if (single) items = items.slice(0, 1);
    const cutShort = !single && (wasCutShort(answer, budget.maxTokens, config) || !salvaged.complete);
    if (cutShort)
      await log.warn(
        `Group ${group.group_index}: answer cut short after ${items.length} item(s) (${answer.outputTokens}/${budget.maxTokens} tokens)`,
      );
    return { ...base, outcome: 'ok', items, cut_short: cutShort, error: null, output_tokens: answer.outputTokens };
  } catch (err) {
    if (!(err instanceof AiGatewayError)) throw err;
    await log.warn(`Group ${group.group_index}: AI request failed after ${err.attempts} attempt(s): ${err.message}`);
    return { ...base, outcome: 'failed', items: [], cut_short: false, error: err.message, output_tokens: 0 };
  }
}
