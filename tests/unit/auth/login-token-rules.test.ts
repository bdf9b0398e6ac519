import { SignJWT, type JWTPayload } from 'jose';
import { HANDOFF_AUDIENCE, HANDOFF_PURPOSE } from '../../../lib/auth/handoff-rules';
import {
  ExpiredLoginTokenError,
  extractLoginToken,
  INVALID_TOKEN,
  verifyLoginToken,
} from '../../../lib/auth/login-token-rules';
import { NotSignedInError } from '../../../lib/errors';
import { logger } from '../../../lib/observability/logger';

const SECRET = 'unit-test-shared-secret-0123456789';
const key = (secret: string) => new TextEncoder().encode(secret);
const UUID = '3f2b8c1e-9d4a-4e6f-8b7c-1a2d3e4f5a6b';

const baseClaims = {
  user_id: 101,
  user_name: 'Ada Lovelace',
  email: 'ada@example.com',
  current_team_id: 42,
  current_team_name: 'Acme Adjusters',
  current_team_token: 'team-token-abc',
};

async function sign(
  payload: JWTPayload,
  opts: { secret?: string; alg?: 'HS256' | 'HS384' | 'HS512'; exp?: number | string } = {},
): Promise<string> {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' }).setIssuedAt();
  jwt.setExpirationTime(opts.exp ?? '12h');
  return jwt.sign(key(opts.secret ?? SECRET));
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Runs fn and returns the NotSignedInError it rejected with (fails the test otherwise). */
async function rejection(fn: () => Promise<unknown>): Promise<NotSignedInError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(NotSignedInError);
    return err as NotSignedInError;
  }
  throw new Error('expected a rejection, but the call resolved');
}

async function expect401(token: string, secret = SECRET) {
  const err = await rejection(() => verifyLoginToken(token, secret));
  expect(err.code).toBe('not_signed_in');
  expect(err.message).toBe('Invalid or expired token');
}

