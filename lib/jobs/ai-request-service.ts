/**
 * What every AI gateway call leaves behind (spec: ProcessingJob ai_cost_usd,
 * ai_input_tokens, ai_output_tokens, ai_api_calls: internal AI spend):
 *
 *  - the job's counters, added atomically (the first call with attempts also
 *    counts a media job among the jobs with AI calls: job-totals-rules.ts):
 *    ai_api_calls by the HTTP attempts
 *    made (failed ones too: each was a request), tokens and cost by the usage
 *    of the attempts that came back with usage;
 *  - one redacted request record per call (ai-request-store.ts).
 *
 * Recording is best-effort: a failure is logged and never fails the call.
 */
import type { AiCallRecord } from '../integrations/ai-call';
import { logger } from '../observability/logger';
import { recordAiSpend } from '../stats/service';
import { aiRequestRecord, putAiRequest } from './ai-request-store';
import { addJobAiSpend } from './job-store';

async function addSpendToJob(call: AiCallRecord): Promise<void> {
  const { attempts, usage } = call;
  if (
    !call.context.jobId ||
    (attempts === 0 && usage.inputTokens === 0 && usage.outputTokens === 0 && usage.costUsd === 0)
  )
    return;
  const job = await addJobAiSpend(call.context.jobId, {
    ai_api_calls: attempts,
    ai_input_tokens: usage.inputTokens,
    ai_output_tokens: usage.outputTokens,
    ai_cost_usd: usage.costUsd,
  });
  if (!job) {
    logger.warn('AI spend not added: job not found', { job_id: call.context.jobId, purpose: call.context.purpose });
    return;
  }
  await recordAiSpend(job, {
    calls: attempts,
    tokens: usage.inputTokens + usage.outputTokens,
    costUsd: usage.costUsd,
  });
}

/** Async, so a record that cannot be built is a rejected write like any other. */
async function putRecord(call: AiCallRecord): Promise<void> {
  await putAiRequest(aiRequestRecord(call));
}

/** The recorder the domain gives AiGatewayClient: job counters plus the request record. */
export async function recordAiCall(call: AiCallRecord): Promise<void> {
  const results = await Promise.allSettled([addSpendToJob(call), putRecord(call)]);
  const [spend, row] = results;
  if (spend.status === 'rejected')
    logger.error('adding AI spend to the job failed', {
      job_id: call.context.jobId,
      purpose: call.context.purpose,
      error: String(spend.reason),
    });
  if (row.status === 'rejected')
    logger.error('writing the AI request record failed', {
      job_id: call.context.jobId,
      purpose: call.context.purpose,
      error: String(row.reason),
    });
}
