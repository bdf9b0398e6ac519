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
 *   200 {model, choices: [{message: {content}, finish_reason}], usage: {prompt_tokens, completion_tokens, cost}}
 *
 * Failures: 5xx, 429, timeouts, network errors and a 200 whose body is empty,
 * not JSON or carries no message content (rule 9) are retried with jittered
 * exponential backoff; any other 4xx fails at once. After the last attempt the
 * call throws AiGatewayError naming the kind of failure.
 *
 * Every call, answered or failed, is handed to the recorder once it is over
 * (the domain passes lib/jobs/ai-request-service.ts, which adds the spend to the job
 * and keeps a redacted request record). A recorder that throws is logged,
 * never fatal.
 */
import { baseUrl as normalizeBaseUrl, type Settings } from '../config';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';

/** Prices used when the gateway does not report a cost; the photo output budget uses the same. */
export const INPUT_USD_PER_MILLION_TOKENS = 5;
export const OUTPUT_USD_PER_MILLION_TOKENS = 25;

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_ATTEMPTS = 4;
const DEFAULT_BACKOFF_MS = 1000;
/** A Retry-After longer than this is not honoured in full; the job has a deadline. */
const MAX_RETRY_AFTER_MS = 30_000;

const CHAT_COMPLETIONS_PATH = '/chat/completions';

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

export class AiGatewayError extends Error {
  override readonly name = 'AiGatewayError';
  constructor(
    readonly kind: AiFailureKind,
    message: string,
    /** The last HTTP status received, null when none (timeout, network, unconfigured). */
    readonly status: number | null = null,
    /** HTTP attempts made. */
    readonly attempts = 0,
  ) {
    super(message);
  }
}

/** Usage summed over the answered attempts of one call. */
export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
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

/** Dollars for a token count at the fallback prices. */
export function tokenCostUsd(inputTokens: number, outputTokens: number): number {
  return (inputTokens * INPUT_USD_PER_MILLION_TOKENS + outputTokens * OUTPUT_USD_PER_MILLION_TOKENS) / 1_000_000;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** Usage of one answer; the gateway's own cost when it reports one. */
export function usageOf(body: unknown): AiUsage | null {
  if (!isRecord(body) || !isRecord(body.usage)) return null;
  const inputTokens = count(body.usage.prompt_tokens);
  const outputTokens = count(body.usage.completion_tokens);
  const cost = body.usage.cost;
  const costUsd =
    typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : tokenCostUsd(inputTokens, outputTokens);
  return { inputTokens, outputTokens, costUsd };
}

type Attempt =
  | {
      ok: true;
      status: number;
      content: string;
      finishReason: string | null;
      model: string | null;
      usage: AiUsage | null;
    }
  | {
      ok: false;
      kind: Exclude<AiFailureKind, 'unconfigured'>;
      status: number | null;
      message: string;
      retryable: boolean;
      usage: AiUsage | null;
      retryAfterMs: number | null;
    };

/** One failed HTTP attempt, as the retry policy sees it. */
class AttemptFailed extends Error {
  constructor(readonly failure: Extract<Attempt, { ok: false }>) {
    super(failure.message);
  }
}

function causeOf(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code ?? e?.cause?.message;
  return [e?.message ?? String(err), code].filter(Boolean).join(': ');
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS) : null;
}

function gatewayMessage(body: unknown, text: string): string {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string')
    return body.error.message.slice(0, 300);
  return text.slice(0, 300) || 'no body';
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
    try {
      const answered = await withRetry(
        async () => {
          attempts++;
          const attempt = await this.attempt(body);
          if (attempt.usage) {
            usage.inputTokens += attempt.usage.inputTokens;
            usage.outputTokens += attempt.usage.outputTokens;
            usage.costUsd += attempt.usage.costUsd;
          }
          if (!attempt.ok) throw new AttemptFailed(attempt);
          return attempt;
        },
        {
          attempts: this.maxAttempts,
          backoffMs: this.backoffMs,
          jitter: true,
          retryable: (err) => err instanceof AttemptFailed && err.failure.retryable,
          // A Retry-After longer than the backoff wins.
          minPauseMs: (err) => (err instanceof AttemptFailed ? err.failure.retryAfterMs : null),
          onRetry: (err, attempt) => {
            const failure = (err as AttemptFailed).failure;
            logger.warn('AI gateway call failed; retrying', {
              purpose: request.context.purpose,
              job_id: request.context.jobId,
              attempt,
              kind: failure.kind,
              status: failure.status,
              detail: failure.message,
            });
          },
        },
      );
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
    } catch (err) {
      if (!(err instanceof AttemptFailed)) throw err;
      const failure = err.failure;
      const tried = failure.retryable ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
      return finish({
        error: new AiGatewayError(
          failure.kind,
          `AI gateway ${failure.kind}${failure.status ? ` (HTTP ${failure.status})` : ''}${tried}: ${failure.message}`,
          failure.status,
          attempts,
        ),
      });
    }
  }

  private async record(call: AiCallRecord): Promise<void> {
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

  private async attempt(body: string): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await fetch(`${this.baseUrl}${CHAT_COMPLETIONS_PATH}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body,
        signal: controller.signal,
      });
      const text = await res.text();
      let parsed: unknown;
      let readable = false;
      try {
        parsed = text ? JSON.parse(text) : undefined;
        readable = text !== '';
      } catch {
        parsed = undefined;
      }
      const usage = usageOf(parsed);
      if (res.status >= 200 && res.status < 300) {
        // Spec rule 9: an empty or unreadable 200 is retried like a 5xx.
        if (!text.trim())
          return {
            ok: false,
            kind: 'empty',
            status: res.status,
            message: 'empty body',
            retryable: true,
            usage,
            retryAfterMs: null,
          };
        if (!readable)
          return {
            ok: false,
            kind: 'unreadable',
            status: res.status,
            message: `body is not JSON: ${text.slice(0, 200)}`,
            retryable: true,
            usage,
            retryAfterMs: null,
          };
        const choice =
          isRecord(parsed) && Array.isArray(parsed.choices) && isRecord(parsed.choices[0]) ? parsed.choices[0] : null;
        const content = choice && isRecord(choice.message) ? choice.message.content : undefined;
        if (typeof content !== 'string')
          return {
            ok: false,
            kind: 'unreadable',
            status: res.status,
            message: `no message content: ${gatewayMessage(parsed, text)}`,
            retryable: true,
            usage,
            retryAfterMs: null,
          };
        if (!content.trim())
          return {
            ok: false,
            kind: 'empty',
            status: res.status,
            message: 'empty message content',
            retryable: true,
            usage,
            retryAfterMs: null,
          };
        const finishReason = choice && typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
        const model = isRecord(parsed) && typeof parsed.model === 'string' && parsed.model ? parsed.model : null;
        return { ok: true, status: res.status, content, finishReason, model, usage };
      }
      const retryable = res.status >= 500 || res.status === 429;
      return {
        ok: false,
        kind: 'http',
        status: res.status,
        message: gatewayMessage(parsed, text),
        retryable,
        usage,
        retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
      };
    } catch (err) {
      if (controller.signal.aborted)
        return {
          ok: false,
          kind: 'timeout',
          status: null,
          message: `no answer within ${this.timeoutMs} ms`,
          retryable: true,
          usage: null,
          retryAfterMs: null,
        };
      return {
        ok: false,
        kind: 'unreachable',
        status: null,
        message: causeOf(err),
        retryable: true,
        usage: null,
        retryAfterMs: null,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
