/**
 * Drives the fake estimation platform (tests/fakes/estimation-platform-server.ts)
 * through its HTTP control API, from any process. The fake is meant to be
 * shared by a whole run: give each test its own keys (registerKey with a
 * unique key, and a unique firm when it needs one) and scope reads and
 * failures by key rather than calling reset().
 */
import type {
  EstimationFailOptions,
  EstimationFailureMode,
  FakeEstimationClaim,
  FakeSchedule,
  RecordedEstimationRequest,
} from '../fakes/estimation-platform-server';
import { controlCaller } from './fake-control';

interface SeededClaim {
  claim_number: string;
  policyholder_name: string | null;
  archived?: boolean;
  /** The remote's key for it (default: a generated, awkward one). */
  claim_key?: string;
}

interface FakeEstimationControl {
  origin: string;
  /** Makes `key` valid, for `firm` (default: a firm of its own, named after the key). */
  registerKey(key: string, firm?: string): Promise<{ key: string; firm: string }>;
  /** Sets the catalog of the key's firm. */
  setCatalog(key: string, schedules: FakeSchedule[]): Promise<void>;
  /** Adds a claim to the key's firm directly (no items), as if made on the platform. */
  seedClaim(key: string, claim: SeededClaim): Promise<FakeEstimationClaim>;
  /** The key's firm's claims with their items, oldest first. */
  claims(key: string): Promise<FakeEstimationClaim[]>;
  /** Recorded requests, oldest first: with this exact key, and/or whose "METHOD /path" contains `match`. */
  requests(filter?: { key?: string; match?: string }): Promise<RecordedEstimationRequest[]>;
  /**
   * Makes the next `count` (default 1) matching requests fail. `match`: an API key, or a substring of
   * "METHOD /path"; `key`: only this exact key; `afterApply`: apply the request, then fail.
   */
  failNext(
    mode: EstimationFailureMode,
    options?: EstimationFailOptions & { count?: number; match?: string },
  ): Promise<void>;
  /** Keeps requests whose "KEY METHOD /path" contains `match` unanswered and unapplied until release(match), `ms` at most. */
  hold(match: string, ms?: number): Promise<void>;
  release(match: string): Promise<void>;
  /** Forgets recorded requests and pending failures (with `all`, keys, catalogs and claims too). */
  reset(all?: boolean): Promise<void>;
}

export function fakeEstimation(url: string): FakeEstimationControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake estimation platform');

  return {
    origin,
    registerKey: (key, firm) => call('POST', '/__fake/keys', { key, ...(firm ? { firm } : {}) }),
    setCatalog: async (key, schedules) => void (await call('POST', '/__fake/catalog', { key, schedules })),
    seedClaim: (key, claim) => call('POST', '/__fake/claims', { ...claim, key }),
    claims: (key) => call('GET', `/__fake/claims?${new URLSearchParams({ key })}`),
    requests: (filter = {}) => {
      const query = new URLSearchParams({
        ...(filter.key ? { key: filter.key } : {}),
        ...(filter.match ? { match: filter.match } : {}),
      });
      return call('GET', `/__fake/requests${query.size ? `?${query}` : ''}`);
    },
    failNext: async (mode, options = {}) => void (await call('POST', '/__fake/fail', { mode, ...options })),
    hold: async (match, ms) => void (await call('POST', '/__fake/hold', { match, ...(ms ? { ms } : {}) })),
    release: async (match) => void (await call('POST', '/__fake/release', { match })),
    reset: async (all = false) => void (await call('POST', '/__fake/reset', all ? { all: true } : {})),
  };
}
