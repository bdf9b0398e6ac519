/**
 * The gateway's chat completions on the outbound core
 * (lib/observability/outbound-http.ts): the request, and how an attempt's
 * outcome is read (spec: Processing rules shared by all pipelines, rule 9):
 *
 *   POST {base_url}/chat/completions   Authorization: Bearer <OPENROUTER_API_KEY>
 *   200 {model, choices: [{message: {content}, finish_reason}], usage: {prompt_tokens, completion_tokens, cost}}
 *
 * A 200 with message content is an answer. 5xx, 429, timeouts, network errors
 * and a 200 whose body is empty, not JSON or carries no message content are
 * retryable failures; any other status is a failure not worth retrying, a
 * redirect among them (never followed). What the body says reaches a message
 * only bounded and scrubbed (bodyExcerpt).
 */
import {
  AttemptFailed,
  type AttemptFailure,
  bodyExcerpt,
  isRecord,
  parseJson,
  retryAfterMs,
} from '../observability/outbound-failures';
import { type OutboundAnswer, type OutboundRequest, sendOutbound } from '../observability/outbound-http';
import type { AiFailureKind } from './ai-call';
import { type AiUsage, usageOf } from './ai-usage';

const CHAT_COMPLETIONS_PATH = '/chat/completions';

export type Attempt =
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

/** An answered attempt of the gateway. */
type Answered = Extract<Attempt, { ok: true }>;

/** A failed attempt of the gateway (with the usage it reported, if any). */
export type FailedAttempt = Extract<Attempt, { ok: false }>;

interface Endpoint {
  baseUrl: string;
  apiKey: string;
}

function gatewayMessage(body: unknown, text: string): string {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string')
    return bodyExcerpt(body.error.message) || 'no body';
  return bodyExcerpt(text) || 'no body';
}

/** One request body to the gateway. */
export function chatCompletionRequest({ baseUrl, apiKey }: Endpoint, body: string): OutboundRequest {
  return {
    url: `${baseUrl}${CHAT_COMPLETIONS_PATH}`,
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body,
  };
}

/** What one answer says: the content, or AttemptFailed<FailedAttempt> (retryable or not). */
export function readChatCompletion({ status, text, headers }: OutboundAnswer): Answered {
  const parsed = parseJson(text);
  const readable = parsed !== undefined;
  const usage = usageOf(parsed);
  const fail = (
    failure: Omit<FailedAttempt, 'ok' | 'usage' | 'status' | 'retryAfterMs'>,
    retryAfter = null as number | null,
  ) => new AttemptFailed<FailedAttempt>({ ok: false, status, usage, retryAfterMs: retryAfter, ...failure });
  if (status >= 200 && status < 300) {
    // Spec rule 9: an empty or unreadable 200 is retried like a 5xx.
    if (!text.trim()) throw fail({ kind: 'empty', message: 'empty body', retryable: true });
    if (!readable)
      throw fail({ kind: 'unreadable', message: `body is not JSON: ${bodyExcerpt(text, 200)}`, retryable: true });
    const choice =
      isRecord(parsed) && Array.isArray(parsed.choices) && isRecord(parsed.choices[0]) ? parsed.choices[0] : null;
    const content = choice && isRecord(choice.message) ? choice.message.content : undefined;
    if (typeof content !== 'string')
      throw fail({
        kind: 'unreadable',
        message: `no message content: ${gatewayMessage(parsed, text)}`,
        retryable: true,
      });
    if (!content.trim()) throw fail({ kind: 'empty', message: 'empty message content', retryable: true });
    const finishReason = choice && typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
    const model = isRecord(parsed) && typeof parsed.model === 'string' && parsed.model ? parsed.model : null;
    return { ok: true, status, content, finishReason, model, usage };
  }
  throw fail(
    { kind: 'http', message: gatewayMessage(parsed, text), retryable: status >= 500 || status === 429 },
    retryAfterMs(headers.get('retry-after')),
  );
}

const CORE_KINDS: Record<string, FailedAttempt['kind']> = {
  timeout: 'timeout',
  network: 'unreachable',
  redirect: 'http',
  refused: 'http',
  too_large: 'unreadable',
};

/** A failure as a gateway attempt: the gateway's own as is, the core's (no answer, a redirect) in its kinds. */
export function failedAttempt(failure: AttemptFailure): FailedAttempt {
  if ('ok' in failure) return failure as FailedAttempt;
  const { status, message, retryable, retryAfterMs } = failure;
  return { ok: false, kind: CORE_KINDS[failure.kind] ?? 'http', status, message, retryable, usage: null, retryAfterMs };
}

/** Sends one request body, one attempt, and classifies what comes back; never throws for HTTP or network failures. */
export async function postChatCompletion(endpoint: Endpoint & { timeoutMs: number }, body: string): Promise<Attempt> {
  const result = await sendOutbound(
    { timeoutMs: endpoint.timeoutMs, attempts: 1, backoffMs: 0 },
    chatCompletionRequest(endpoint, body),
    readChatCompletion,
  );
  return result.ok ? result.value : failedAttempt(result.failure);
}
