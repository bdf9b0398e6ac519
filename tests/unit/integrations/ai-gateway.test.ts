/**
 * The AI gateway client's request shape and configuration rules (spec:
 * Processing rules 8-9), against the fake gateway started in-process (a real
 * HTTP server) with a recorder stub, so nothing touches the database.
 * Covers: lib/integrations/ai-gateway.ts, ai-gateway-attempt.ts, ai-call.ts, ai-usage.ts.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { loadSettings } from '../../../lib/config';
import { type AiCallRecord, AiGatewayError, type VisionRequest } from '../../../lib/integrations/ai-call';
import { acceptsTemperature, AiGatewayClient } from '../../../lib/integrations/ai-gateway';
import {
  INPUT_USD_PER_MILLION_TOKENS,
  OUTPUT_USD_PER_MILLION_TOKENS,
  tokenCostUsd,
  usageOf,
} from '../../../lib/integrations/ai-usage';
import { aiRequestRecord } from '../../../lib/jobs/ai-request-store';
import { passContent, startFakeAiGateway, type FakeAiGateway } from '../../fakes/ai-gateway-server';
import { logger } from '../../../lib/observability/logger';

let fake: FakeAiGateway;
let jpeg: Buffer;
const calls: AiCallRecord[] = [];
const recorder = (call: AiCallRecord) => void calls.push(call);

const client = (
  model = 'google/gemini-2.5-flash',
  extra: Partial<ConstructorParameters<typeof AiGatewayClient>[0]> = {},
) =>
  new AiGatewayClient({
    baseUrl: fake.url,
    apiKey: fake.apiKey,
    model,
    temperature: 0,
    backoffMs: 5,
    timeoutMs: 2000,
    recorder,
    ...extra,
  });

const request = (overrides: Partial<VisionRequest> = {}): VisionRequest => ({
  system: 'You list contents.',
  text: 'Identify the items. Source note: unit-shape',
  images: [{ label: 'Photo 1 (kitchen-unit.jpg)', jpeg }],
  maxTokens: 1200,
  responseFormat: {
    name: 'items',
    schema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
  },
  context: { jobId: 'job-unit', teamId: 'team-unit', purpose: 'photo-group', detail: { group_index: 3, pass: 1 } },
  ...overrides,
});

beforeAll(async () => {
  fake = await startFakeAiGateway();
  jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 10, b: 10 } } })
    .jpeg()
    .toBuffer();
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  calls.length = 0;
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('acceptsTemperature', () => {
  it.each([
    'o1',
    'o1-mini',
    'o3',
    'o3-mini',
    'openai/o3',
    'openai/o3-pro',
    'o4-mini',
    'openai/o4-mini-high',
    'gpt-5',
    'gpt-5-mini',
    'openai/gpt-5',
    'OpenAI/GPT-5-nano',
  ])('is false for the reasoning model %s', (model) => {
    expect(acceptsTemperature(model)).toBe(false);
  });
  it.each([
    'google/gemini-2.5-flash',
    'anthropic/claude-sonnet-4',
    'openai/gpt-4o',
    'gpt-4.1-mini',
    'meta-llama/llama-3.1-70b-instruct',
    'openai/o10-hypothetical',
    'mistral/o3ish',
  ])('is true for %s', (model) => {
    expect(acceptsTemperature(model)).toBe(true);
  });
});

describe('request body', () => {
  it('sends the system prompt, text, labelled images, max_tokens, temperature, usage and the JSON schema', async () => {
    fake.script('kitchen-unit.jpg', [{ items: [{ name: 'Toaster' }] }]);
    const answer = await client().complete(request());
    expect(answer).toMatchObject({
      content: JSON.stringify({ items: [{ name: 'Toaster' }] }),
      finishReason: 'stop',
      model: 'google/gemini-2.5-flash',
      attempts: 1,
    });

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent).toMatchObject({
      model: 'google/gemini-2.5-flash',
      max_tokens: 1200,
      temperature: 0,
      usage: { include: true },
      system: 'You list contents.',
      text: 'Identify the items. Source note: unit-shape',
      labels: ['Photo 1 (kitchen-unit.jpg)'],
      images: [{ label: 'Photo 1 (kitchen-unit.jpg)', bytes: jpeg.length, width: 64, height: 48 }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'items', strict: true, schema: request().responseFormat!.schema },
      },
      answered: 200,
    });
  });

  it('builds the OpenAI-compatible message list with a data URL per image', () => {
    const body = client().requestBody(
      request({
        images: [
          { label: 'A', jpeg },
          { label: 'B', jpeg },
        ],
      }),
    ) as any;
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You list contents.' });
    expect(body.messages[1].role).toBe('user');
    expect(body.messages[1].content.map((p: any) => p.type)).toEqual([
      'text',
      'text',
      'image_url',
      'text',
      'image_url',
    ]);
    expect(body.messages[1].content[1]).toEqual({ type: 'text', text: 'A' });
    expect(body.messages[1].content[2]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` },
    });
    expect(client('openai/gpt-5').requestBody(request())).not.toHaveProperty('temperature');
    expect(client().requestBody(request({ responseFormat: undefined }))).not.toHaveProperty('response_format');
  });

  it('sends a configured temperature and omits it for o3', async () => {
    await client('anthropic/claude-sonnet-4', { temperature: 0.3 }).complete(request());
    await client('openai/o3').complete(request());
    expect(fake.requests.map((r) => [r.model, r.temperature])).toEqual([
      ['anthropic/claude-sonnet-4', 0.3],
      ['openai/o3', undefined],
    ]);
    expect(calls.map((c) => c.temperature)).toEqual([0.3, null]);
  });

  it('hands the recorder the call with its usage, and a recordable row without image data', async () => {
    fake.script('kitchen-unit.jpg', [{ items: [{ name: 'Kettle' }], completionTokens: 40 }]);
    const answer = await client().complete(request());
    const usage = fake.requests[0].answer_usage!;
    expect(answer).toMatchObject({ inputTokens: usage.prompt_tokens, outputTokens: 40, costUsd: usage.cost });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      outcome: 'ok',
      attempts: 1,
      httpStatus: 200,
      usage: { inputTokens: usage.prompt_tokens, outputTokens: 40, costUsd: usage.cost },
      context: request().context,
    });

    const row = aiRequestRecord(calls[0], 'row-id');
    expect(row.request.images).toEqual([
      {
        label: 'Photo 1 (kitchen-unit.jpg)',
        bytes: jpeg.length,
        sha256: createHash('sha256').update(jpeg).digest('hex'),
      },
    ]);
    expect(JSON.stringify(row)).not.toContain(jpeg.toString('base64').slice(0, 40));
    expect(JSON.stringify(row)).not.toContain(fake.apiKey);
  });

  it('keeps the usage of failed answered attempts in the recorded spend but not in the answer', async () => {
    fake.failNext('no-content');
    const answer = await client().complete(request());
    const [failed, answered] = fake.requests;
    expect(failed.answered).toBe('no-content');
    expect(answer.attempts).toBe(2);
    expect(answer.inputTokens).toBe(answered.answer_usage!.prompt_tokens);
    expect(calls[0].attempts).toBe(2);
    expect(calls[0].usage.inputTokens).toBe(failed.answer_usage!.prompt_tokens + answered.answer_usage!.prompt_tokens);
  });

  it('never fails the call when the recorder throws, and logs it', async () => {
    const failing = client('google/gemini-2.5-flash', { recorder: () => Promise.reject(new Error('table gone')) });
    await expect(failing.complete(request())).resolves.toMatchObject({ attempts: 1 });
    expect(logger.error).toHaveBeenCalledWith(
      'recording an AI gateway call failed',
      expect.objectContaining({ job_id: 'job-unit', error: 'Error: table gone' }),
    );
  });

  it('cuts text fields of the request record at 20,000 characters', async () => {
    const long = 'x'.repeat(25_000);
    await client().complete(request({ system: long, text: long }));
    const row = aiRequestRecord(calls[0]);
    expect(row.request.system).toHaveLength(20_000);
    expect(row.request.text).toHaveLength(20_000);
  });
});

describe('retry pacing', () => {
  /** A gateway answering 429 with the given Retry-After header, then a normal answer. */
  async function rateLimitedOnce(retryAfter: string): Promise<{ url: string; server: Server; hits: () => number }> {
    let hits = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits++;
        if (hits === 1) {
          res
            .writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter })
            .end(JSON.stringify({ error: { message: 'slow down' } }));
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ model: 'm', choices: [{ message: { content: '{"items":[]}' }, finish_reason: 'stop' }] }),
          );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, server, hits: () => hits };
  }

  /** The setTimeout delays asked for while `run` runs, less the request timeouts. */
  async function pausesOf(timeoutMs: number, run: () => Promise<unknown>): Promise<number[]> {
    const spy = jest.spyOn(global, 'setTimeout');
    try {
      await run();
      return spy.mock.calls.map((call) => Number(call[1])).filter((ms) => ms !== timeoutMs);
    } finally {
      spy.mockRestore();
    }
  }

  it('waits at least the Retry-After of a 429 before the next attempt', async () => {
    const gateway = await rateLimitedOnce('1');
    try {
      const limited = new AiGatewayClient({
        baseUrl: gateway.url,
        apiKey: 'k',
        model: 'm',
        temperature: 0,
        backoffMs: 5,
        timeoutMs: 2000,
        recorder,
      });
      const pauses = await pausesOf(2000, () => limited.complete(request()));
      expect(gateway.hits()).toBe(2);
      expect(pauses.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1000);
    } finally {
      gateway.server.close();
    }
  });

  it('pauses between half and all of OPENROUTER_RETRY_BACKOFF_MS, doubling per retry', async () => {
    fake.failNext('503', 3, 'pacing-unit.jpg');
    const paced = client('google/gemini-2.5-flash', { backoffMs: 40 });
    const pauses = await pausesOf(2000, () =>
      paced.complete(request({ images: [{ label: 'Photo 1 (pacing-unit.jpg)', jpeg }] })),
    );
    expect(pauses).toHaveLength(3);
    pauses.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual((40 * 2 ** i) / 2);
      expect(ms).toBeLessThanOrEqual(40 * 2 ** i);
    });
  });
});

