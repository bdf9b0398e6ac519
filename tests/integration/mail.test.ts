/**
 * The mail client against the run's fake mail service over real HTTP: the
 * message and its attachments (a PDF made with pdfkit, raw bytes) arrive
 * byte for byte; 5xx, 429, resets and timeouts are retried, 400/401/404 are
 * not and say why; an unconfigured or incomplete message never leaves the
 * process. Each test scopes the shared fake with its own tag in the subject.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import PDFDocument from 'pdfkit';
import { loadSettings } from '../../lib/config';
import { MailClient, MailError, type MailMessage } from '../../lib/integrations/mail';
import { logger } from '../../lib/observability/logger';
import { fakeMail } from '../support/fake-mail';
import { TEST_MAIL_DOMAIN } from '../support/service-env';

const mail = fakeMail(process.env.TEST_FAKE_MAIL_URL as string);

/** The client exactly as the service builds it from its settings (the fake's URL and key, short timeout and backoff). */
const client = (overrides: Parameters<typeof MailClient.fromSettings>[1] = {}) =>
  MailClient.fromSettings(loadSettings(), overrides);

const uniqueTag = () => `report-${randomUUID()}`;

const message = (tag: string, extra: Partial<MailMessage> = {}): MailMessage => ({
  to: 'support@example.test',
  subject: `PDF import needs a look (${tag})`,
  text: 'The reader found no photos in this document.',
  ...extra,
});

function makePdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'LETTER' });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(14).text('Contents list: Living room');
    doc.addPage().text('Item 1: Sofa');
    doc.end();
  });
}

