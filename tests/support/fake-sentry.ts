/**
 * Drives the fake error-tracking service (tests/fakes/sentry-server.ts)
 * through its HTTP control API, from any process. The fake is shared by the
 * whole run (TEST_FAKE_SENTRY_URL): read with a match string unique to the
 * test (a job id in a tag), and put the mode back to 'up' when done.
 */
import type { ErrorTrackingMode, RecordedEnvelope } from '../fakes/sentry-server';
import type { SinkStats } from '../fakes/signal-sink';
import { controlCaller } from './fake-control';

export interface FakeSentryControl {
  origin: string;
  envelopes(match?: string): Promise<RecordedEnvelope[]>;
  /** The event of each matching envelope (what a report says: level, tags, extra, exception or message). */
  events(match?: string): Promise<Record<string, any>[]>;
  stats(): Promise<SinkStats<'envelope'>>;
  /** `match`: the mode holds only for deliveries that contain it (the fake serves the whole run at once). */
  setMode(mode: ErrorTrackingMode, match?: string): Promise<void>;
}

export function fakeSentry(url: string): FakeSentryControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake error-tracking service');
  const envelopes = (match?: string) =>
    call<RecordedEnvelope[]>('GET', `/__fake/envelopes${match ? `?match=${encodeURIComponent(match)}` : ''}`);
  return {
    origin,
    envelopes,
    events: async (match) =>
      (await envelopes(match)).flatMap((envelope) =>
        envelope.items.filter((i) => i.header.type === 'event').map((i) => i.payload as Record<string, any>),
      ),
    stats: () => call('GET', '/__fake/stats'),
    setMode: async (mode, match) => void (await call('POST', '/__fake/mode', { mode, match })),
  };
}
