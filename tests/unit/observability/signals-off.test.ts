/**
 * With no outbound signal configured (the default), nothing is loaded or
 * sent: every call is a no-op, the SDK modules are never required, and the
 * end-of-invocation flush returns at once without a network call.
 */
import { loadSettings, resetSettings } from '../../../lib/config';

const loaded: string[] = [];
jest.mock('../../../lib/observability/otel-trace-sdk', () => {
  loaded.push('traces');
  return jest.requireActual('../../../lib/observability/otel-trace-sdk');
});
jest.mock('../../../lib/observability/otel-metrics-sdk', () => {
  loaded.push('metrics');
  return jest.requireActual('../../../lib/observability/otel-metrics-sdk');
});
jest.mock('../../../lib/observability/otel-logs-sdk', () => {
  loaded.push('logs');
  return jest.requireActual('../../../lib/observability/otel-logs-sdk');
});
jest.mock('../../../lib/observability/sentry-client', () => {
  loaded.push('error tracking');
  return jest.requireActual('../../../lib/observability/sentry-client');
});

import { captureAnalytics } from '../../../lib/observability/analytics';
import { reportError } from '../../../lib/observability/error-tracking';
import { flushSignals, withSignalsFlushed } from '../../../lib/observability/flush';
import { inRunSpan, newRunTraceparent, recordRunSpan, runInMessageTrace } from '../../../lib/observability/job-trace';
import { logger } from '../../../lib/observability/logger';
import { recordAiUsage, recordRunEnd, recordStageDuration } from '../../../lib/observability/metrics';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

beforeAll(() => {
  resetSettings(
    loadSettings({ env: {}, dotenvPath: '/nonexistent/.env', machineFilePath: '/nonexistent/settings.env' }),
  );
});
afterAll(() => resetSettings());

it('records, reports and flushes nothing, loads no SDK and makes no network call', async () => {
  const fetchSpy = jest.spyOn(globalThis, 'fetch');
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  logger.warn('a warning with no collector to go to');
  expect(newRunTraceparent()).toBeNull();
  const attributes = { traceparent: { stringValue: TRACEPARENT } };
  await expect(
    runInMessageTrace(attributes, () => inRunSpan('stage.a', TRACEPARENT, {}, async () => 'ran')),
  ).resolves.toBe('ran');
  await expect(inRunSpan('stage.b', TRACEPARENT, {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
    'boom',
  );
  recordRunSpan(TRACEPARENT, { startedAt: new Date().toISOString(), attributes: {} });
  recordRunEnd({ pipeline: 'photo', sourceType: 'photo', outcome: 'complete', seconds: 1, items: 1, credits: 1 });
  recordStageDuration('photo', 'analyze', 1);
  recordAiUsage({ model: 'm', purpose: 'p', inputTokens: 1, outputTokens: 1, costUsd: 0.1 });
  captureAnalytics({ event: 'e', distinct_id: 'u', timestamp: new Date().toISOString(), properties: {} });
  reportError({ kind: 'pipeline_failure', level: 'error', message: 'failed' });

  const started = Date.now();
  await flushSignals();
  await expect(withSignalsFlushed(async (n: number) => n + 1)(1)).resolves.toBe(2);
  expect(Date.now() - started).toBeLessThan(100);
  expect(fetchSpy).not.toHaveBeenCalled();
  expect(loaded).toEqual([]);
  jest.restoreAllMocks();
});
