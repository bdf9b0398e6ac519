/**
 * Drives a running fake AI gateway (tests/fakes/ai-gateway-server.ts) through
 * its HTTP control API, from any process. Give it the gateway's base URL (the
 * OPENROUTER_BASE_URL it serves, e.g. http://127.0.0.1:PORT/api/v1) or its
 * origin. The gateway is shared by the whole run: use match strings unique to
 * the test (e.g. a random original filename) rather than reset().
 */
import type { FailureMode, RecordedAiRequest, ScriptedPass } from '../fakes/ai-gateway-server';
import { controlCaller } from './fake-control';

export type { ScriptedPass } from '../fakes/ai-gateway-server';

export interface FakeGatewayControl {
  origin: string;
  script(match: string, passes: ScriptedPass[]): Promise<void>;
  failNext(mode: FailureMode, count?: number, match?: string): Promise<void>;
  setLatency(ms: number): Promise<void>;
  requests(match?: string): Promise<RecordedAiRequest[]>;
  reset(): Promise<void>;
}

export function fakeGateway(url: string): FakeGatewayControl {
  const origin = new URL(url).origin;

  const call = controlCaller(origin, 'fake AI gateway');

  return {
    origin,
    script: async (match, passes) => void (await call('POST', '/__fake/script', { match, passes })),
    failNext: async (mode, count = 1, match) =>
      void (await call('POST', '/__fake/fail', { mode, count, ...(match ? { match } : {}) })),
    setLatency: async (ms) => void (await call('POST', '/__fake/latency', { ms })),
    requests: (match) =>
      call<RecordedAiRequest[]>('GET', `/__fake/requests${match ? `?match=${encodeURIComponent(match)}` : ''}`),
    reset: async () => void (await call('POST', '/__fake/reset')),
  };
}

/** One item as the model answers it: a confident, visible, priced item unless told otherwise. */
export function modelItem(name: string, confidence = 0.9, extra: Record<string, unknown> = {}) {
  return {
    name,
    quantity: 1,
    brand: null,
    model: null,
    serial: null,
    sku: null,
    condition: 'good',
    age: null,
    estimated_price: 100,
    damage: null,
    notes: null,
    confidence,
    evidence: `${name} is visible`,
    ...extra,
  };
}
