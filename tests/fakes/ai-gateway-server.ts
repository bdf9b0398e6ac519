/**
 * A fake AI model gateway speaking OpenAI-compatible chat completions (the
 * contract in lib/integrations/ai-gateway.ts), over real HTTP on 127.0.0.1 and
 * a free port. `url` is the base URL to configure as OPENROUTER_BASE_URL.
 *
 * - Answers come from scripts keyed by a match string: a request uses the
 *   first registered script whose `match` occurs in its user text or in any
 *   image label (tests put unique original filenames in labels). Each matching
 *   request takes the script's next pass; the last pass repeats.
 * - Vision mode: an unscripted video-chunk request (response_format named
 *   'video_inventory_items') answers one "Red box"-style item per strongly
 *   saturated colour on its images (frame, video_time and box from the frame
 *   showing most of it) plus one item per word of the narration lines in its
 *   text; an unscripted voice-note chunk ('spoken_inventory_items') answers one
 *   item per narration word with its audio_time (details in ./ai-vision.ts).
 *   Scripts and failNext win over it. Any other unscripted request answers
 *   {"items": []}.
 * - A pass may be cut short (finish_reason 'length', the content cut inside the
 *   next item after the first ceil(n/2) whole items, completion_tokens =
 *   max_tokens), override completion tokens or the finish reason, or fail.
 * - failNext(mode, count, match?) makes the next `count` (matching) requests
 *   fail: 500, 503, 429, 400, timeout (never answers), empty (200, empty
 *   body), garbage (200, non-JSON), no-content (200 JSON, content null),
 *   reset (socket destroyed). A failNext failure moves no script position.
 * - Usage: prompt_tokens = ceil(chars of all text / 4) + 1000 per image,
 *   completion_tokens = ceil(content chars / 4) unless overridden, and, when
 *   the request asks for usage accounting (usage.include), cost at $5 / $25
 *   per million tokens, as OpenRouter reports it.
 * - Every chat request is recorded (`requests`), failed ones included.
 * - `maxInFlight`: the most chat requests open at once (arrival to response
 *   closed), so a benchmark can see the concurrency the service really used.
 * - A control API lets other processes drive a running fake:
 *     POST /__fake/script {match, passes}    POST /__fake/fail {mode, count?, match?}
 *     POST /__fake/latency {ms}              GET  /__fake/requests?match=...
 *     POST /__fake/reset
 *   tests/support/fake-gateway.ts is a client for it.
 */
import { visionItems, type VisionImage } from './ai-vision';
import { closeConnectionsAfterAnswers, readText, sendJson } from './http';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';