let errorSpy: jest.SpyInstance;
beforeEach(() => {
  errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('verifyLoginToken: accepted tokens and claim mapping', () => {
  it('normalizes an integer user_id to its string form and maps the claims', async () => {
    const { claims, raw } = await verifyLoginToken(await sign(baseClaims), SECRET);
    expect(claims.user_id).toBe('101');
    expect(claims.current_team_id).toBe(42);
    expect(claims.user_name).toBe('Ada Lovelace');
    expect(claims.email).toBe('ada@example.com');
    expect(claims.current_team_name).toBe('Acme Adjusters');
    expect(claims.current_team_token).toBe('team-token-abc');
    expect(claims.current_team_estimation_intake_key).toBeUndefined();
    expect(claims.impersonated_by).toBeUndefined();
    expect(raw.user_id).toBe(101);
  });

  it('keeps a string user_id and a UUID user_id as they are', async () => {
    const plain = await verifyLoginToken(await sign({ ...baseClaims, user_id: 'legacy-77' }), SECRET);
    expect(plain.claims.user_id).toBe('legacy-77');
    const uuid = await verifyLoginToken(await sign({ ...baseClaims, user_id: UUID }), SECRET);
    expect(uuid.claims.user_id).toBe(UUID);
  });

  it('accepts current_team_id as an integer or as a numeric string (both become a number)', async () => {
    const asInt = await verifyLoginToken(await sign({ ...baseClaims, current_team_id: 7 }), SECRET);
    expect(asInt.claims.current_team_id).toBe(7);
    const asString = await verifyLoginToken(await sign({ ...baseClaims, current_team_id: '8' }), SECRET);
    expect(asString.claims.current_team_id).toBe(8);
  });

  it('rejects a non-numeric or fractional current_team_id', async () => {
    await expect401(await sign({ ...baseClaims, current_team_id: 'acme' }));
    await expect401(await sign({ ...baseClaims, current_team_id: 4.5 }));
  });

  it('carries the optional estimation intake key and impersonated_by when present', async () => {
    const { claims } = await verifyLoginToken(
      await sign({ ...baseClaims, current_team_estimation_intake_key: 'est-key-1', impersonated_by: 7 }),
      SECRET,
    );
    expect(claims.current_team_estimation_intake_key).toBe('est-key-1');
    expect(claims.impersonated_by).toBe('7');
  });

  it('does not check audience or subject (aud "anything", integer sub 123 pass)', async () => {
    const { claims, raw } = await verifyLoginToken(
      await sign({ ...baseClaims, aud: 'anything', sub: 123 as unknown as string }),
      SECRET,
    );
    expect(claims.user_id).toBe('101');
    expect(raw.aud).toBe('anything');
    expect(raw.sub).toBe(123);
  });
});

describe('verifyLoginToken: rejected tokens answer 401 "Invalid or expired token"', () => {
  it('exports the message the spec names', () => {
    expect(INVALID_TOKEN).toBe('Invalid or expired token');
  });

  it('rejects a token without user_id', async () => {
    const { user_id: _omit, ...rest } = baseClaims;
    void _omit;
    await expect401(await sign(rest));
  });

  it('rejects a token without current_team_id', async () => {
    const { current_team_id: _omit, ...rest } = baseClaims;
    void _omit;
    await expect401(await sign(rest));
  });

  it('rejects an empty or blank string user_id', async () => {
    await expect401(await sign({ ...baseClaims, user_id: '' }));
    await expect401(await sign({ ...baseClaims, user_id: '   ' }));
  });

  it('rejects an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    await expect401(await sign(baseClaims, { exp: past }));
  });

  it('tells a genuine expired token apart (still 401), carrying its claims for the expiry report', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const token = await sign(baseClaims, { exp: past });
    const err = await rejection(() => verifyLoginToken(token, SECRET));
    expect(err).toBeInstanceOf(ExpiredLoginTokenError);
    expect(err.message).toBe(INVALID_TOKEN);
    expect((err as ExpiredLoginTokenError).payload).toMatchObject({ user_id: 101, exp: past });
  });

  it('does not take an expired token signed with another secret, or an expired hand-off token, for an expiry', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const forged = await sign(baseClaims, { exp: past, secret: 'some-other-secret-value-xyz' });
    expect(await rejection(() => verifyLoginToken(forged, SECRET))).not.toBeInstanceOf(ExpiredLoginTokenError);
    const handoff = await sign({ ...baseClaims, purpose: HANDOFF_PURPOSE }, { exp: past });
    expect(await rejection(() => verifyLoginToken(handoff, SECRET))).not.toBeInstanceOf(ExpiredLoginTokenError);
  });

  it('rejects a token that carries no exp (it would never expire)', async () => {
    const token = await new SignJWT(baseClaims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(key(SECRET));
    await expect401(token);
  });

  it('rejects a token signed with another secret', async () => {
    await expect401(await sign(baseClaims, { secret: 'some-other-secret-value-xyz' }));
  });

  it('rejects an unsigned alg "none" token', async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...baseClaims, exp })}.`;
    await expect401(token);
  });

  it('rejects an HS512-signed token even with the right secret', async () => {
    await expect401(await sign(baseClaims, { alg: 'HS512' }));
  });

  it('rejects garbage', async () => {
    await expect401('not-a-jwt');
    await expect401('a.b.c');
    await expect401('');
  });

  it('rejects every token and logs an error while the secret is unset', async () => {
    const token = await sign(baseClaims);
    await expect401(token, '');
    expect(errorSpy).toHaveBeenCalledTimes(1);
    expect(String(errorSpy.mock.calls[0][0])).toContain('CLAIMS_PLATFORM_JWT_SECRET');
  });

  it('does not log an error for an ordinary bad token when the secret is set', async () => {
    await expect401('not-a-jwt');
    expect(errorSpy).not.toHaveBeenCalled();
  });

  it('rejects a hand-off token carrying the purpose marker', async () => {
    await expect401(await sign({ ...baseClaims, purpose: HANDOFF_PURPOSE }));
  });

  it('rejects a hand-off token carrying the audience marker (string or in an array)', async () => {
    await expect401(await sign({ ...baseClaims, aud: HANDOFF_AUDIENCE }));
    await expect401(await sign({ ...baseClaims, aud: ['someone-else', HANDOFF_AUDIENCE] }));
  });
});

describe('extractLoginToken', () => {
  const COOKIE = 'bt_shared_data';

  it('reads a bearer token from the lowercased authorization header (API Gateway v2)', () => {
    expect(extractLoginToken({ authorization: 'Bearer abc.def.ghi' }, undefined, COOKIE)).toEqual({
      token: 'abc.def.ghi',
      via: 'bearer',
    });
  });

  it('reads a capitalized Authorization header and a lowercase scheme', () => {
    expect(extractLoginToken({ Authorization: 'bearer tok123' }, undefined, COOKIE)).toEqual({
      token: 'tok123',
      via: 'bearer',
    });
  });

  it('ignores a non-bearer authorization header', () => {
    expect(extractLoginToken({ authorization: 'Basic dXNlcjpwYXNz' }, undefined, COOKIE)).toBeNull();
  });

  it('reads the named cookie from the event.cookies array', () => {
    expect(extractLoginToken({}, ['theme=dark', `${COOKIE}=cookie.jwt.value`], COOKIE)).toEqual({
      token: 'cookie.jwt.value',
      via: 'cookie',
    });
  });

  it('reads the named cookie from a Cookie header', () => {
    expect(extractLoginToken({ cookie: `a=1; ${COOKIE}=hdr.jwt.value; b=2` }, undefined, COOKIE)).toEqual({
      token: 'hdr.jwt.value',
      via: 'cookie',
    });
    expect(extractLoginToken({ Cookie: `${COOKIE}=cap.jwt.value` }, undefined, COOKIE)).toEqual({
      token: 'cap.jwt.value',
      via: 'cookie',
    });
  });

  it('honours the configured cookie name and ignores other cookies', () => {
    expect(extractLoginToken({}, ['bt_shared_data=x.y.z'], 'custom_name')).toBeNull();
    expect(extractLoginToken({}, ['custom_name=x.y.z'], 'custom_name')).toEqual({ token: 'x.y.z', via: 'cookie' });
  });

  it('strips surrounding double quotes from a cookie value', () => {
    expect(extractLoginToken({}, [`${COOKIE}="quoted.jwt.value"`], COOKIE)).toEqual({
      token: 'quoted.jwt.value',
      via: 'cookie',
    });
  });

  it('reads a URL-encoded cookie holding JSON {"token": ...}', () => {
    const encoded = encodeURIComponent(JSON.stringify({ token: 'json.jwt.value', other: 1 }));
    expect(extractLoginToken({}, [`${COOKIE}=${encoded}`], COOKIE)).toEqual({ token: 'json.jwt.value', via: 'cookie' });
    expect(extractLoginToken({ cookie: `${COOKIE}=${encoded}` }, undefined, COOKIE)).toEqual({
      token: 'json.jwt.value',
      via: 'cookie',
    });
  });

  it('returns null for a JSON cookie without a usable token', () => {
    expect(extractLoginToken({}, [`${COOKIE}=${encodeURIComponent('{"token":""}')}`], COOKIE)).toBeNull();
    expect(extractLoginToken({}, [`${COOKIE}=${encodeURIComponent('{"token":5}')}`], COOKIE)).toBeNull();
    expect(extractLoginToken({}, [`${COOKIE}=${encodeURIComponent('{not json')}`], COOKIE)).toBeNull();
  });

  it('prefers the bearer header over the cookie', () => {
    expect(
      extractLoginToken(
        { authorization: 'Bearer from.header.jwt', cookie: `${COOKIE}=from.cookie.jwt` },
        [`${COOKIE}=from.cookies.jwt`],
        COOKIE,
      ),
    ).toEqual({
      token: 'from.header.jwt',
      via: 'bearer',
    });
  });

  it('returns null when there is neither header nor cookie', () => {
    expect(extractLoginToken({}, undefined, COOKIE)).toBeNull();
    expect(extractLoginToken({}, [], COOKIE)).toBeNull();
    expect(extractLoginToken({ authorization: '' }, ['other=1'], COOKIE)).toBeNull();
  });

  it('returns null (does not throw) for malformed percent-encoding in the cookie', () => {
    expect(() => extractLoginToken({}, [`${COOKIE}=%E0%A4%A`], COOKIE)).not.toThrow();
    expect(extractLoginToken({}, [`${COOKIE}=%E0%A4%A`], COOKIE)).toBeNull();
    expect(extractLoginToken({ cookie: `${COOKIE}=%zz` }, undefined, COOKIE)).toBeNull();
  });

  it('an extracted bearer token round-trips through verifyLoginToken', async () => {
    const token = await sign({ ...baseClaims, user_id: UUID });
    const found = extractLoginToken({ authorization: `Bearer ${token}` }, undefined, COOKIE);
    expect(found?.via).toBe('bearer');
    const { claims } = await verifyLoginToken(found!.token, SECRET);
    expect(claims.user_id).toBe(UUID);
  });
});
