/**
 * Client of the mail service: Mailgun's messages API (any endpoint speaking it
 * can be configured by MAIL_BASE_URL: the EU host https://api.eu.mailgun.net,
 * a proxy, the test fake).
 *
 *   POST {base_url}/v3/{MAIL_DOMAIN}/messages
 *     Authorization: Basic base64("api:" + MAIL_API_KEY)
 *     multipart/form-data: from, to (one field per recipient), subject, text,
 *       html (optional), attachment (one file part each: filename and type)
 *   200 {id: "<...@MAIL_DOMAIN>", message: "Queued. Thank you."}
 *   400 {message: "..."}   401 "Forbidden" (text)   404 {message: "Domain not found: ..."}
 *   429 and 5xx: transient, worth another attempt
 *
 * Off unless configured: without MAIL_API_KEY, MAIL_DOMAIN and MAIL_FROM
 * `isConfigured` is false and `send` throws MailError('not_configured'), so a
 * caller that means "mail when we can" checks `isConfigured` and skips; it
 * can never send by accident with half the settings.
 *
 * 5xx, 429, timeouts and network errors are retried with jittered exponential
 * backoff (a timed-out attempt may have been queued, so a retry can mail
 * twice: better than losing a report). Any other status fails at once, a
 * redirect among them (never followed). What the body says reaches a message
 * only bounded and scrubbed (bodyExcerpt). A
 * final failure throws MailError naming the cause (a refused key, an unknown
 * domain, the service's own words on a 400).
 */
import { baseUrl as normalizeBaseUrl, type Settings } from '../config';
import { logger } from '../observability/logger';
import {
  type AttemptFailure,
  attemptFailed,
  bodyExcerpt,
  clientKind,
  failureSummary,
  IntegrationError,
  isRecord,
  parseJson,
  statusFailed,
  transient,
} from '../observability/outbound-failures';
import { type OutboundAnswer, sendOutbound } from '../observability/outbound-http';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 1000;

interface MailAttachment {
  filename: string;
  /** Media type of the part, e.g. application/pdf. */
  contentType: string;
  content: Uint8Array;
}

export interface MailMessage {
  /** One address or several; each may carry a name ("Name <address>"). */
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

export interface SentMail {
  /** The service's message id, e.g. <20240101120000.1.ABCD@mail.example.com>. */
  id: string;
  /** HTTP attempts made. */
  attempts: number;
}

type MailFailureKind = 'not_configured' | 'invalid' | 'http' | 'timeout' | 'unreachable' | 'unreadable';

export class MailError extends IntegrationError {
  override readonly name = 'MailError';
  constructor(
    readonly kind: MailFailureKind,
    message: string,
    /** The last HTTP status received, null when none (not sent, timeout, network). */
    status: number | null = null,
    /** HTTP attempts made. */
    readonly attempts = 0,
  ) {
    // Once a request left, the message may have been queued: only a refusal (a 3xx or 4xx) surely was not.
    const refused =
      kind === 'not_configured' || kind === 'invalid' || (kind === 'http' && status !== null && status < 500);
    super('mail', message, status, transient(kind, status), attempts > 0 && !refused);
  }
}

export interface MailClientOptions {
  baseUrl: string;
  apiKey: string;
  /** The sending domain (the path of every call). */
  domain: string;
  /** From header, bare or "Name <address>", on `domain` (the settings check it). */
  from: string;
  timeoutMs?: number;
  maxAttempts?: number;
  /** First backoff; doubles per retry, jittered. */
  backoffMs?: number;
}

/** The service's own words: the JSON `message`, else the start of the body. */
function serviceMessage(text: string): string {
  // Not always JSON (the 401 answers a bare "Forbidden").
  const body = parseJson(text);
  if (isRecord(body) && typeof body.message === 'string' && body.message) return bodyExcerpt(body.message) || 'no body';
  return bodyExcerpt(text) || 'no body';
}

export class MailClient {
  readonly baseUrl: string;
  readonly domain: string;
  readonly from: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;

  constructor(options: MailClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey.trim();
    this.domain = options.domain.trim();
    this.from = options.from.trim();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  }

  /** A client from the settings (MAIL_BASE_URL, _API_KEY, _DOMAIN, _FROM, _TIMEOUT_SECONDS, _RETRY_BACKOFF_MS). */
  static fromSettings(config: Settings, overrides: Partial<MailClientOptions> = {}): MailClient {
    return new MailClient({
      baseUrl: config.MAIL_BASE_URL,
      apiKey: config.MAIL_API_KEY,
      domain: config.MAIL_DOMAIN,
      from: config.MAIL_FROM,
      timeoutMs: config.MAIL_TIMEOUT_SECONDS * 1000,
      backoffMs: config.MAIL_RETRY_BACKOFF_MS,
      ...overrides,
    });
  }

