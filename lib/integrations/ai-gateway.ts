/**
 * Client of the AI model gateway (spec: Processing rules shared by all
 * pipelines, rules 8-9; ProcessingJob ai_* fields). The gateway is
 * OpenAI-compatible chat completions, OpenRouter by default, so any compatible
 * endpoint can be configured by OPENROUTER_BASE_URL.
 *
 *   POST {base_url}/chat/completions   Authorization: Bearer <OPENROUTER_API_KEY>
 *     {model, messages: [system, user: [text, (label, image_url)...]], max_tokens,
 *      temperature (only for models that accept one), usage: {include: true},
 *      response_format?: {type: 'json_schema', json_schema: {name, strict: true, schema}}}
 *
 * Retryable failures (see ai-gateway-attempt.ts) are retried with jittered
 * exponential backoff; any other 4xx fails at once. After the last attempt the
 * call throws AiGatewayError naming the kind of failure.
 *
 * Every call, answered or failed, is handed to the recorder once it is over
 * (the domain passes lib/jobs/ai-request-service.ts, which adds the spend to the job
 * and keeps a redacted request record), and its tokens and cost go to the
 * metrics (lib/observability/metrics.ts). A recorder that throws is logged,
 * never fatal.
 */
import { baseUrl as normalizeBaseUrl, type Settings } from '../config';
import { logger } from '../observability/logger';
import { recordAiUsage } from '../observability/metrics';
import { AttemptFailed, failureSummary } from '../observability/outbound-failures';
import { sendOutbound } from '../observability/outbound-http';
import {
  type AiCallRecord,
  type AiCallRecorder,
  AiGatewayError,
  type VisionAnswer,
  type VisionRequest,
} from './ai-call';
import { chatCompletionRequest, type FailedAttempt, failedAttempt, readChatCompletion } from './ai-gateway-attempt';
import type { AiUsage } from './ai-usage';

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_ATTEMPTS = 4;
const DEFAULT_BACKOFF_MS = 1000;

export interface AiGatewayOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  temperature: number;
  timeoutMs?: number;
  maxAttempts?: number;
  /** First backoff; doubles per retry, jittered. */
  backoffMs?: number;
  /** Told about every finished call; required, so no call's spend goes unrecorded. */
  recorder: AiCallRecorder;
}

/**
 * Whether the model takes a temperature field (spec rule 8). OpenAI's
 * reasoning families (o1, o3, o4*, gpt-5*) reject one.
 */
