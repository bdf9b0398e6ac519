/**
 * A fake mail service speaking Mailgun's messages contract
 * (lib/integrations/mail.ts), over real HTTP on 127.0.0.1 and a free port.
 * `url` is the base URL to configure as MAIL_BASE_URL, with MAIL_API_KEY
 * `apiKey` and MAIL_DOMAIN `domain`.
 *
 *   POST /v3/{domain}/messages   Authorization: Basic base64("api:" + apiKey)
 *     multipart/form-data (or urlencoded): from, to, cc, bcc, subject, text, html, attachment, o:/h:/v: options
 *   200 {id: "<...@domain>", message: "Queued. Thank you."}
 *
 * - As the real service: a wrong or missing key answers 401 with the bare text
 *   "Forbidden" (checked first), another domain in the path 404 {message:
 *   "Domain not found: ..."}, an unknown path 404 without JSON, and a missing
 *   from, to or subject, or no text and no html, 400 {message}.
 * - Bodies are parsed by the platform's own form-data reader; each attachment
 *   is kept with its filename, type, size, SHA-256 and bytes.
 * - failNext(mode, count, match?) makes the next `count` (matching) sends fail:
 *   500, 503, 429, 400, 401, timeout (never answers), reset (socket destroyed),
 *   garbage (200, not JSON).
 *   `match` is looked for in the subject, the text and the recipients.
 * - Every send is recorded (`requests`), failed ones included, with how it was
 *   answered; accepted ones carry their id.
 * - Control API for other processes (tests/support/fake-mail.ts):
 *     GET  /__fake/messages?match=...&all=1    POST /__fake/fail {mode, count?, match?}
 *     POST /__fake/reset
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { controlBody, listenFake, misbehave, readBytes, sendJson } from './http';

const FAILURE_MODES = ['500', '503', '429', '400', '401', 'timeout', 'reset', 'garbage'] as const;
export type MailFailureMode = (typeof FAILURE_MODES)[number];

const MESSAGES_PATH = /^\/v3\/([^/]+)\/messages$/;
const QUEUED = 'Queued. Thank you.';

export interface RecordedAttachment {
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  /** The bytes, base64 (JSON travels through the control API). */
  content_base64: string;
}

export interface RecordedMail {
  /** The id answered; null when the send was refused or failed. */
  id: string | null;
  /** The domain in the path. */
  domain: string;
  authorized: boolean;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  attachments: RecordedAttachment[];
  /** Every other field (o:tag, h:Reply-To, v:..., ...), last value wins. */
  options: Record<string, string>;
  content_type: string | null;
  bytes: number;
  /** How it was answered: the HTTP status, or the failure mode injected. */
  answered: number | MailFailureMode;
  at: string;
}

export interface FakeMailServer {
  /** Base URL (the origin), e.g. http://127.0.0.1:41234; the control API lives here too. */
  url: string;
  apiKey: string;
  domain: string;
  requests: RecordedMail[];
  failNext(mode: MailFailureMode, count?: number, match?: string): void;
  /** Forget recorded sends and pending failures. */
  reset(): void;
  stop(): Promise<void>;
}

interface PendingFailure {
  mode: MailFailureMode;
  remaining: number;
  match?: string;
}

/** The fields of a multipart or urlencoded body; null when it is neither or does not parse. */
async function readForm(body: Buffer, contentType: string | undefined): Promise<FormData | null> {
  if (!contentType || !/^(multipart\/form-data|application\/x-www-form-urlencoded)\b/i.test(contentType)) return null;
  try {
    return await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return null;
  }
}

/** The text of the last value of a field (null when absent). */
function field(form: FormData, name: string): string | null {
  const values = form.getAll(name).filter((v): v is string => typeof v === 'string');
  return values.length ? values[values.length - 1] : null;
}