describe('unconfigured', () => {
  it('fails at once naming OPENROUTER_API_KEY, without any HTTP call', async () => {
    const noKey = client('google/gemini-2.5-flash', { apiKey: '  ' });
    const err = await noKey.complete(request()).catch((e) => e);
    expect(err).toBeInstanceOf(AiGatewayError);
    expect(err).toMatchObject({ kind: 'unconfigured', status: null, attempts: 0 });
    expect(err.message).toMatch(/OPENROUTER_API_KEY/);
    expect(fake.requests).toHaveLength(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ outcome: 'failed', failureKind: 'unconfigured', attempts: 0 });
  });

  it('reads the model, key, base URL and temperature from the settings', async () => {
    const config = loadSettings({
      env: {
        OPENROUTER_BASE_URL: `${fake.url}/`,
        OPENROUTER_API_KEY: fake.apiKey,
        OPENROUTER_MODEL: 'openai/gpt-4o',
        OPENROUTER_TEMPERATURE: '0.2',
        MACHINE_SETTINGS_FILE: '/nonexistent',
        DOTENV_FILE: '/nonexistent',
      },
    });
    const fromSettings = AiGatewayClient.fromSettings(config, { recorder, backoffMs: 5 });
    expect(fromSettings.baseUrl).toBe(fake.url);
    await fromSettings.complete(request());
    expect(fake.requests[0]).toMatchObject({ model: 'openai/gpt-4o', temperature: 0.2 });

    const defaults = loadSettings({ env: { MACHINE_SETTINGS_FILE: '/nonexistent', DOTENV_FILE: '/nonexistent' } });
    const unconfigured = AiGatewayClient.fromSettings(defaults, { recorder });
    expect(unconfigured.configured).toBe(false);
    await expect(unconfigured.complete(request())).rejects.toMatchObject({ kind: 'unconfigured' });
  });
});

describe('usage and cost', () => {
  it('uses the gateway cost when reported, else $5 / $25 per million tokens', () => {
    expect(INPUT_USD_PER_MILLION_TOKENS).toBe(5);
    expect(OUTPUT_USD_PER_MILLION_TOKENS).toBe(25);
    expect(usageOf({ usage: { prompt_tokens: 1000, completion_tokens: 200, cost: 0.5 } })).toEqual({
      inputTokens: 1000,
      outputTokens: 200,
      costUsd: 0.5,
    });
    expect(usageOf({ usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } })).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      costUsd: 30,
    });
    expect(tokenCostUsd(2000, 400)).toBeCloseTo(0.02);
    expect(usageOf({ choices: [] })).toBeNull();
  });
});

describe('fake gateway cut-short content', () => {
  it('cuts inside the item after the first ceil(n/2)', () => {
    const items = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const content = passContent({ items, cutShort: true });
    expect(content.startsWith('{"items":[{"n":1},{"n":2},{')).toBe(true);
    expect(() => JSON.parse(content)).toThrow();
  });
});
