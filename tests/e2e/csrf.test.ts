/**
 * Cross-site request forgery: a write authenticated by the shared cookie alone
 * must come from an allowed origin (CORS_ORIGINS) or carry X-Requested-With,
 * which a cross-site form cannot send; bearer-token writes are unchanged.
 * JSON bodies are read only when sent as JSON (415 otherwise), so a
 * text/plain or form-encoded cross-site post never reaches a handler.
 */
import { Client, request, type RequestOptions } from '../support/api';
import { newTeamMember, signLoginToken } from '../support/tokens';

const ALLOWED_ORIGIN = 'http://app.example.test'; // in the test service's CORS_ORIGINS
const EVIL_ORIGIN = 'https://evil.example';

let owner: Client;
let cookie: string;

beforeAll(async () => {
  const member = newTeamMember();
  owner = await Client.signIn(member);
  cookie = `bt_shared_data=${await signLoginToken(member)}`;
});

async function claimNumbers(): Promise<string[]> {
  const res = await owner.get('/api/claims');
  expect(res.status).toBe(200);
  return res.body.map((c: { claim_number: string }) => c.claim_number);
}

const viaCookie = (headers: Record<string, string> = {}): RequestOptions => ({ cookie, headers });

describe('a write authenticated by the cookie', () => {
  it('is refused with 403 without an Origin, and nothing is written', async () => {
    const res = await request('POST', '/api/claims', { ...viaCookie(), body: { claim_number: 'CSRF-NO-ORIGIN' } });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/origin/i);
    expect(await claimNumbers()).not.toContain('CSRF-NO-ORIGIN');
  });

  it('is refused with 403 from an origin outside CORS_ORIGINS, and nothing is written', async () => {
    const res = await request('POST', '/api/claims', {
      ...viaCookie({ origin: EVIL_ORIGIN }),
      body: { claim_number: 'CSRF-EVIL' },
    });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/origin/i);
    expect(await claimNumbers()).not.toContain('CSRF-EVIL');
  });

  it('is refused on PATCH, PUT, DELETE and body-less POSTs too, changing nothing', async () => {
    const claim = (await owner.post('/api/claims', { claim_number: 'CSRF-TARGET', insured_name: 'Kept' })).body;
    const room = (await owner.post(`/api/claims/${claim.id}/rooms`, { name: 'Den' })).body;
    const attempts: Array<[string, string, unknown]> = [
      ['PATCH', `/api/claims/${claim.id}`, { insured_name: 'Forged' }],
      ['POST', `/api/claims/${claim.id}/archive`, undefined],
      ['PUT', `/api/rooms/${room.id}`, { name: 'Forged' }],
      ['PUT', '/api/auth/me', { timezone: 'Europe/Paris' }],
      ['DELETE', `/api/uploads/${crypto.randomUUID()}`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const res = await request(method, path, { ...viaCookie({ origin: EVIL_ORIGIN }), body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
    expect((await owner.get(`/api/claims/${claim.id}`)).body).toMatchObject({
      insured_name: 'Kept',
      is_archived: false,
    });
    expect((await owner.get(`/api/rooms/${room.id}`)).body.name).toBe('Den');
    expect((await owner.get('/api/auth/me')).body.timezone).toBe('');
  });

  it('is accepted from an allowed origin', async () => {
    const res = await request('POST', '/api/claims', {
      ...viaCookie({ origin: ALLOWED_ORIGIN }),
      body: { claim_number: 'CSRF-ALLOWED' },
    });
    expect(res.status).toBe(201);
    expect(await claimNumbers()).toContain('CSRF-ALLOWED');
  });

  it('is accepted with X-Requested-With (a cross-site form cannot send it)', async () => {
    const res = await request('POST', '/api/claims', {
      ...viaCookie({ 'x-requested-with': 'XMLHttpRequest' }),
      body: { claim_number: 'CSRF-XRW' },
    });
    expect(res.status).toBe(201);
    expect(await claimNumbers()).toContain('CSRF-XRW');
  });

  it('leaves reads alone', async () => {
    expect((await request('GET', '/api/claims', viaCookie({ origin: EVIL_ORIGIN }))).status).toBe(200);
    expect((await request('GET', '/api/auth/me', viaCookie())).status).toBe(200);
  });
});

describe('a write authenticated by a bearer token', () => {
  it('needs no Origin', async () => {
    const res = await owner.post('/api/claims', { claim_number: 'CSRF-BEARER' });
    expect(res.status).toBe(201);
    expect(await claimNumbers()).toContain('CSRF-BEARER');
  });

  it('still needs a valid token even with an allowed origin', async () => {
    const res = await request('POST', '/api/claims', {
      token: 'not.a.jwt',
      headers: { origin: ALLOWED_ORIGIN },
      body: { claim_number: 'CSRF-BAD-TOKEN' },
    });
    expect(res.status).toBe(401);
  });
});

describe('a body that is not sent as JSON', () => {
  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
  ])('is refused with 415 when sent as %s, and nothing is created', async (_name, contentType) => {
    const number = `CSRF-CT-${contentType.split(/[/;]/)[1]}`;
    const res = await owner.post('/api/claims', JSON.stringify({ claim_number: number }), {
      headers: { 'content-type': contentType },
    });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/application\/json/);
    expect(await claimNumbers()).not.toContain(number);
  });

  it('is refused with 415 from the cookie and an allowed origin too (the classic cross-site form post)', async () => {
    const res = await request('POST', '/api/claims', {
      ...viaCookie({ origin: ALLOWED_ORIGIN, 'content-type': 'text/plain' }),
      body: JSON.stringify({ claim_number: 'CSRF-CT-COOKIE' }),
    });
    expect(res.status).toBe(415);
    expect(await claimNumbers()).not.toContain('CSRF-CT-COOKIE');
  });

  it('is accepted as application/json with a charset, and as a +json type', async () => {
    const withCharset = await owner.post('/api/claims', JSON.stringify({ claim_number: 'CSRF-CT-CHARSET' }), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(withCharset.status).toBe(201);
    const plusJson = await owner.post('/api/claims', JSON.stringify({ claim_number: 'CSRF-CT-PLUS' }), {
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(plusJson.status).toBe(201);
    expect(await claimNumbers()).toEqual(expect.arrayContaining(['CSRF-CT-CHARSET', 'CSRF-CT-PLUS']));
  });
});
