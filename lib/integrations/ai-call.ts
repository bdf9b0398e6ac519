/**
 * The contract of one AI gateway call: the vision request, its answer, the
 * kinds of failure, and the record of the finished call that the recorder
 * receives (the domain keeps it through lib/jobs/ai-request-service.ts).
 */
import { IntegrationError, transient } from '../observability/outbound-failures';
import type { AiUsage } from './ai-usage';

export interface VisionImage {
  label: string;
  jpeg: Buffer;
}

interface AiCallContext {
  jobId: string;
  teamId: string;
  /** What the call is for, e.g. 'photo-group'. */
  purpose: string;
  /** e.g. {group_index, pass}. */
  detail?: Record<string, unknown>;
}

export interface VisionRequest {
  system: string;
  /** The user text, sent as the first content part. */
  text: string;
  /** Each sent as a text part with its label followed by an image_url part. */
  images: VisionImage[];
  maxTokens: number;
  responseFormat?: { name: string; schema: Record<string, unknown> };
  context: AiCallContext;
}

export interface VisionAnswer {
  content: string;
  finishReason: string | null;
  /** Usage of the answering attempt (the job's counters also get earlier answered attempts). */
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  model: string;
  /** HTTP attempts made, the answering one included. */
  attempts: number;
}

export type AiFailureKind = 'unconfigured' | 'http' | 'timeout' | 'unreachable' | 'empty' | 'unreadable';

export class AiGatewayError extends IntegrationError {
  override readonly name = 'AiGatewayError';
  constructor(
    readonly kind: AiFailureKind,
    message: string,
    /** The last HTTP status received, null when none (timeout, network, unconfigured). */
    status: number | null = null,
    /** HTTP attempts made. */
    readonly attempts = 0,
  ) {
    // Once a request left, the gateway may have run (and billed) it: only a refusal (a 3xx or 4xx) surely did not.
    const refused = kind === 'unconfigured' || (kind === 'http' && status !== null && status < 500);
    const retryable = transient(kind, status) || kind === 'empty' || kind === 'unreadable';
    super('AI gateway', message, status, retryable, attempts > 0 && !refused);
  }
}

/** What the recorder is told about one finished call. */
export interface AiCallRecord {
  context: AiCallContext;
  model: string;
  startedAt: Date;
  latencyMs: number;
  outcome: 'ok' | 'failed';
  failureKind: AiFailureKind | null;
  httpStatus: number | null;
  errorMessage: string | null;
  /** HTTP attempts actually made (0 when unconfigured). */
  attempts: number;
  /** Spend of every attempt that came back with usage, failed ones included. */
  usage: AiUsage;
  finishReason: string | null;
  maxTokens: number;
  /** The temperature sent, or null when the model takes none. */
  temperature: number | null;
  request: Pick<VisionRequest, 'system' | 'text' | 'images' | 'responseFormat'>;
  content: string | null;
}

export type AiCallRecorder = (call: AiCallRecord) => Promise<void> | void;
