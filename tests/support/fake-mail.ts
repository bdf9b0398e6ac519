/**
 * Drives the fake mail service (tests/fakes/mail-server.ts) through its HTTP
 * control API, from any process. The fake is shared by the whole run
 * (TEST_FAKE_MAIL_URL): scope reads and failures with a match string unique
 * to the test (in the subject, the text or a recipient) rather than reset().
 */
import type { MailFailureMode, RecordedAttachment, RecordedMail } from '../fakes/mail-server';
import { controlCaller } from './fake-control';

interface ReceivedAttachment extends Omit<RecordedAttachment, 'content_base64'> {
  content: Buffer;
}

interface ReceivedMail extends Omit<RecordedMail, 'attachments'> {
  attachments: ReceivedAttachment[];
}

export interface FakeMailControl {
  origin: string;
  /** Messages the fake queued (matching ones only with `match`), oldest first. */
  messages(match?: string): Promise<ReceivedMail[]>;
  /** Every send it received, refused and failed ones included. */
  requests(match?: string): Promise<ReceivedMail[]>;
  failNext(mode: MailFailureMode, count?: number, match?: string): Promise<void>;
  reset(): Promise<void>;
}

const received = (mail: RecordedMail): ReceivedMail => ({
  ...mail,
  attachments: mail.attachments.map(({ content_base64, ...rest }) => ({
    ...rest,
    content: Buffer.from(content_base64, 'base64'),
  })),
});

export function fakeMail(url: string): FakeMailControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake mail service');
  const list = async (match: string | undefined, all: boolean) => {
    const query = new URLSearchParams({ ...(match ? { match } : {}), ...(all ? { all: '1' } : {}) });
    const mails = await call<RecordedMail[]>('GET', `/__fake/messages${query.size ? `?${query}` : ''}`);
    return mails.map(received);
  };

  return {
    origin,
    messages: (match) => list(match, false),
    requests: (match) => list(match, true),
    failNext: async (mode, count = 1, match) =>
      void (await call('POST', '/__fake/fail', { mode, count, ...(match ? { match } : {}) })),
    reset: async () => void (await call('POST', '/__fake/reset')),
  };
}
