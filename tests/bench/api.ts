/** The service's HTTP API as a benchmark calls it: bearer-token JSON calls that throw on an unexpected status. */
export class Api {
  constructor(
    readonly base: string,
    private readonly token: string,
  ) {}

  async call<T = any>(method: string, path: string, body?: unknown, expectStatus = [200, 201]): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      body: payload,
    });
    const text = await res.text();
    if (!expectStatus.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as T;
  }
}
