/**
 * AI request records (spec: internal AI spend): one redacted row per AI
 * gateway call under AIREQ#<job_id>, for the admin API-requests view. The API
 * key is never stored; images are stored as {label, bytes, sha256}, never
 * their data; long texts are cut at RECORD_TEXT_LIMIT characters.
 */
import { createHash, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { queryPartition } from '../db/query';
import { jobKeys } from './keys';
import type { AiCallRecord, AiFailureKind } from '../integrations/ai-call';

/** Prompt, user text and answer are kept up to this many characters each. */
const RECORD_TEXT_LIMIT = 20_000;

interface RecordedImage {
  label: string;
  bytes: number;
  sha256: string;
}

export interface AiRequestRecord {
  id: string;
  job_id: string;
  team_id: string;
  purpose: string;
  detail: Record<string, unknown> | null;
  model: string;
  outcome: 'ok' | 'failed';
  failure_kind: AiFailureKind | null;
  http_status: number | null;
  error_message: string | null;
  attempts: number;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  finish_reason: string | null;
  max_tokens: number;
  /** The temperature sent; null when the model takes none. */
  temperature: number | null;
  request: {
    system: string;
    text: string;
    images: RecordedImage[];
    response_format: { name: string; schema: Record<string, unknown> } | null;
  };
  content: string | null;
  created_at: string;
}

const cut = (text: string) => (text.length > RECORD_TEXT_LIMIT ? text.slice(0, RECORD_TEXT_LIMIT) : text);

/** The row kept for one call: no key, no image data. */
export function aiRequestRecord(call: AiCallRecord, id: string = randomUUID()): AiRequestRecord {
  return {
    id,
    job_id: call.context.jobId,
    team_id: call.context.teamId,
    purpose: call.context.purpose,
    detail: call.context.detail ?? null,
    model: call.model,
    outcome: call.outcome,
    failure_kind: call.failureKind,
    http_status: call.httpStatus,
    error_message: call.errorMessage ? cut(call.errorMessage) : null,
    attempts: call.attempts,
    latency_ms: call.latencyMs,
    input_tokens: call.usage.inputTokens,
    output_tokens: call.usage.outputTokens,
    cost_usd: call.usage.costUsd,
    finish_reason: call.finishReason,
    max_tokens: call.maxTokens,
    temperature: call.temperature,
    request: {
      system: cut(call.request.system),
      text: cut(call.request.text),
      images: call.request.images.map((image) => ({
        label: image.label,
        bytes: image.jpeg.length,
        sha256: createHash('sha256').update(image.jpeg).digest('hex'),
      })),
      response_format: call.request.responseFormat ?? null,
    },
    content: call.content === null ? null : cut(call.content),
    created_at: call.startedAt.toISOString(),
  };
}

export async function putAiRequest(record: AiRequestRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...jobKeys.aiRequest(record.job_id, record.created_at, record.id), entity: 'AiRequest', ...record },
    }),
  );
}

/** A job's AI request records, oldest first. */
export async function listAiRequests(jobId: string): Promise<AiRequestRecord[]> {
  return queryPartition<AiRequestRecord>(jobKeys.aiRequest(jobId, '', '').pk);
}
