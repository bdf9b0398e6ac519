/** Real HTTP against the local service started by the global setup; each answer is checked against the API document. */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './api-types';
import { recordAnswer } from './openapi-conformance';
import { signLoginToken, type LoginClaimsInput } from './tokens';

export function serviceUrl(): string {
  const url = process.env.TEST_SERVICE_URL;
  if (!url) throw new Error('TEST_SERVICE_URL is not set: run through jest so the global setup starts the service');
  return url;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  cookie?: string;
  headers?: Record<string, string>;
  /** A raw body (string) is sent as is; anything else as JSON. */
  body?: unknown;
}

export async function request<T = any>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${serviceUrl()}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  await recordAnswer({
    method,
    path,
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
    requestBytes: body === undefined ? 0 : Buffer.byteLength(body),
  });
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** A signed-in client for one user. */
export class Client {
  private constructor(
    readonly claims: LoginClaimsInput,
    readonly token: string,
  ) {}

  static async signIn(claims: LoginClaimsInput): Promise<Client> {
    const client = new Client(claims, await signLoginToken(claims));
    const me = await client.get('/api/auth/me');
    if (me.status !== 200) throw new Error(`sign-in failed: ${me.status} ${JSON.stringify(me.body)}`);
    return client;
  }

  get<T = any>(path: string, options: RequestOptions = {}) {
    return request<T>('GET', path, { token: this.token, ...options });
  }
  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return request<T>('POST', path, { token: this.token, body, ...options });
  }
  put<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return request<T>('PUT', path, { token: this.token, body, ...options });
  }
  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return request<T>('PATCH', path, { token: this.token, body, ...options });
  }
  delete<T = any>(path: string, options: RequestOptions = {}) {
    return request<T>('DELETE', path, { token: this.token, ...options });
  }
}

/** Checks the typed client's answers against the API document, as request() does. */
const conformanceCheck: Middleware = {
  async onResponse({ request, response }) {
    const url = new URL(request.url);
    await recordAnswer({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      status: response.status,
      contentType: response.headers.get('content-type'),
      text: await response.clone().text(),
    });
  },
};

/**
 * A client typed by the API document (tests/support/api-types.ts, `npm run api:types`), signed in as `client`:
 * paths, parameters, bodies and answers are checked by the compiler against the routes' contracts.
 */
export function typedClient(client: Client) {
  const typed = createClient<paths>({ baseUrl: serviceUrl(), headers: { authorization: `Bearer ${client.token}` } });
  typed.use(conformanceCheck);
  return typed;
}

/** Polls GET /api/jobs/{id} until the job is in one of `statuses` (default: finished, complete or error); the job. */
export function jobInStatus(
  client: Client,
  jobId: string,
  statuses: readonly string[] = ['complete', 'error'],
  timeoutMs = 90_000,
) {
  return eventually(
    async () => {
      const res = await client.get(`/api/jobs/${jobId}`);
      return statuses.includes(res.body.status) ? res.body : null;
    },
    timeoutMs,
    300,
  );
}

/** Polls until check() returns a truthy value or the time runs out. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}