const FAILURE_MODES = ['500', '503', '429', '400', 'timeout', 'empty', 'garbage', 'no-content', 'reset'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

const API_PREFIX = '/api/v1';
const INPUT_USD_PER_MILLION = 5;
const OUTPUT_USD_PER_MILLION = 25;
const TOKENS_PER_IMAGE = 1000;

export interface ScriptedPass {
  items: Record<string, unknown>[];
  /** Answer with this JSON value instead of {"items": [...]} (calls whose contract is not a list of items). */
  content?: unknown;
  /** finish_reason 'length', content cut in the middle of the item after the first ceil(n/2), completion_tokens = max_tokens. */
  cutShort?: boolean;
  /** 'budget' = the request's max_tokens. */
  completionTokens?: number | 'budget';
  finishReason?: string;
  /** This pass answers with a failure instead (the pass is used up). */
  fail?: FailureMode;
}

interface RecordedImage {
  label: string;
  bytes: number;
  width?: number;
  height?: number;
}

export interface RecordedAiRequest {
  model: string;
  max_tokens: number | undefined;
  /** undefined when the request carried no temperature field. */
  temperature: number | undefined;
  response_format: unknown;
  usage: unknown;
  system: string;
  /** The first user content part. */
  text: string;
  labels: string[];
  images: RecordedImage[];
  /** How it was answered: the HTTP status, or the failure mode injected. */
  answered: number | FailureMode;
  /** The usage reported in the answer, when one was sent. */
  answer_usage?: { prompt_tokens: number; completion_tokens: number; cost?: number };
  at: string;
}

export interface FakeAiGateway {
  /** Base URL, e.g. http://127.0.0.1:41234/api/v1 (no trailing slash). */
  url: string;
  /** Origin, where the control API lives. */
  origin: string;
  apiKey: string;
  requests: RecordedAiRequest[];
  /** The most chat requests open at the same time since the start (or the last reset). */
  readonly maxInFlight: number;
  script(match: string, passes: ScriptedPass[]): void;
  failNext(mode: FailureMode, count?: number, match?: string): void;
  /** Every chat answer leaves this long after its request arrived. */
  setLatency(ms: number): void;
  requestsMatching(match: string): RecordedAiRequest[];
  /** Forget recorded requests, scripts and pending failures; latency back to the start value. */
  reset(): void;
  stop(): Promise<void>;
}

interface Script {
  match: string;
  passes: ScriptedPass[];
  next: number;
}

interface PendingFailure {
  mode: FailureMode;
  remaining: number;
  match?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why a script or failure description is unusable, or null. */
function invalidScript(match: unknown, passes: unknown): string | null {
  if (typeof match !== 'string' || !match) return 'match must be a non-empty string';
  if (!Array.isArray(passes) || passes.length === 0) return 'passes must be a non-empty array';
  for (const [n, pass] of passes.entries()) {
    if (!isRecord(pass) || !Array.isArray(pass.items) || !pass.items.every(isRecord))
      return `passes[${n}].items must be an array of objects`;
    if (pass.fail !== undefined && !FAILURE_MODES.includes(pass.fail as FailureMode))
      return `passes[${n}].fail must be one of ${FAILURE_MODES.join(', ')}`;
    if (
      pass.completionTokens !== undefined &&
      pass.completionTokens !== 'budget' &&
      !(typeof pass.completionTokens === 'number' && pass.completionTokens >= 0)
    )
      return `passes[${n}].completionTokens must be a number or 'budget'`;
  }
  return null;
}

/** The content of a pass: whole, or cut inside the next item after the first ceil(n/2). */
export function passContent(pass: Pick<ScriptedPass, 'items' | 'cutShort' | 'content'>): string {
  if (pass.content !== undefined) return JSON.stringify(pass.content);
  if (!pass.cutShort) return JSON.stringify({ items: pass.items });
  const keep = Math.ceil(pass.items.length / 2);
  const kept = pass.items.slice(0, keep).map((item) => JSON.stringify(item));
  let content = `{"items":[${kept.join(',')}`;
  const next = pass.items[keep];
  if (next) {
    const text = JSON.stringify(next);
    content += `${kept.length ? ',' : ''}${text.slice(0, Math.max(1, Math.floor(text.length / 2)))}`;
  } else if (kept.length) {
    content += ',';
  }
  return content;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => isRecord(p) && p.type === 'text' && typeof p.text === 'string')
      .map((p) => (p as { text: string }).text)
      .join('\n');
  return '';
}

interface ParsedChat {
  record: Omit<RecordedAiRequest, 'answered' | 'at'>;
  promptChars: number;
  imageCount: number;
  /** The images' bytes with their labels, for vision mode. */
  frames: VisionImage[];
}

async function parseChat(body: Record<string, unknown>): Promise<ParsedChat> {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => textOf(m.content))
    .join('\n');
  const user = messages.find((m) => m.role === 'user');
  const parts: unknown[] = user
    ? Array.isArray(user.content)
      ? user.content
      : [{ type: 'text', text: textOf(user.content) }]
    : [];
  let text = '';
  let promptChars = system.length;
  const labels: string[] = [];
  const images: RecordedImage[] = [];
  const frames: VisionImage[] = [];
  let pendingLabel: string | null = null;
  for (const [n, part] of parts.entries()) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') {
      promptChars += part.text.length;
      if (n === 0) text = part.text;
      else pendingLabel = part.text;
    } else if (part.type === 'image_url') {
      const url = isRecord(part.image_url) && typeof part.image_url.url === 'string' ? part.image_url.url : '';
      const data = /^data:[^;,]+;base64,(.*)$/s.exec(url);
      const bytes = data ? Buffer.from(data[1], 'base64') : Buffer.alloc(0);
      const label = pendingLabel ?? '';
      pendingLabel = null;
      labels.push(label);
      frames.push({ label, bytes });
      const image: RecordedImage = { label, bytes: bytes.length };
      try {
        const meta = await sharp(bytes).metadata();
        image.width = meta.width;
        image.height = meta.height;
      } catch {
        // Not a decodable image: recorded with its size only.
      }
      images.push(image);
    }
  }
  return {
    record: {
      model: typeof body.model === 'string' ? body.model : '',
      max_tokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
      temperature: typeof body.temperature === 'number' ? body.temperature : undefined,
      response_format: body.response_format,
      usage: body.usage,
      system,
      text,
      labels,
      images,
    },
    promptChars,
    imageCount: images.length,
    frames,
  };
}

