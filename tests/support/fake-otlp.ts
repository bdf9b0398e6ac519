/**
 * Drives the fake OpenTelemetry collector (tests/fakes/otlp-collector.ts)
 * through its HTTP control API, from any process. The collector is shared by
 * the whole run (TEST_FAKE_OTLP_URL): read with a match string unique to the
 * test (a job id), and put the mode back to 'up' when done.
 */
import type {
  CollectorMode,
  CollectorStats,
  RecordedLog,
  RecordedMetricPoint,
  RecordedSpan,
} from '../fakes/otlp-collector';
import { controlCaller } from './fake-control';

export interface FakeOtlpControl {
  origin: string;
  spans(match?: string): Promise<RecordedSpan[]>;
  logs(match?: string): Promise<RecordedLog[]>;
  metrics(name?: string): Promise<RecordedMetricPoint[]>;
  stats(): Promise<CollectorStats>;
  /** `match`: the mode holds only for deliveries that contain it (the fake serves the whole run at once). */
  setMode(mode: CollectorMode, match?: string): Promise<void>;
}

const query = (name: string, value?: string) => (value ? `?${name}=${encodeURIComponent(value)}` : '');

export function fakeOtlp(url: string): FakeOtlpControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake OTLP collector');
  return {
    origin,
    spans: (match) => call<RecordedSpan[]>('GET', `/__fake/spans${query('match', match)}`),
    logs: (match) => call<RecordedLog[]>('GET', `/__fake/logs${query('match', match)}`),
    metrics: (name) => call<RecordedMetricPoint[]>('GET', `/__fake/metrics${query('name', name)}`),
    stats: () => call<CollectorStats>('GET', '/__fake/stats'),
    setMode: async (mode, match) => void (await call('POST', '/__fake/mode', { mode, match })),
  };
}