async function failure(promise: Promise<unknown>): Promise<MailError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof MailError) return err;
    throw err;
  }
  throw new Error('expected a MailError');
}

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let warn: jest.SpyInstance;
beforeAll(() => {
  warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterAll(() => warn.mockRestore());

describe('mail client against the fake mail service', () => {
  it('sends from, to, subject, text, html and attachments as multipart parts, byte for byte', async () => {
    const tag = uniqueTag();
    const pdf = await makePdf();
    const raw = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const sent = await client().send(
      message(tag, {
        to: ['support@example.test', 'Claims Desk <desk@example.test>'],
        html: '<p>The reader found <b>no photos</b>.</p>',
        attachments: [
          { filename: 'contents list.pdf', contentType: 'application/pdf', content: pdf },
          { filename: 'bytes.bin', contentType: 'application/octet-stream', content: raw },
        ],
      }),
    );
    expect(sent.id).toMatch(new RegExp(`^<.+@${TEST_MAIL_DOMAIN.replace(/\./g, '\\.')}>$`));
    expect(sent.attempts).toBe(1);

    const [received] = await mail.messages(tag);
    expect(received).toMatchObject({
      id: sent.id,
      domain: TEST_MAIL_DOMAIN,
      authorized: true,
      from: `Contents Inventory <inventory@${TEST_MAIL_DOMAIN}>`,
      to: ['support@example.test', 'Claims Desk <desk@example.test>'],
      subject: `PDF import needs a look (${tag})`,
      text: 'The reader found no photos in this document.',
      html: '<p>The reader found <b>no photos</b>.</p>',
      answered: 200,
    });
    expect(received.content_type).toMatch(/^multipart\/form-data; boundary=/);
    expect(received.attachments.map(({ content, ...a }) => a)).toEqual([
      expect.objectContaining({ filename: 'contents list.pdf', content_type: 'application/pdf', size: pdf.length }),
      expect.objectContaining({ filename: 'bytes.bin', content_type: 'application/octet-stream', size: 256 }),
    ]);
    expect(received.attachments[0].content.equals(pdf)).toBe(true);
    expect(received.attachments[0].content.subarray(0, 5).toString()).toBe('%PDF-');
    expect(received.attachments[1].content.equals(raw)).toBe(true);
  });

  it('sends a message without attachments and without html', async () => {
    const tag = uniqueTag();
    await client().send(message(tag));
    const [received] = await mail.messages(tag);
    expect(received.attachments).toEqual([]);
    expect(received.html).toBeNull();
  });

  it.each(['500', '503', '429', 'reset'] as const)('retries a %s and then sends', async (mode) => {
    const tag = uniqueTag();
    await mail.failNext(mode, 2, tag);
    const sent = await client().send(message(tag));
    expect(sent.attempts).toBe(3);
    const answers = (await mail.requests(tag)).map((r) => r.answered);
    expect(answers).toEqual([mode, mode, 200]);
    expect(await mail.messages(tag)).toHaveLength(1);
  });

  it('gives up after the last attempt with the status and the count', async () => {
    const tag = uniqueTag();
    await mail.failNext('503', 3, tag);
    const err = await failure(client().send(message(tag)));
    expect(err).toMatchObject({ kind: 'http', status: 503, attempts: 3 });
    expect(err.message).toMatch(/HTTP 503.*after 3 attempts/);
    expect(await mail.messages(tag)).toEqual([]);
  });

  it('bounds each attempt by the timeout and retries it', async () => {
    const tag = uniqueTag();
    await mail.failNext('timeout', 2, tag);
    const started = Date.now();
    const err = await failure(client({ timeoutMs: 300, maxAttempts: 2 }).send(message(tag)));
    expect(err).toMatchObject({ kind: 'timeout', status: null, attempts: 2 });
    expect(err.message).toContain('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('retries an unreachable service and names the network failure', async () => {
    const port = await closedPort();
    const err = await failure(client({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 2 }).send(message('x')));
    expect(err).toMatchObject({ kind: 'unreachable', status: null, attempts: 2 });
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('does not retry a refused key and points at MAIL_API_KEY', async () => {
    const tag = uniqueTag();
    const err = await failure(client({ apiKey: 'not-the-key' }).send(message(tag)));
    expect(err).toMatchObject({ kind: 'http', status: 401, attempts: 1 });
    expect(err.message).toContain('Forbidden');
    expect(err.message).toContain('MAIL_API_KEY');
    const [request] = await mail.requests(tag);
    expect(request).toMatchObject({ authorized: false, answered: 401, id: null });
  });

  it('does not retry an unknown domain and points at MAIL_DOMAIN', async () => {
    const tag = uniqueTag();
    const err = await failure(client({ domain: 'other.example.test' }).send(message(tag)));
    expect(err).toMatchObject({ kind: 'http', status: 404, attempts: 1 });
    expect(err.message).toContain('Domain not found: other.example.test');
    expect(err.message).toContain('MAIL_DOMAIN');
  });

  it("does not retry a 400 and carries the service's message", async () => {
    const tag = uniqueTag();
    await mail.failNext('400', 1, tag);
    const err = await failure(client().send(message(tag)));
    expect(err).toMatchObject({ kind: 'http', status: 400, attempts: 1 });
    expect(err.message).toContain("'to' parameter is not a valid address");
  });

  it('does not retry a 200 it cannot read (the message may have been queued)', async () => {
    const tag = uniqueTag();
    await mail.failNext('garbage', 1, tag);
    const err = await failure(client().send(message(tag)));
    expect(err).toMatchObject({ kind: 'unreadable', status: 200, attempts: 1 });
    expect(err.message).toContain('no message id');
  });

  it('refuses an incomplete message before any call', async () => {
    const tag = uniqueTag();
    const err = await failure(
      client().send(
        message(tag, {
          to: [' '],
          text: '',
          attachments: [{ filename: '', contentType: 'application/pdf', content: Buffer.from('%PDF-') }],
        }),
      ),
    );
    expect(err).toMatchObject({ kind: 'invalid', attempts: 0 });
    expect(err.message).toBe('mail not sent: no recipient, no text or html body, an attachment without a filename');
    expect(await mail.requests(tag)).toEqual([]);
  });

  it('is off without the key: isConfigured is false and send refuses without a call', async () => {
    const tag = uniqueTag();
    const off = MailClient.fromSettings(loadSettings({ overrides: { MAIL_API_KEY: '', MAIL_FROM: '' } }));
    expect(off.isConfigured).toBe(false);
    expect(client().isConfigured).toBe(true);
    const err = await failure(off.send(message(tag)));
    expect(err).toMatchObject({ kind: 'not_configured', status: null, attempts: 0 });
    expect(err.message).toBe('mail is not configured: MAIL_API_KEY, MAIL_FROM must be set');
    expect(await mail.requests(tag)).toEqual([]);
  });

  it('posts to {MAIL_BASE_URL}/v3/{MAIL_DOMAIN}/messages', () => {
    expect(client({ baseUrl: 'api.eu.mailgun.net/' }).messagesUrl()).toBe(
      `https://api.eu.mailgun.net/v3/${TEST_MAIL_DOMAIN}/messages`,
    );
  });
});

describe('fake mail service contract', () => {
  const post = (path: string, body: FormData | string, headers: Record<string, string> = {}) =>
    fetch(`${mail.origin}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${process.env.MAIL_API_KEY}`).toString('base64')}`,
        ...headers,
      },
      body,
    });

  it('answers 400 with the missing parameter, as the service does', async () => {
    const tag = uniqueTag();
    const form = new FormData();
    form.append('from', `inventory@${TEST_MAIL_DOMAIN}`);
    form.append('subject', tag);
    form.append('text', 'hello');
    const res = await post(`/v3/${TEST_MAIL_DOMAIN}/messages`, form);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'to parameter is missing' });
  });

  it('reads urlencoded forms too, and answers an unknown path with a bare 404', async () => {
    const tag = uniqueTag();
    const form = new URLSearchParams({
      from: `inventory@${TEST_MAIL_DOMAIN}`,
      to: 'a@example.test, b@example.test',
      subject: tag,
      text: 'hello',
      'o:tag': 'pdf-import',
    });
    const res = await post(`/v3/${TEST_MAIL_DOMAIN}/messages`, form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: expect.stringMatching(/^<.+>$/), message: 'Queued. Thank you.' });
    const [received] = await mail.messages(tag);
    expect(received).toMatchObject({ to: ['a@example.test', 'b@example.test'], options: { 'o:tag': 'pdf-import' } });

    const missing = await post(`/v3/${TEST_MAIL_DOMAIN}/nothing`, 'x');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('404 page not found');
  });
});
