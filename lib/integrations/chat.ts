/**
 * The chat message after each media job finishes (spec: Events > Outbound
 * signals). Best-effort: a failed post is logged and swallowed, never breaking
 * the job; a redirect is a failure, never followed. The body is a
 * Slack-compatible incoming-webhook message.
 */
import { settings } from '../config';
import { logger } from '../observability/logger';
import { sendOutbound } from '../observability/outbound-http';

export interface JobOutcomeMessage {
  outcome: 'success' | 'failure';
  company: string;
  user: string;
  mediaType: 'video' | 'photo' | 'audio';
  credits?: number;
  revenueUsd?: number;
  error?: string;
}

const POST_TIMEOUT_MS = 5000;

function environmentLabel(appEnv: string): string {
  if (appEnv === 'production') return 'Production';
  if (appEnv === 'stage') return 'Stage';
  return appEnv.charAt(0).toUpperCase() + appEnv.slice(1);
}

function chatPayload(message: JobOutcomeMessage) {
  const mediaType = message.mediaType.charAt(0).toUpperCase() + message.mediaType.slice(1);
  const fields: { title: string; value: string; short: boolean }[] = [
    { title: 'Environment', value: environmentLabel(settings().APP_ENV), short: true },
    { title: 'Company', value: message.company, short: true },
    { title: 'User', value: message.user, short: true },
    { title: 'Media Type', value: mediaType, short: true },
  ];
  if (message.outcome === 'success') {
    fields.push({ title: 'Credits Used', value: String(message.credits ?? 0), short: true });
    fields.push({ title: 'Revenue', value: `$${(message.revenueUsd ?? 0).toFixed(2)}`, short: true });
  } else {
    fields.push({ title: 'Error', value: message.error ?? 'unknown error', short: false });
  }
  const title = message.outcome === 'success' ? 'New media uploaded' : 'Media processing failed';
  return { text: title, attachments: [{ title, color: message.outcome === 'success' ? 'good' : 'danger', fields }] };
}

export async function postJobOutcome(message: JobOutcomeMessage): Promise<void> {
  const url = settings().CHAT_WEBHOOK_URL;
  if (!url) return;
  const result = await sendOutbound(
    { timeoutMs: POST_TIMEOUT_MS, attempts: 1, backoffMs: 0 },
    {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatPayload(message)),
      // The answer's body is not needed; letting it go frees the connection.
      stream: true,
    },
    async ({ status, response }) => {
      await response.body?.cancel().catch(() => undefined);
      return status;
    },
  );
  if (result.ok) {
    if (result.value < 200 || result.value >= 300)
      logger.warn('chat webhook answered an error', { status: result.value });
  } else if (result.failure.kind === 'redirect') {
    const { status, message } = result.failure;
    logger.warn('chat webhook answered a redirect', { status, detail: message });
  } else logger.warn('chat webhook unreachable', { error: result.failure.message });
}
