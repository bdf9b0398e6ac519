import { createHmac, hkdfSync } from 'node:crypto';
import {
  outboundId,
  outboundIdKey,
  UNKEYED_ID,
  withOutboundIds,
  withOutboundIdsInText,
} from '../../../lib/observability/outbound-id-rules';

const JOB = '2c1f6b0e-8a1d-4b6e-9d3a-0f4c5b6a7e8d';
const TEAM = '7d0e4b1a-3c2f-4e5d-8a9b-0c1d2e3f4a5b';
const KEY = Buffer.from('a signals id key of at least thirty-two bytes');
const OTHER_KEY = Buffer.from('another signals id key, thirty-two bytes long');
const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('outboundId', () => {
  it('is id_ and the first 24 hex characters of HMAC-SHA256(key, id in lower case)', () => {
    const expected = createHmac('sha256', KEY).update(JOB).digest('hex').slice(0, 24);
    expect(outboundId(JOB, KEY)).toBe(`id_${expected}`);
    expect(outboundId(JOB.toUpperCase(), KEY)).toBe(`id_${expected}`);
  });

  it('gives the same id the same value, other ids and other keys other values', () => {
    expect(outboundId(JOB, KEY)).toBe(outboundId(JOB, Buffer.from(KEY)));
    expect(outboundId(TEAM, KEY)).not.toBe(outboundId(JOB, KEY));
    expect(outboundId(JOB, OTHER_KEY)).not.toBe(outboundId(JOB, KEY));
  });

  it('hides every id alike without a key', () => {
    expect(outboundId(JOB, null)).toBe(UNKEYED_ID);
    expect(outboundId(TEAM, null)).toBe(UNKEYED_ID);
  });
});

describe('withOutboundIds', () => {
  it('replaces every UUID in a text, a URL path included, and keeps trace ids and other text', () => {
    const text = `GET /api/jobs/${JOB}/video for team ${TEAM.toUpperCase()} trace 4bf92f3577b34da6a3ce929d0e0e4736`;
    expect(withOutboundIdsInText(text, KEY)).toBe(
      `GET /api/jobs/${outboundId(JOB, KEY)}/video for team ${outboundId(TEAM, KEY)} trace 4bf92f3577b34da6a3ce929d0e0e4736`,
    );
    expect(withOutboundIdsInText(`/api/photos/${JOB}/orig_0001.jpg`, KEY)).toBe(
      `/api/photos/${outboundId(JOB, KEY)}/orig_0001.jpg`,
    );
  });

  it('replaces ids in nested values and keys, and keeps numbers, booleans, nulls and byte arrays', () => {
    const bytes = new Uint8Array([1, 2]);
    const value = { job_id: JOB, n: 3, ok: true, none: null, list: [`x ${TEAM}`, 1], [JOB]: { bytes } };
    const out = withOutboundIds(value, KEY);
    expect(out).toEqual({
      job_id: outboundId(JOB, KEY),
      n: 3,
      ok: true,
      none: null,
      list: [`x ${outboundId(TEAM, KEY)}`, 1],
      [outboundId(JOB, KEY)]: { bytes },
    });
    expect(JSON.stringify(out)).not.toMatch(UUID_ANYWHERE);
    expect(value.job_id).toBe(JOB);
  });

  it('drops what is nested too deep to read rather than sending it', () => {
    let deep: Record<string, unknown> = { leaf: JOB };
    for (let i = 0; i < 30; i++) deep = { next: deep };
    expect(JSON.stringify(withOutboundIds(deep, KEY))).not.toContain(JOB);
  });
});

describe('outboundIdKey', () => {
  const base = { SIGNALS_ID_KEY: '', CLAIMS_PLATFORM_JWT_SECRET: '', APP_ENV: 'production' };

  it('is SIGNALS_ID_KEY when set', () => {
    expect(outboundIdKey({ ...base, SIGNALS_ID_KEY: 'k'.repeat(32), CLAIMS_PLATFORM_JWT_SECRET: 's' })).toEqual(
      Buffer.from('k'.repeat(32)),
    );
  });

  it('else is derived from the login token secret with HKDF, never the secret itself', () => {
    const secret = 's'.repeat(40);
    const key = outboundIdKey({ ...base, CLAIMS_PLATFORM_JWT_SECRET: secret });
    expect(key).toEqual(
      Buffer.from(
        hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), 'contents-inventory/outbound-signal-ids', 32),
      ),
    );
    expect(key?.toString()).not.toContain(secret);
  });

  it('else is a fixed local key with APP_ENV=local, and none in a deployed stage', () => {
    const local = outboundIdKey({ ...base, APP_ENV: 'local' });
    expect(local).toEqual(outboundIdKey({ ...base, APP_ENV: 'local' }));
    expect(local).not.toBeNull();
    expect(outboundIdKey({ ...base })).toBeNull();
    expect(outboundIdKey({ ...base, APP_ENV: 'stage' })).toBeNull();
  });
});
