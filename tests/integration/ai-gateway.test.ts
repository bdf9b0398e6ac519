/**
 * The AI gateway client against the fake gateway over real HTTP (spec:
 * Processing rules 8-9; ProcessingJob ai_* fields; Output budget and
 * truncation). The jobs recorder writes to the embedded DynamoDB: job
 * counters and the redacted request records.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import sharp from 'sharp';
import { type AiFailureKind, AiGatewayError, type VisionRequest } from '../../lib/integrations/ai-call';
import { AiGatewayClient } from '../../lib/integrations/ai-gateway';
import { listAiRequests } from '../../lib/jobs/ai-request-store';
import { recordAiCall } from '../../lib/jobs/ai-request-service';
import { salvageItems } from '../../lib/integrations/structured-output';
import { logger } from '../../lib/observability/logger';
import {
  startFakeAiGateway,
  type FailureMode,
  type FakeAiGateway,
  type RecordedAiRequest,
} from '../fakes/ai-gateway-server';
import { getRow, seedJob } from '../support/aws';
import { fakeGateway } from '../support/fake-gateway';

let fake: FakeAiGateway;
let jpeg: Buffer;

const client = (
  options: { model?: string; timeoutMs?: number; maxAttempts?: number; baseUrl?: string; apiKey?: string } = {},
) =>
  new AiGatewayClient({
    baseUrl: options.baseUrl ?? fake.url,
    apiKey: options.apiKey ?? fake.apiKey,
    model: options.model ?? 'google/gemini-2.5-flash',
    temperature: 0,
    backoffMs: 5,
    timeoutMs: options.timeoutMs ?? 5000,
    maxAttempts: options.maxAttempts,
    recorder: recordAiCall,
  });

/** A job to charge the calls to, and a filename unique to the test to script answers by. */
async function scenario() {
  const teamId = randomUUID();
  const jobId = await seedJob({ id: randomUUID(), claim_id: randomUUID(), team_id: teamId }, 'photo');
  const file = `IMG_${randomUUID().slice(0, 8)}.jpg`;
  const request = (overrides: Partial<VisionRequest> = {}): VisionRequest => ({
    system: 'You list the contents shown in the photos.',
    text: 'List every movable item.',
    images: [{ label: `Photo 1 (${file})`, jpeg }],
    maxTokens: 900,
    responseFormat: {
      name: 'items',
      schema: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object' } } },
        required: ['items'],
      },
    },
    context: { jobId, teamId, purpose: 'photo-group', detail: { group_index: 0, pass: 1 } },
    ...overrides,
  });
  return { jobId, teamId, file, request };
}

const jobRow = async (id: string) => (await getRow(`JOB#${id}`, 'JOB')) as Record<string, any>;

/** What the fake says it billed for these requests. */
function billed(requests: RecordedAiRequest[]) {
  return requests.reduce(
    (sum, r) => ({
      input: sum.input + (r.answer_usage?.prompt_tokens ?? 0),
      output: sum.output + (r.answer_usage?.completion_tokens ?? 0),
      cost: sum.cost + (r.answer_usage?.cost ?? 0),
    }),
    { input: 0, output: 0, cost: 0 },
  );
}

async function expectJobSpend(jobId: string, requests: RecordedAiRequest[]) {
  const row = await jobRow(jobId);
  const spend = billed(requests);
  expect(row.ai_api_calls).toBe(requests.length);
  expect(row.ai_input_tokens ?? 0).toBe(spend.input);
  expect(row.ai_output_tokens ?? 0).toBe(spend.output);
  expect(row.ai_cost_usd ?? 0).toBeCloseTo(spend.cost, 12);
}

