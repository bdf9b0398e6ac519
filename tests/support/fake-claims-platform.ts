/**
 * Drives the fake claims platform (tests/fakes/claims-platform-server.ts)
 * through its HTTP control API, from any process. One fake may serve a whole
 * run: scope with a token unique to the test (each token is its own team
 * unless one is named) and match strings unique to it, rather than reset().
 */
import type {
  ClaimsPlatformFailureMode,
  FakePlatformClaim,
  FakePlatformProfiles,
  RecordedPlatformRequest,
} from '../fakes/claims-platform-server';
import { controlCaller } from './fake-control';

interface FailNextOptions {
  /** Requests to fail (default 1). */
  count?: number;
  /** Only requests whose "METHOD path" (as sent or decoded) contains it, or whose token equals it. */
  match?: string;
  /** Apply the request, then fail its answer (a lost answer). */
  afterApply?: boolean;
  /** The detail of an injected 422. */
  detail?: string;
}

interface FakeClaimsPlatformControl {
  origin: string;
  /** Lets `token` in, as `team` (default: its own team). */
  registerToken(token: string, team?: string): Promise<void>;
  /** The profiles GET /api/v1/profiles answers to the token's team. */
  setProfiles(token: string, profiles: FakePlatformProfiles): Promise<void>;
  /** The claims of the token's team, with rooms, items, photos and analyze flags. */
  claims(token: string): Promise<FakePlatformClaim[]>;
  /** API requests received, oldest first (only the token's, or matching ones, when given). */
  requests(filter?: { token?: string; match?: string }): Promise<RecordedPlatformRequest[]>;
  failNext(mode: ClaimsPlatformFailureMode, options?: FailNextOptions): Promise<void>;
  /** Keep requests whose "METHOD path" contains `match` unanswered and unapplied until release(match), `ms` at most. */
  hold(match: string, ms?: number): Promise<void>;
  release(match: string): Promise<void>;
  /** Forget recorded requests and pending failures of every test (teams and claims stay). */
  reset(): Promise<void>;
}

export function fakeClaimsPlatform(url: string): FakeClaimsPlatformControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake claims platform');

  return {
    origin,
    registerToken: async (token, team) =>
      void (await call('POST', '/__fake/tokens', { token, ...(team !== undefined ? { team } : {}) })),
    setProfiles: async (token, profiles) => void (await call('POST', '/__fake/profiles', { token, ...profiles })),
    claims: (token) => call<FakePlatformClaim[]>('GET', `/__fake/claims?${new URLSearchParams({ token })}`),
    requests: (filter = {}) => {
      const query = new URLSearchParams({
        ...(filter.token !== undefined ? { token: filter.token } : {}),
        ...(filter.match ? { match: filter.match } : {}),
      });
      return call<RecordedPlatformRequest[]>('GET', `/__fake/requests${query.size ? `?${query}` : ''}`);
    },
    failNext: async (mode, options = {}) =>
      void (await call('POST', '/__fake/fail', {
        mode,
        count: options.count ?? 1,
        ...(options.match ? { match: options.match } : {}),
        ...(options.afterApply ? { afterApply: true } : {}),
        ...(options.detail !== undefined ? { detail: options.detail } : {}),
      })),
    hold: async (match, ms) => void (await call('POST', '/__fake/hold', { match, ...(ms ? { ms } : {}) })),
    release: async (match) => void (await call('POST', '/__fake/release', { match })),
    reset: async () => void (await call('POST', '/__fake/reset')),
  };
}