  /** Whether sending is on: key, domain, From and base URL all set. */
  get isConfigured(): boolean {
    return this.missingSettings().length === 0;
  }

  /** The request URL (public so tests can check it). */
  messagesUrl(): string {
    return `${this.baseUrl}/v3/${encodeURIComponent(this.domain)}/messages`;
  }

  /**
   * Sends one message with retries; its id once the service has queued it.
   * Throws MailError: 'not_configured' (check isConfigured first), 'invalid'
   * (nothing sent), or the final HTTP/network failure.
   */
  async send(message: MailMessage): Promise<SentMail> {
    const missing = this.missingSettings();
    if (missing.length)
      throw new MailError('not_configured', `mail is not configured: ${missing.join(', ')} must be set`);
    const form = this.form(message);
    const result = await sendOutbound(
      {
        timeoutMs: this.timeoutMs,
        attempts: this.maxAttempts,
        backoffMs: this.backoffMs,
        onRetry: (failure, attempt) =>
          // Addresses stay out of the logs (insureds are mailed too).
          logger.warn('mail service call failed; retrying', {
            domain: this.domain,
            attempt,
            kind: kindOf(failure),
            status: failure.status,
            detail: failure.message,
          }),
      },
      {
        url: this.messagesUrl(),
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`api:${this.apiKey}`).toString('base64')}`,
          accept: 'application/json',
        },
        body: form,
      },
      (answer) => this.messageId(answer),
    );
    if (result.ok) return { id: result.value, attempts: result.attempts };
    const failure = { ...result.failure, kind: kindOf(result.failure) };
    throw new MailError(
      failure.kind,
      failureSummary('mail', failure, result.attempts),
      failure.status,
      result.attempts,
    );
  }

  private missingSettings(): string[] {
    const missing: string[] = [];
    if (!this.apiKey) missing.push('MAIL_API_KEY');
    if (!this.domain) missing.push('MAIL_DOMAIN');
    if (!this.from) missing.push('MAIL_FROM');
    if (!this.baseUrl) missing.push('MAIL_BASE_URL');
    return missing;
  }

  /** The multipart body; a message the service would refuse fails here, before any call. */
  private form(message: MailMessage): FormData {
    const to = (Array.isArray(message.to) ? message.to : [message.to]).map((a) => a.trim()).filter(Boolean);
    const problems: string[] = [];
    if (!to.length) problems.push('no recipient');
    if (!message.subject?.trim()) problems.push('no subject');
    if (!message.text?.trim() && !message.html?.trim()) problems.push('no text or html body');
    const attachments = message.attachments ?? [];
    if (attachments.some((a) => !a.filename?.trim())) problems.push('an attachment without a filename');
    if (problems.length) throw new MailError('invalid', `mail not sent: ${problems.join(', ')}`);

    const form = new FormData();
    form.append('from', this.from);
    for (const address of to) form.append('to', address);
    form.append('subject', message.subject);
    if (message.text) form.append('text', message.text);
    if (message.html) form.append('html', message.html);
    for (const a of attachments) {
      // A copy in a plain ArrayBuffer: Blob takes no Buffer over a shared pool.
      const bytes = new Uint8Array(a.content.byteLength);
      bytes.set(a.content);
      form.append('attachment', new Blob([bytes], { type: a.contentType || 'application/octet-stream' }), a.filename);
    }
    return form;
  }

  /** One answer: the message id, or AttemptFailed saying whether it is worth another. */
  private messageId({ status, text, headers }: OutboundAnswer): string {
    if (status < 200 || status >= 300) throw statusFailed(status, headers, this.explain(status, serviceMessage(text)));
    const body = parseJson(text);
    // Not retried: the message may well have been queued.
    if (!isRecord(body) || typeof body.id !== 'string' || !body.id)
      throw attemptFailed({
        kind: 'unreadable',
        status,
        message: `the answer carries no message id (${bodyExcerpt(text, 200) || 'empty body'})`,
        retryable: false,
      });
    return body.id;
  }

  /** What a refusal most likely means for this deployment's settings. */
  private explain(status: number, said: string): string {
    if (status === 401)
      return `the key was refused (${said}): check MAIL_API_KEY, and that MAIL_BASE_URL is the region of the key`;
    if (status === 404)
      return `${said}: check MAIL_DOMAIN (${this.domain}) and MAIL_BASE_URL (${this.baseUrl}; EU domains use https://api.eu.mailgun.net)`;
    return said;
  }
}

/** The core's kinds of failure as this client's. */
const kindOf = (failure: AttemptFailure) => clientKind(failure.kind) as MailFailureKind;