beforeAll(async () => {
  fake = await startFakeAiGateway();
  jpeg = await sharp({ create: { width: 120, height: 90, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    .jpeg()
    .toBuffer();
});
afterAll(() => fake.stop());
beforeEach(() => {
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('answered calls', () => {
  it('returns the content with usage and cost, adds the spend to the job and keeps a redacted record', async () => {
    const s = await scenario();
    fake.script(s.file, [
      {
        items: [
          { name: 'Sofa', quantity: 1 },
          { name: 'Rug', quantity: 1 },
        ],
      },
    ]);
    const answer = await client().complete(s.request());

    const [sent] = fake.requestsMatching(s.file);
    const usage = sent.answer_usage!;
    expect(answer).toEqual({
      content: JSON.stringify({
        items: [
          { name: 'Sofa', quantity: 1 },
          { name: 'Rug', quantity: 1 },
        ],
      }),
      finishReason: 'stop',
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      costUsd: usage.cost,
      model: 'google/gemini-2.5-flash',
      attempts: 1,
    });
    // The fake's usage: text chars / 4 plus 1000 per image, priced at $5 / $25 per million.
    const chars = s.request().system.length + s.request().text.length + `Photo 1 (${s.file})`.length;
    expect(usage.prompt_tokens).toBe(Math.ceil(chars / 4) + 1000);
    expect(usage.cost).toBeCloseTo((usage.prompt_tokens * 5 + usage.completion_tokens * 25) / 1e6, 12);
    await expectJobSpend(s.jobId, [sent]);

    const records = await listAiRequests(s.jobId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      job_id: s.jobId,
      team_id: s.teamId,
      purpose: 'photo-group',
      detail: { group_index: 0, pass: 1 },
      model: 'google/gemini-2.5-flash',
      outcome: 'ok',
      failure_kind: null,
      http_status: 200,
      attempts: 1,
      input_tokens: usage.prompt_tokens,
      output_tokens: usage.completion_tokens,
      finish_reason: 'stop',
      max_tokens: 900,
      temperature: 0,
      content: answer.content,
      request: {
        system: s.request().system,
        text: s.request().text,
        images: [{ label: `Photo 1 (${s.file})`, bytes: jpeg.length }],
      },
    });
    expect(records[0].request.images[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(records[0].latency_ms).toBeGreaterThanOrEqual(0);
    const stored = JSON.stringify(await getRow(`AIREQ#${s.jobId}`, `${records[0].created_at}#${records[0].id}`));
    expect(stored).toContain(s.file);
    expect(stored).not.toContain(fake.apiKey);
    expect(stored).not.toContain('base64');
    expect(stored).not.toContain(jpeg.toString('base64').slice(0, 32));
  });

  it('sends temperature 0 to a gemini model and none to o3 or gpt-5', async () => {
    const s = await scenario();
    await client({ model: 'google/gemini-2.5-flash' }).complete(s.request());
    await client({ model: 'openai/o3' }).complete(s.request());
    await client({ model: 'openai/gpt-5' }).complete(s.request());
    expect(fake.requestsMatching(s.file).map((r) => [r.model, r.temperature])).toEqual([
      ['google/gemini-2.5-flash', 0],
      ['openai/o3', undefined],
      ['openai/gpt-5', undefined],
    ]);
    expect((await listAiRequests(s.jobId)).map((r) => [r.model, r.temperature])).toEqual([
      ['google/gemini-2.5-flash', 0],
      ['openai/o3', null],
      ['openai/gpt-5', null],
    ]);
  });

  it("lists a job's request records oldest first", async () => {
    const s = await scenario();
    for (const pass of [1, 2, 3])
      await client().complete(s.request({ context: { ...s.request().context, detail: { group_index: 0, pass } } }));
    expect((await listAiRequests(s.jobId)).map((r) => r.detail)).toEqual(
      [1, 2, 3].map((pass) => ({ group_index: 0, pass })),
    );
  });
});

describe('retries', () => {
  const modes: FailureMode[] = ['500', '503', '429', 'timeout', 'empty', 'garbage', 'no-content', 'reset'];
  it.each(modes)('retries after %s and then succeeds, counting every attempt', async (mode) => {
    const s = await scenario();
    fake.script(s.file, [{ items: [{ name: 'Lamp' }] }]);
    fake.failNext(mode, 2, s.file);
    const answer = await client({ timeoutMs: 300 }).complete(s.request());
    expect(answer.attempts).toBe(3);
    expect(salvageItems(answer.content)).toEqual({ items: [{ name: 'Lamp' }], complete: true });
    const sent = fake.requestsMatching(s.file);
    expect(sent.map((r) => r.answered)).toEqual([mode, mode, 200]);
    // The answer carries its own usage; the job gets every answered attempt's.
    expect(answer.inputTokens).toBe(sent[2].answer_usage!.prompt_tokens);
    await expectJobSpend(s.jobId, sent);
    const [record] = await listAiRequests(s.jobId);
    expect(record).toMatchObject({ outcome: 'ok', attempts: 3 });
  });

  it('fails at once on a 400 after one attempt', async () => {
    const s = await scenario();
    fake.failNext('400', 3, s.file);
    const err = await client()
      .complete(s.request())
      .catch((e) => e);
    expect(err).toBeInstanceOf(AiGatewayError);
    expect(err).toMatchObject({ kind: 'http', status: 400, attempts: 1 });
    expect(fake.requestsMatching(s.file)).toHaveLength(1);
    expect((await jobRow(s.jobId)).ai_api_calls).toBe(1);
    expect(await listAiRequests(s.jobId)).toMatchObject([
      { outcome: 'failed', failure_kind: 'http', http_status: 400, attempts: 1, content: null },
    ]);
  });

  const exhausted: [FailureMode, AiFailureKind, number | null][] = [
    ['503', 'http', 503],
    ['429', 'http', 429],
    ['timeout', 'timeout', null],
    ['empty', 'empty', 200],
    ['garbage', 'unreadable', 200],
    ['no-content', 'unreadable', 200],
    ['reset', 'unreachable', null],
  ];
  it.each(exhausted)('gives up after the last attempt on %s with kind %s', async (mode, kind, status) => {
    const s = await scenario();
    fake.failNext(mode, 3, s.file);
    const err = await client({ timeoutMs: 300, maxAttempts: 3 })
      .complete(s.request())
      .catch((e) => e);
    expect(err).toBeInstanceOf(AiGatewayError);
    expect(err).toMatchObject({ kind, status, attempts: 3 });
    const sent = fake.requestsMatching(s.file);
    expect(sent.map((r) => r.answered)).toEqual([mode, mode, mode]);
    await expectJobSpend(s.jobId, sent);
    expect(await listAiRequests(s.jobId)).toMatchObject([
      { outcome: 'failed', failure_kind: kind, attempts: 3, content: null },
    ]);
    // Nothing is left pending for the next call.
    await expect(client().complete(s.request())).resolves.toMatchObject({ attempts: 1 });
  });

  it('uses four attempts by default', async () => {
    const s = await scenario();
    fake.failNext('500', 10, s.file);
    await expect(client().complete(s.request())).rejects.toMatchObject({ kind: 'http', status: 500, attempts: 4 });
    expect(fake.requestsMatching(s.file)).toHaveLength(4);
    expect((await jobRow(s.jobId)).ai_api_calls).toBe(4);
  });

  it('reports an unreachable gateway', async () => {
    const s = await scenario();
    const err = await client({ baseUrl: 'http://127.0.0.1:9/api/v1', maxAttempts: 2 })
      .complete(s.request())
      .catch((e) => e);
    expect(err).toMatchObject({ kind: 'unreachable', status: null, attempts: 2 });
    expect((await jobRow(s.jobId)).ai_api_calls).toBe(2);
  });

  it('does not retry a wrong key (401)', async () => {
    const s = await scenario();
    await expect(client({ apiKey: 'wrong-key' }).complete(s.request())).rejects.toMatchObject({
      kind: 'http',
      status: 401,
      attempts: 1,
    });
    const [record] = await listAiRequests(s.jobId);
    expect(JSON.stringify(record)).not.toContain('wrong-key');
  });

  it('records an unconfigured call without touching the job counters', async () => {
    const s = await scenario();
    await expect(client({ apiKey: '' }).complete(s.request())).rejects.toMatchObject({
      kind: 'unconfigured',
      attempts: 0,
    });
    expect(fake.requestsMatching(s.file)).toHaveLength(0);
    expect((await jobRow(s.jobId)).ai_api_calls).toBeUndefined();
    expect(await listAiRequests(s.jobId)).toMatchObject([
      { outcome: 'failed', failure_kind: 'unconfigured', attempts: 0 },
    ]);
  });

  it('never fails the call when the job is gone', async () => {
    const s = await scenario();
    const request = s.request({ context: { ...s.request().context, jobId: randomUUID() } });
    await expect(client().complete(request)).resolves.toMatchObject({ attempts: 1 });
    expect(await listAiRequests(request.context.jobId)).toHaveLength(1);
  });
});

describe('cut-short answers', () => {
  it('answers finish_reason length at the budget and salvage keeps exactly the complete items', async () => {
    const s = await scenario();
    const items = [1, 2, 3, 4, 5].map((n) => ({ name: `Book "${n}" {vol}`, quantity: n }));
    fake.script(s.file, [
      { items, cutShort: true },
      { items: items.slice(0, 2), completionTokens: 'budget' },
    ]);
    const first = await client().complete(s.request());
    expect(first.finishReason).toBe('length');
    expect(first.outputTokens).toBe(900);
    expect(salvageItems(first.content)).toEqual({ items: items.slice(0, 3), complete: false });

    const second = await client().complete(s.request({ maxTokens: 700 }));
    expect(second).toMatchObject({ finishReason: 'stop', outputTokens: 700 });
    expect(salvageItems(second.content)).toEqual({ items: items.slice(0, 2), complete: true });

    // The last pass repeats.
    const third = await client().complete(s.request());
    expect(salvageItems(third.content).items).toHaveLength(2);
    await expectJobSpend(s.jobId, fake.requestsMatching(s.file));
  });

  it('lets a scripted pass fail, using the pass up', async () => {
    const s = await scenario();
    fake.script(s.file, [
      { items: [], fail: '503' },
      { items: [{ name: 'Desk' }], finishReason: 'stop' },
    ]);
    const answer = await client().complete(s.request());
    expect(answer.attempts).toBe(2);
    expect(salvageItems(answer.content).items).toEqual([{ name: 'Desk' }]);
  });

  it('answers an unmatched request with no items', async () => {
    const s = await scenario();
    const answer = await client().complete(s.request());
    expect(salvageItems(answer.content)).toEqual({ items: [], complete: true });
  });
});

describe('control API', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill();
  });

  it('drives a fake running in another process', async () => {
    const outDir = join(__dirname, '..', '..', 'node_modules', '.cache', 'contents-inventory');
    mkdirSync(outDir, { recursive: true });
    const outfile = join(outDir, 'fake-ai-gateway.js');
    buildSync({
      stdin: {
        contents:
          "import { startFakeAiGateway } from './ai-gateway-server';\nstartFakeAiGateway({ apiKey: 'other-process-key' }).then((g) => process.stdout.write(JSON.stringify({ url: g.url }) + '\\n'));\n",
        resolveDir: join(__dirname, '..', 'fakes'),
        loader: 'ts',
      },
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
    child = spawn(process.execPath, [outfile], { stdio: ['ignore', 'pipe', 'inherit'] });
    const { url } = await new Promise<{ url: string }>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (chunk) => {
        out += String(chunk);
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
      });
      child!.once('exit', (code) => reject(new Error(`fake gateway process exited (${code})`)));
    });

    const remote = fakeGateway(url);
    const s = await scenario();
    const other = new AiGatewayClient({
      baseUrl: url,
      apiKey: 'other-process-key',
      model: 'openai/o4-mini',
      temperature: 0,
      backoffMs: 5,
      timeoutMs: 400,
      recorder: recordAiCall,
    });
    await remote.script(s.file, [{ items: [{ name: 'Piano' }, { name: 'Bench' }, { name: 'Stool' }], cutShort: true }]);
    await remote.failNext('timeout', 1, s.file);
    await remote.failNext('429');
    await remote.setLatency(20);

    const started = Date.now();
    const answer = await other.complete(s.request());
    expect(answer).toMatchObject({ finishReason: 'length', attempts: 3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400 + 20);
    expect(salvageItems(answer.content)).toEqual({ items: [{ name: 'Piano' }, { name: 'Bench' }], complete: false });

    const seen = await remote.requests(s.file);
    expect(seen.map((r) => r.answered)).toEqual(['timeout', '429', 200]);
    expect(seen[2]).toMatchObject({
      model: 'openai/o4-mini',
      max_tokens: 900,
      labels: [`Photo 1 (${s.file})`],
      images: [{ bytes: jpeg.length, width: 120, height: 90 }],
    });
    expect(seen[2].temperature).toBeUndefined();
    expect(await remote.requests('no-such-file')).toEqual([]);

    await expect(remote.failNext('bogus' as FailureMode)).rejects.toThrow(/400.*mode must be one of/);
    await expect(remote.script('', [])).rejects.toThrow(/400.*match/);

    await remote.reset();
    expect(await remote.requests()).toEqual([]);
    const after = await other.complete(s.request());
    expect(salvageItems(after.content)).toEqual({ items: [], complete: true });
  });
});
