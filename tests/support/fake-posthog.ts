/**
 * Drives the fake product analytics service (tests/fakes/posthog-server.ts)
 * through its HTTP control API, from any process. The fake is shared by the
 * whole run (TEST_FAKE_POSTHOG_URL): read with a match string unique to the
 * test (a job or user id), and put the mode back to 'up' when done.
 */
import type { AnalyticsMode, RecordedEvent } from '../fakes/posthog-server';
import type { SinkStats } from '../fakes/signal-sink';
import { controlCaller } from './fake-control';

export interface FakePostHogControl {
  origin: string;
  events(match?: string): Promise<RecordedEvent[]>;
  stats(): Promise<SinkStats<'capture'>>;
  /** `match`: the mode holds only for deliveries that contain it (the fake serves the whole run at once). */
  setMode(mode: AnalyticsMode, match?: string): Promise<void>;
}

export function fakePostHog(url: string): FakePostHogControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake analytics service');
  return {
    origin,
    events: (match) =>
      call<RecordedEvent[]>('GET', `/__fake/events${match ? `?match=${encodeURIComponent(match)}` : ''}`),
    stats: () => call('GET', '/__fake/stats'),
    setMode: async (mode, match) => void (await call('POST', '/__fake/mode', { mode, match })),
  };
}