export async function startFakeAiGateway(
  options: { apiKey?: string; latencyMs?: number; port?: number } = {},
): Promise<FakeAiGateway> {
  const apiKey = options.apiKey ?? 'fake-ai-gateway-key';
  const startLatency = options.latencyMs ?? 0;
  let latencyMs = startLatency;
  const scripts: Script[] = [];
  const failures: PendingFailure[] = [];
  const requests: RecordedAiRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  let maxInFlight = 0;

  const matches = (r: Pick<RecordedAiRequest, 'text' | 'labels'>, match: string) =>
    r.text.includes(match) || r.labels.some((l) => l.includes(match));

  function script(match: string, passes: ScriptedPass[]) {
    const problem = invalidScript(match, passes);
    if (problem) throw new Error(problem);
    const existing = scripts.find((s) => s.match === match);
    if (existing) Object.assign(existing, { passes, next: 0 });
    else scripts.push({ match, passes, next: 0 });
  }

  function failNext(mode: FailureMode, count = 1, match?: string) {
    if (!FAILURE_MODES.includes(mode)) throw new Error(`mode must be one of ${FAILURE_MODES.join(', ')}`);
    if (!(Number.isInteger(count) && count >= 1)) throw new Error('count must be a positive integer');
    failures.push({ mode, remaining: count, match: match || undefined });
  }

  function setLatency(ms: number) {
    if (!(typeof ms === 'number' && ms >= 0)) throw new Error('ms must be a number >= 0');
    latencyMs = ms;
  }

  function reset() {
    requests.length = 0;
    scripts.length = 0;
    failures.length = 0;
    latencyMs = startLatency;
    maxInFlight = inFlight;
  }

  const send = sendJson;
  const readBody = readText;

  function takeFailure(record: Pick<RecordedAiRequest, 'text' | 'labels'>): FailureMode | null {
    const index = failures.findIndex((f) => !f.match || matches(record, f.match));
    if (index < 0) return null;
    const failure = failures[index];
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure.mode;
  }

  function usage(parsed: ParsedChat, completionTokens: number, withCost: boolean) {
    const promptTokens = Math.ceil(parsed.promptChars / 4) + TOKENS_PER_IMAGE * parsed.imageCount;
    const cost = (promptTokens * INPUT_USD_PER_MILLION + completionTokens * OUTPUT_USD_PER_MILLION) / 1_000_000;
    return {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(withCost ? { cost } : {}),
    };
  }

  function completion(
    model: string,
    content: string | null,
    finishReason: string | null,
    use: ReturnType<typeof usage>,
  ) {
    return {
      id: `gen-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      provider: 'fake',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content },
          finish_reason: finishReason,
          native_finish_reason: finishReason,
        },
      ],
      usage: use,
    };
  }

  /** Answers with a failure mode; returns false for 'timeout' (never answered). */
  function fail(
    mode: FailureMode,
    req: IncomingMessage,
    res: ServerResponse,
    parsed: ParsedChat,
    record: RecordedAiRequest,
    withCost: boolean,
  ) {
    switch (mode) {
      case '500':
      case '503':
      case '429':
      case '400': {
        const status = Number(mode);
        send(res, status, {
          error: {
            code: status,
            message:
              status === 400
                ? 'bad request (injected)'
                : status === 429
                  ? 'rate limited (injected)'
                  : 'upstream error (injected)',
          },
        });
        return;
      }
      case 'empty':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 0 });
        res.end();
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>gateway maintenance</html>');
        return;
      case 'no-content': {
        const use = usage(parsed, 0, withCost);
        record.answer_usage = use;
        send(res, 200, completion(record.model, null, 'error', use));
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'timeout':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
    }
  }

  /** `arrived`: when the request reached the fake; the latency runs from then, as a provider's does. */
  async function chat(req: IncomingMessage, res: ServerResponse, raw: string, arrived: number) {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const parsed = isRecord(body)
      ? await parseChat(body)
      : {
          record: {
            model: '',
            max_tokens: undefined,
            temperature: undefined,
            response_format: undefined,
            usage: undefined,
            system: '',
            text: '',
            labels: [],
            images: [],
          },
          promptChars: 0,
          imageCount: 0,
          frames: [],
        };
    const record: RecordedAiRequest = { ...parsed.record, answered: 0, at: new Date().toISOString() };
    requests.push(record);
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      record.answered = send(res, 401, { error: { code: 401, message: 'No auth credentials found' } });
      return;
    }
    if (!isRecord(body) || !Array.isArray(body.messages) || !record.model) {
      record.answered = send(res, 400, { error: { code: 400, message: 'body must be JSON with model and messages' } });
      return;
    }
    const withCost = isRecord(body.usage) && body.usage.include === true;
    const injected = takeFailure(record);
    // Reading and parsing the body (every image's size) is the fake's own work, not the provider's delay.
    const wait = latencyMs - (performance.now() - arrived);
    if (injected !== 'timeout' && wait > 0) await sleep(wait);
    if (injected) {
      record.answered = injected;
      fail(injected, req, res, parsed, record, withCost);
      return;
    }
    const found = scripts.find((s) => matches(record, s.match));
    const pass: ScriptedPass = found
      ? found.passes[Math.min(found.next++, found.passes.length - 1)]
      : { items: (await visionItems(record.response_format, record.text, parsed.frames)) ?? [] };
    if (pass.fail) {
      record.answered = pass.fail;
      fail(pass.fail, req, res, parsed, record, withCost);
      return;
    }
    const content = passContent(pass);
    const budget = record.max_tokens ?? 0;
    const completionTokens =
      pass.completionTokens === 'budget'
        ? budget
        : typeof pass.completionTokens === 'number'
          ? pass.completionTokens
          : pass.cutShort
            ? budget
            : Math.ceil(content.length / 4);
    const finishReason = pass.finishReason ?? (pass.cutShort ? 'length' : 'stop');
    const use = usage(parsed, completionTokens, withCost);
    record.answer_usage = use;
    record.answered = send(res, 200, completion(record.model, content, finishReason, use));
  }

  async function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        const parsed = JSON.parse(raw);
        body = isRecord(parsed) ? parsed : {};
      } catch {
        return send(res, 400, { error: 'body must be JSON' });
      }
    }
    try {
      if (method === 'POST' && path === '/__fake/script') {
        script(body.match as string, body.passes as ScriptedPass[]);
        return send(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/fail') {
        failNext(
          body.mode as FailureMode,
          body.count === undefined ? 1 : (body.count as number),
          typeof body.match === 'string' ? body.match : undefined,
        );
        return send(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/latency') {
        setLatency(body.ms as number);
        return send(res, 200, { ok: true });
      }
      if (method === 'GET' && path === '/__fake/requests') {
        const match = query.get('match');
        return send(res, 200, match ? requests.filter((r) => matches(r, match)) : requests);
      }
      if (method === 'POST' && path === '/__fake/reset') {
        reset();
        return send(res, 200, { ok: true });
      }
    } catch (err) {
      return send(res, 400, { error: (err as Error).message });
    }
    return send(res, 404, { error: 'not_found' });
  }

  const server = createServer(async (req, res) => {
    try {
      const arrived = performance.now();
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = await readBody(req);
      if (url.pathname.startsWith('/__fake/')) {
        await control(url.pathname, req.method ?? 'GET', url.searchParams, raw, res);
        return;
      }
      if (req.method === 'POST' && url.pathname === `${API_PREFIX}/chat/completions`) {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        res.once('close', () => {
          inFlight -= 1;
        });
        await chat(req, res, raw, arrived);
        return;
      }
      send(res, 404, { error: { code: 404, message: 'not found' } });
    } catch (err) {
      if (!res.headersSent) send(res, 500, { error: { code: 500, message: String(err) } });
    }
  });
  closeConnectionsAfterAnswers(server);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}${API_PREFIX}`,
    origin,
    apiKey,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    script,
    failNext,
    setLatency,
    requestsMatching: (match) => requests.filter((r) => matches(r, match)),
    reset,
    async stop() {
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
