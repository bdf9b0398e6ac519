import { createHmac } from 'node:crypto';
import { settings } from '../../../lib/config';
import {
  bareMessageId,
  insuredLinkUrl,
  invitationMail,
  LINK_TOKEN_PATTERN,
  linkExpiry,
  linkState,
  linkTokenHash,
  mailEventKind,
  mailEventSignatureValid,
  normalizeEmail,
  submitProcessing,
} from '../../../lib/insured/rules';
import { recordMailEvent } from '../../../lib/insured/service';

const NOW = new Date('2026-06-01T12:00:00.000Z');

describe('insured link rules', () => {
  it('tells live, revoked and expired apart (revoked first)', () => {
    const expires_at = linkExpiry(NOW, 30);
    expect(expires_at).toBe('2026-07-01T12:00:00.000Z');
    expect(linkState({ revoked_at: null, expires_at }, NOW)).toBe('live');
    expect(linkState({ revoked_at: null, expires_at }, new Date('2026-07-01T12:00:00.000Z'))).toBe('expired');
    expect(linkState({ revoked_at: '2026-06-01T00:00:00Z', expires_at: '2020-01-01T00:00:00Z' }, NOW)).toBe('revoked');
  });

  it('hashes tokens, recognises their shape and builds the URL', () => {
    expect(linkTokenHash('abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(LINK_TOKEN_PATTERN.test('A'.repeat(43))).toBe(true);
    expect(LINK_TOKEN_PATTERN.test('A'.repeat(42))).toBe(false);
    expect(insuredLinkUrl('https://app.example.test/', 'tok')).toBe('https://app.example.test/insured/tok');
    expect(normalizeEmail('  Pat@Example.COM ')).toBe('pat@example.com');
    expect(bareMessageId(' <id@mail.test> ')).toBe('id@mail.test');
  });

  it('writes the invitation with the link and its end date', () => {
    const mail = invitationMail({
      url: 'https://app/insured/t',
      claimNumber: 'CLM-9',
      insuredName: null,
      adjusterName: 'Ada',
      expiresAt: '2026-07-01T12:00:00.000Z',
    });
    expect(mail.subject).toContain('CLM-9');
    expect(mail.text).toContain('https://app/insured/t');
    expect(mail.text).toContain('2026-07-01');
    expect(mail.text.startsWith('Hello,')).toBe(true);
    expect(
      invitationMail({ url: 'u', claimNumber: 'c', insuredName: 'Pat', adjusterName: 'A', expiresAt: 'x' }).text,
    ).toMatch(/^Hello Pat,/);
  });

  it('checks mail event signatures: key, freshness, constant-time comparison', () => {
    const key = 'signing-key';
    const timestamp = String(NOW.getTime() / 1000);
    const token = 'tok';
    const good = createHmac('sha256', key)
      .update(timestamp + token)
      .digest('hex');
    expect(mailEventSignatureValid({ timestamp, token, signature: good }, key, NOW)).toBe(true);
    expect(mailEventSignatureValid({ timestamp, token, signature: good }, '', NOW)).toBe(false);
    expect(mailEventSignatureValid({ timestamp, token, signature: good.replace(/.$/, '0') }, key, NOW)).toBe(
      good.endsWith('0'),
    );
    expect(mailEventSignatureValid({ timestamp, token, signature: 'abc' }, key, NOW)).toBe(false);
    expect(
      mailEventSignatureValid({ timestamp, token, signature: good }, key, new Date(NOW.getTime() + 16 * 60_000)),
    ).toBe(false);
    expect(mailEventSignatureValid({ timestamp: 'x', token, signature: good }, key, NOW)).toBe(false);
    expect(mailEventSignatureValid({ token, signature: good }, key, NOW)).toBe(false);
    expect(mailEventKind('delivered')).toBe('delivered');
    expect(mailEventKind('failed')).toBe('failed');
    expect(mailEventKind('unsubscribed')).toBeNull();
  });

  it('rejects every mail event when no signing key is configured, before reading anything', async () => {
    const config = { ...settings(), MAIL_WEBHOOK_SIGNING_KEY: '' };
    const body = {
      signature: { timestamp: String(Math.floor(Date.now() / 1000)), token: 't', signature: 'aa' },
      'event-data': { event: 'delivered' },
    };
    await expect(recordMailEvent(body, { config })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('submitProcessing', () => {
  it('is true only while the last round started is not made yet', () => {
    expect(submitProcessing({})).toBe(false);
    expect(submitProcessing({ submit_round: 1 })).toBe(true);
    expect(submitProcessing({ submit_round: 2, submitted_round: 1 })).toBe(true);
    expect(submitProcessing({ submit_round: 2, submitted_round: 2 })).toBe(false);
  });
});