/** Recipients: every value of the field, each possibly a comma list. */
function addresses(form: FormData, name: string): string[] {
  return form
    .getAll(name)
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

const KNOWN_FIELDS = new Set(['from', 'to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachment']);

async function record(form: FormData, domain: string, authorized: boolean, req: IncomingMessage, bytes: number) {
  const attachments: RecordedAttachment[] = [];
  for (const part of form.getAll('attachment')) {
    if (typeof part === 'string') continue;
    const content = Buffer.from(await part.arrayBuffer());
    attachments.push({
      filename: part.name,
      content_type: part.type,
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      content_base64: content.toString('base64'),
    });
  }
  const options: Record<string, string> = {};
  for (const [name, value] of form) if (!KNOWN_FIELDS.has(name) && typeof value === 'string') options[name] = value;
  const mail: RecordedMail = {
    id: null,
    domain,
    authorized,
    from: field(form, 'from'),
    to: addresses(form, 'to'),
    cc: addresses(form, 'cc'),
    bcc: addresses(form, 'bcc'),
    subject: field(form, 'subject'),
    text: field(form, 'text'),
    html: field(form, 'html'),
    attachments,
    options,
    content_type: req.headers['content-type'] ?? null,
    bytes,
    answered: 0,
    at: new Date().toISOString(),
  };
  return mail;
}

/** Whether `match` occurs in the subject, the text or a recipient. */
const matches = (mail: RecordedMail, match: string) =>
  [mail.subject ?? '', mail.text ?? '', ...mail.to].some((s) => s.includes(match));

/** The first 400 the real service gives for this message, or null when it would queue it. */
function missingPart(mail: RecordedMail): string | null {
  if (!mail.from) return 'from parameter is missing';
  if (!mail.to.length) return 'to parameter is missing';
  if (!mail.subject) return 'subject parameter is missing';
  if (!mail.text && !mail.html)
    return "Need at least one of 'text', 'html', 'amp-html' or 'template' parameters specified";
  return null;
}

function forbidden(res: ServerResponse): number {
  res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Basic realm="MG API"' });
  res.end('Forbidden');
  return 401;
}

function pageNotFound(res: ServerResponse): number {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('404 page not found');
  return 404;
}

export async function startFakeMailServer(
  options: { apiKey?: string; domain?: string; port?: number } = {},
): Promise<FakeMailServer> {
  const apiKey = options.apiKey ?? 'fake-mail-key';
  const domain = options.domain ?? 'mail.example.test';
  const expectedAuth = `Basic ${Buffer.from(`api:${apiKey}`).toString('base64')}`;
  const failures: PendingFailure[] = [];
  const requests: RecordedMail[] = [];
  let sequence = 0;

  function failNext(mode: MailFailureMode, count = 1, match?: string) {
    if (!FAILURE_MODES.includes(mode)) throw new Error(`mode must be one of ${FAILURE_MODES.join(', ')}`);
    if (!(Number.isInteger(count) && count >= 1)) throw new Error('count must be a positive integer');
    failures.push({ mode, remaining: count, match: match || undefined });
  }

  function reset() {
    requests.length = 0;
    failures.length = 0;
  }

  function takeFailure(mail: RecordedMail): MailFailureMode | null {
    const index = failures.findIndex((f) => !f.match || matches(mail, f.match));
    if (index < 0) return null;
    const failure = failures[index];
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure.mode;
  }

  /** Answers with an injected failure ('timeout' never answers). */
  function fail(mode: MailFailureMode, req: IncomingMessage, res: ServerResponse) {
    switch (mode) {
      case '500':
      case '503':
        return sendJson(res, Number(mode), { message: 'Internal Server Error (injected)' });
      case '429':
        res.setHeader('retry-after', '0');
        return sendJson(res, 429, { message: 'Too Many Requests (injected)' });
      case '400':
        return sendJson(res, 400, { message: "'to' parameter is not a valid address. please check documentation" });
      case '401':
        return forbidden(res);
      case 'garbage':
      case 'reset':
      case 'timeout':
        return misbehave(server, mode, req, res);
    }
  }

  async function send(req: IncomingMessage, res: ServerResponse, pathDomain: string, body: Buffer) {
    const authorized = req.headers.authorization === expectedAuth;
    const form = await readForm(body, req.headers['content-type']);
    const mail = await record(form ?? new FormData(), pathDomain, authorized, req, body.length);
    requests.push(mail);
    const injected = takeFailure(mail);
    if (injected) {
      mail.answered = injected;
      fail(injected, req, res);
      return;
    }
    if (!authorized) {
      mail.answered = forbidden(res);
      return;
    }
    if (pathDomain !== domain) {
      mail.answered = sendJson(res, 404, { message: `Domain not found: ${pathDomain}` });
      return;
    }
    if (!form) {
      mail.answered = sendJson(res, 400, { message: 'body must be multipart/form-data or urlencoded form fields' });
      return;
    }
    const refused = missingPart(mail);
    if (refused) {
      mail.answered = sendJson(res, 400, { message: refused });
      return;
    }
    sequence += 1;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    mail.id = `<${stamp}.${sequence}.${randomBytes(4).toString('hex').toUpperCase()}@${domain}>`;
    mail.answered = sendJson(res, 200, { id: mail.id, message: QUEUED });
  }

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    try {
      if (method === 'GET' && path === '/__fake/messages') {
        const match = query.get('match');
        const all = query.get('all') === '1';
        return sendJson(
          res,
          200,
          requests.filter((m) => (all || m.id !== null) && (!match || matches(m, match))),
        );
      }
      if (method === 'POST' && path === '/__fake/fail') {
        failNext(
          body.mode as MailFailureMode,
          body.count === undefined ? 1 : (body.count as number),
          typeof body.match === 'string' ? body.match : undefined,
        );
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/reset') {
        reset();
        return sendJson(res, 200, { ok: true });
      }
    } catch (err) {
      return sendJson(res, 400, { error: (err as Error).message });
    }
    return sendJson(res, 404, { error: 'not_found' });
  }

  const server = await listenFake(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = await readBytes(req);
      if (url.pathname.startsWith('/__fake/')) {
        control(url.pathname, req.method ?? 'GET', url.searchParams, body.toString('utf8'), res);
        return;
      }
      const path = MESSAGES_PATH.exec(url.pathname);
      if (req.method === 'POST' && path) {
        await send(req, res, decodeURIComponent(path[1]), body);
        return;
      }
      pageNotFound(res);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { message: String(err) });
    }
  }, options.port);

  return {
    url: server.url,
    apiKey,
    domain,
    requests,
    failNext,
    reset,
    stop: () => server.close(),
  };
}
