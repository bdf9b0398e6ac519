import {
  formatTraceparent,
  logRecordOf,
  otlpConfig,
  parseOtlpHeaders,
  parseTraceparent,
  resourceAttributes,
  traceparentOfMessage,
} from '../../../lib/observability/signal-rules';

const base = {
  OTEL_SDK_DISABLED: false,
  OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example.test:4318/',
  OTEL_EXPORTER_OTLP_HEADERS: '',
  OTEL_SERVICE_NAME: 'contents-inventory',
  SIGNALS_TIMEOUT_MS: 2000,
  APP_ENV: 'production',
  SIGNALS_ID_KEY: 'signals-id-key',
  CLAIMS_PLATFORM_JWT_SECRET: '',
};

describe('otlpConfig', () => {
  it('sends each signal to its standard path under the endpoint, with the headers, timeout and resource', () => {
    expect(
      otlpConfig(
        { ...base, OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D%3D,team = blue' },
        { AWS_LAMBDA_FUNCTION_NAME: 'contents-inventory-prod-stageWorker', AWS_REGION: 'eu-west-1' },
      ),
    ).toEqual({
      tracesUrl: 'https://collector.example.test:4318/v1/traces',
      metricsUrl: 'https://collector.example.test:4318/v1/metrics',
      logsUrl: 'https://collector.example.test:4318/v1/logs',
      headers: { 'x-api-key': 'abc==', team: 'blue' },
      timeoutMs: 2000,
      resource: {
        'service.name': 'contents-inventory',
        'deployment.environment.name': 'production',
        'cloud.provider': 'aws',
        'faas.name': 'contents-inventory-prod-stageWorker',
        'cloud.region': 'eu-west-1',
      },
      // The SDK modules hash the ids that leave with it (they read no settings: see otel-trace-sdk.ts).
      idKey: Buffer.from('signals-id-key'),
    });
  });

  it('is off without an endpoint, with one that is not http(s), and when the SDK is disabled', () => {
    expect(otlpConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeNull();
    expect(otlpConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: '   ' })).toBeNull();
    expect(otlpConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toBeNull();
    expect(otlpConfig({ ...base, OTEL_SDK_DISABLED: true })).toBeNull();
    expect(otlpConfig(base)).not.toBeNull();
  });
});

describe('parseOtlpHeaders', () => {
  it('reads comma-separated key=value pairs, decoding values and skipping malformed pairs', () => {
    expect(parseOtlpHeaders('a=1, b = two words ,=nokey,novalue, c=%E0%A4%A, d=x=y')).toEqual({
      a: '1',
      b: 'two words',
      c: '%E0%A4%A',
      d: 'x=y',
    });
    expect(parseOtlpHeaders('')).toEqual({});
    expect(parseOtlpHeaders(' =1')).toEqual({});
  });
});

describe('resourceAttributes', () => {
  it('names the service (default when blank) and stage, and the function only on Lambda', () => {
    expect(resourceAttributes({ OTEL_SERVICE_NAME: ' ', APP_ENV: 'local' }, {})).toEqual({
      'service.name': 'contents-inventory',
      'deployment.environment.name': 'local',
    });
  });
});

describe('traceparent', () => {
  const ids = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true };

  it('formats and parses a version-00 traceparent', () => {
    const text = formatTraceparent(ids);
    expect(text).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent(text)).toEqual(ids);
    expect(parseTraceparent(formatTraceparent({ ...ids, sampled: false }))).toEqual({ ...ids, sampled: false });
    expect(parseTraceparent(` ${text.toUpperCase()} `)).toEqual(ids);
  });

  it('refuses what is not one: other types, malformed, other versions, all-zero ids', () => {
    expect(parseTraceparent(undefined)).toBeNull();
    expect(parseTraceparent(42)).toBeNull();
    expect(parseTraceparent('00-xyz-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBeNull();
    expect(parseTraceparent(`00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`)).toBeNull();
  });

  it('is read from a message attribute as Lambda or the SQS API gives it', () => {
    const text = formatTraceparent(ids);
    expect(traceparentOfMessage({ traceparent: { stringValue: text, dataType: 'String' } })).toBe(text);
    expect(traceparentOfMessage({ traceparent: { StringValue: text, DataType: 'String' } })).toBe(text);
    expect(traceparentOfMessage({ traceparent: { stringValue: 'garbage' } })).toBeNull();
    expect(traceparentOfMessage({ traceparent: 'not an attribute' })).toBeNull();
    expect(traceparentOfMessage({})).toBeNull();
    expect(traceparentOfMessage(undefined)).toBeNull();
    expect(traceparentOfMessage([text])).toBeNull();
  });
});

describe('logRecordOf', () => {
  it('makes the message the body, the level the severity and every other field an attribute', () => {
    expect(
      logRecordOf({
        level: 'WARN',
        message: 'unit failed',
        timestamp: '2026-01-01T00:00:00.000Z',
        service: 'contents-inventory',
        sampling_rate: 0,
        job_id: 'j1',
        attempt: 2,
        retried: true,
        error: { name: 'Error', message: 'boom' },
        missing: null,
        absent: undefined,
      }),
    ).toEqual({
      body: 'unit failed',
      severityNumber: 13,
      severityText: 'WARN',
      attributes: { job_id: 'j1', attempt: 2, retried: true, error: '{"name":"Error","message":"boom"}' },
    });
  });

  it('maps every level, defaults to INFO and copes with odd messages and values', () => {
    const severity = (level: unknown) => logRecordOf({ level, message: 'm' }).severityNumber;
    expect([severity('debug'), severity('INFO'), severity('ERROR'), severity('CRITICAL'), severity('TRACE')]).toEqual([
      5, 9, 17, 21, 1,
    ]);
    expect(severity('NOISY')).toBe(9);
    expect(logRecordOf({ message: 'no level' }).severityText).toBe('INFO');
    expect(logRecordOf({ level: 'INFO', message: { text: 'object' } }).body).toBe('{"text":"object"}');
    expect(logRecordOf({ level: 'INFO' }).body).toBe('""');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(logRecordOf({ level: 'INFO', message: 'm', circular }).attributes.circular).toBe('[object Object]');
    expect(logRecordOf({ level: 'INFO', message: 'm', fn: () => 1 }).attributes.fn).toMatch(/=>/);
  });
});