export function acceptsTemperature(model: string): boolean {
  const name = model
    .trim()
    .toLowerCase()
    .replace(/^openai\//, '');
  return !/^o[134](?![0-9])/.test(name) && !name.startsWith('gpt-5');
}

export class AiGatewayClient {
  readonly baseUrl: string;
  readonly model: string;
  readonly temperature: number;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly recorder: AiCallRecorder;

  constructor(options: AiGatewayOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey.trim();
    this.model = options.model;
    this.temperature = options.temperature;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.recorder = options.recorder;
  }

  /** A client from the settings (OPENROUTER_BASE_URL, _API_KEY, _MODEL, _TEMPERATURE). */
  static fromSettings(
    config: Settings,
    overrides: Partial<AiGatewayOptions> & Pick<AiGatewayOptions, 'recorder'>,
  ): AiGatewayClient {
    return new AiGatewayClient({
      baseUrl: config.OPENROUTER_BASE_URL,
      apiKey: config.OPENROUTER_API_KEY,
      model: config.OPENROUTER_MODEL,
      temperature: config.OPENROUTER_TEMPERATURE,
      timeoutMs: config.OPENROUTER_TIMEOUT_SECONDS * 1000,
      maxAttempts: config.OPENROUTER_MAX_ATTEMPTS,
      backoffMs: config.OPENROUTER_RETRY_BACKOFF_MS,
      ...overrides,
    });
  }

  get configured(): boolean {
    return Boolean(this.apiKey && this.baseUrl);
  }

  /** The JSON body sent for a request (public so tests can check its shape). */
  requestBody(request: VisionRequest): Record<string, unknown> {
    const content: Record<string, unknown>[] = [{ type: 'text', text: request.text }];
    for (const image of request.images) {
      content.push({ type: 'text', text: image.label });
      content.push({
        type: 'image_url',
        image_url: { url: `data:image/jpeg;base64,${image.jpeg.toString('base64')}` },
      });
    }
    return {
      model: this.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content },
      ],
      max_tokens: request.maxTokens,
      ...(acceptsTemperature(this.model) ? { temperature: this.temperature } : {}),
      // OpenRouter then reports usage.cost in dollars.
      usage: { include: true },
      ...(request.responseFormat
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: request.responseFormat.name, strict: true, schema: request.responseFormat.schema },
            },
          }
        : {}),
    };
  }

  /** One vision call with retries; throws AiGatewayError once they are used up. */
  async complete(request: VisionRequest): Promise<VisionAnswer> {
    const startedAt = new Date();
    const usage: AiUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    const temperature = acceptsTemperature(this.model) ? this.temperature : null;
    let attempts = 0;
    let answeredStatus: number | null = null;
    const finish = async (result: { answer: VisionAnswer } | { error: AiGatewayError }) => {
      const answer = 'answer' in result ? result.answer : null;
      const error = 'error' in result ? result.error : null;
      await this.record({
        context: request.context,
        model: answer?.model ?? this.model,
        startedAt,
        latencyMs: Date.now() - startedAt.getTime(),
        outcome: answer ? 'ok' : 'failed',
        failureKind: error?.kind ?? null,
        httpStatus: error ? error.status : answeredStatus,
        errorMessage: error?.message ?? null,
        attempts,
        usage,
        finishReason: answer?.finishReason ?? null,
        maxTokens: request.maxTokens,
        temperature,
        request: {
          system: request.system,
          text: request.text,
          images: request.images,
          responseFormat: request.responseFormat,
        },
        content: answer?.content ?? null,
      });
      if (error) throw error;
      return answer as VisionAnswer;
    };

    if (!this.configured) {
      return finish({
        error: new AiGatewayError(
          'unconfigured',
          'AI gateway is not configured: OPENROUTER_API_KEY is empty (and OPENROUTER_BASE_URL must be set)',
        ),
      });
    }

    const body = JSON.stringify(this.requestBody(request));
    const endpoint = { baseUrl: this.baseUrl, apiKey: this.apiKey };
    const result = await sendOutbound(
      {
        timeoutMs: this.timeoutMs,
        attempts: this.maxAttempts,
        backoffMs: this.backoffMs,
        onRetry: (failure, attempt) =>
          logger.warn('AI gateway call failed; retrying', {
            purpose: request.context.purpose,
            job_id: request.context.jobId,
            attempt,
            kind: failedAttempt(failure).kind,
            status: failure.status,
            detail: failure.message,
          }),
      },
      chatCompletionRequest(endpoint, body),
      (answer) => {
        try {
          return countUsage(readChatCompletion(answer));
        } catch (err) {
          if (err instanceof AttemptFailed) countUsage(err.failure as FailedAttempt);
          throw err;
        }
      },
    );
    attempts = result.attempts;
    if (!result.ok) {
      const failure = failedAttempt(result.failure);
      return finish({
        error: new AiGatewayError(
          failure.kind,
          failureSummary('AI gateway', failure, attempts),
          failure.status,
          attempts,
        ),
      });
    }
    const answered = result.value;
    const own = answered.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    answeredStatus = answered.status;
    return finish({
      answer: {
        content: answered.content,
        finishReason: answered.finishReason,
        inputTokens: own.inputTokens,
        outputTokens: own.outputTokens,
        costUsd: own.costUsd,
        model: answered.model ?? this.model,
        attempts,
      },
    });

    /** Every attempt's reported spend goes on the call's, failed ones included. */
    function countUsage<A extends { usage: AiUsage | null }>(attempt: A): A {
      if (attempt.usage) {
        usage.inputTokens += attempt.usage.inputTokens;
        usage.outputTokens += attempt.usage.outputTokens;
        usage.costUsd += attempt.usage.costUsd;
      }
      return attempt;
    }
  }

  private async record(call: AiCallRecord): Promise<void> {
    recordAiUsage({ model: call.model, purpose: call.context.purpose, ...call.usage });
    try {
      await this.recorder(call);
    } catch (err) {
      logger.error('recording an AI gateway call failed', {
        job_id: call.context.jobId,
        purpose: call.context.purpose,
        error: String(err),
      });
    }
  }
}
