/**
 * One HTTP attempt at the gateway's chat completions, and how its outcome is
 * read (spec: Processing rules shared by all pipelines, rule 9):
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
import type { AiFailureKind } from './ai-call';
import { type AiUsage, usageOf } from './ai-usage';
import {
  answerText,
  bodyExcerpt,
  causeOf,
  NO_REDIRECTS,
  refusedRedirect,
  retryAfterMs,
} from '../observability/outbound-failures';

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

/** A failed attempt of the gateway (with the usage it reported, if any). */
export type FailedAttempt = Extract<Attempt, { ok: false }>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function gatewayMessage(body: unknown, text: string): string {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string')
    return bodyExcerpt(body.error.message) || 'no body';
  return bodyExcerpt(text) || 'no body';
}

/** Sends one request body and classifies what comes back; never throws for HTTP or network failures. */
export async function postChatCompletion(
  { baseUrl, apiKey, timeoutMs }: { baseUrl: string; apiKey: string; timeoutMs: number },
  body: string,
): Promise<Attempt> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(`${baseUrl}${CHAT_COMPLETIONS_PATH}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body,
      signal: controller.signal,
      ...NO_REDIRECTS,
    });
    const text = await answerText(res);
    const redirect = refusedRedirect(res.status);
    if (redirect)
      return {
        ok: false,
        kind: 'http',
        status: res.status,
        message: redirect,
        retryable: false,
        usage: null,
        retryAfterMs: null,
      };
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
          message: `body is not JSON: ${bodyExcerpt(text, 200)}`,
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
        message: `no answer within ${timeoutMs} ms`,
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
