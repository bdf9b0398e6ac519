/**
 * Every request the bench makes to the service, seen through a wrapper around
 * fetch (the tests/support helpers call fetch): its route, class, status and
 * time, and the ids in each answer, per team, for the cross-team check.
 * Requests to the bucket's presigned URLs are not the API and are not counted.
 */
import { routeTable } from '../../../lib/api/route-table';
import type { RouteContract } from '../../../lib/http/route';

export type RouteClass = 'read' | 'write' | 'presign' | 'poll';

interface Exchange {
  at: number;
  method: string;
  route: string;
  cls: RouteClass;
  status: number;
  ms: number;
  team: string | null;
}

/** Routes that hand out presigned URLs (upload slots, part URLs). */
const PRESIGN_ROUTES = new Set([
  'POST /api/upload-photos',
  'POST /api/upload-photos/{id}/append',
  'POST /api/uploads/{id}/part-urls',
  'POST /api/claims/{id}/import-contents-list',
  'POST /api/public/insured/{token}/rooms/{room_id}/files',
  'POST /api/public/insured/{token}/uploads/{id}/part-urls',
]);

/** What the SPA polls while it waits: a job, an export, an import batch, a claim's sends. */
const POLL_ROUTES = new Set([
  'GET /api/jobs/{id}',
  'GET /api/exports/{export_id}',
  'GET /api/integrations/imports/{batch_id}',
  'GET /api/claims/{id}/submissions',
]);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

interface CompiledRoute {
  route: RouteContract;
  pattern: RegExp;
  params: number;
}

const compiled: CompiledRoute[] = routeTable
  .map((route) => {
    const parts = route.path.split(/(\{[^}]+\})/);
    const source = parts.map((p) => (/^\{.+\}$/.test(p) ? '([^/]+)' : p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')));
    return {
      route,
      pattern: new RegExp(`^${source.join('')}$`),
      params: parts.filter((p) => p.startsWith('{')).length,
    };
  })
  // A static segment wins over a parameter (…/insured/mail-events before …/insured/{token}).
  .sort((a, b) => a.params - b.params);

export function routeOf(method: string, pathname: string): RouteContract | null {
  return compiled.find((c) => c.route.method === method && c.pattern.test(pathname))?.route ?? null;
}

/** A GET that answers 202 (an export asked for: a record written, a worker started) is a write, not a read. */
function classOf(method: string, template: string, route: RouteContract | null): RouteClass {
  const key = `${method} ${template}`;
  if (PRESIGN_ROUTES.has(key)) return 'presign';
  if (POLL_ROUTES.has(key)) return 'poll';
  if (route?.successStatus === 202) return 'write';
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

export interface Traffic {
  exchanges: Exchange[];
  /** Requests that got no answer (network error), by route. */
  failures: { route: string; error: string }[];
  /** Ids each team saw in its answers. */
  seenIds: Map<string, Set<string>>;
  /** Which team a bearer token or a homeowner link token is. */
  ownerOfToken: Map<string, string>;
  restore(): void;
}

function headerOf(init: RequestInit | undefined, name: string): string | null {
  const headers = init?.headers;
  if (!headers) return null;
  if (headers instanceof Headers) return headers.get(name);
  if (Array.isArray(headers)) return headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? null;
  const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
  return entry ? String(entry[1]) : null;
}

/** Wraps globalThis.fetch for requests to `serviceUrl`'s origin. */
export function watchTraffic(serviceUrl: string): Traffic {
  const origin = new URL(serviceUrl).origin;
  const original = globalThis.fetch;
  const traffic: Traffic = {
    exchanges: [],
    failures: [],
    seenIds: new Map(),
    ownerOfToken: new Map(),
    restore: () => {
      globalThis.fetch = original;
    },
  };
  const teamOf = (pathname: string, init: RequestInit | undefined) => {
    const bearer = /^Bearer (.+)$/.exec(headerOf(init, 'authorization') ?? '')?.[1];
    if (bearer) return traffic.ownerOfToken.get(bearer) ?? null;
    const link = /^\/api\/public\/insured\/([^/]+)/.exec(pathname)?.[1];
    return link ? (traffic.ownerOfToken.get(link) ?? null) : null;
  };

  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return original(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const route = routeOf(method, url.pathname);
    const template = route?.path ?? url.pathname;
    const team = teamOf(url.pathname, init);
    const started = performance.now();
    let res: Response;
    try {
      res = await original(input, init);
    } catch (err) {
      traffic.failures.push({ route: `${method} ${template}`, error: String(err) });
      throw err;
    }
    const text = await res.clone().text();
    traffic.exchanges.push({
      at: Date.now(),
      method,
      route: `${method} ${template}`,
      cls: classOf(method, template, route),
      status: res.status,
      ms: performance.now() - started,
      team,
    });
    if (team) {
      const seen = traffic.seenIds.get(team) ?? new Set<string>();
      for (const id of text.match(UUID) ?? []) seen.add(id.toLowerCase());
      traffic.seenIds.set(team, seen);
    }
    return res;
  };
  return traffic;
}
