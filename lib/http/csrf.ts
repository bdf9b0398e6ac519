/**
 * Cross-site request forgery defence for writes whose credential the browser
 * sends on its own (the shared login cookie, the local sign-in). Such a write
 * must show it comes from the app: an Origin on the CORS_ORIGINS allow-list,
 * or an X-Requested-With header, which a cross-site form cannot send and a
 * cross-site script cannot add without a CORS preflight this API refuses.
 * Bearer-token requests need neither: a foreign page cannot read the token.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { forbidden } from './errors';
import type { HttpMethod } from './route';

const STATE_CHANGING: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether requests of this method get the check (also read by the OpenAPI document, lib/http/openapi.ts). */
export const isStateChanging = (method: HttpMethod) => STATE_CHANGING.has(method);

const CROSS_SITE_REFUSED =
  'Cross-site request refused: a write signed in by cookie needs an Origin header from an allowed origin (CORS_ORIGINS) or an X-Requested-With header.';

/** A header by name, whatever its case (API Gateway lowercases them; other callers may not). */
export function headerValue(event: Pick<APIGatewayProxyEventV2, 'headers'>, name: string): string | undefined {
  const headers = event.headers ?? {};
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

const normalizeOrigin = (origin: string) => origin.trim().replace(/\/+$/, '').toLowerCase();

/** Throws 403 unless a state-changing request shows it was sent by the app itself. */
export function requireSameSiteWrite(
  method: HttpMethod,
  event: Pick<APIGatewayProxyEventV2, 'headers'>,
  allowedOrigins: readonly string[],
): void {
  if (!STATE_CHANGING.has(method)) return;
  if (headerValue(event, 'x-requested-with')?.trim()) return;
  const origin = headerValue(event, 'origin');
  if (origin && origin.trim() !== 'null') {
    const wanted = normalizeOrigin(origin);
    if (allowedOrigins.some((allowed) => normalizeOrigin(allowed) === wanted)) return;
  }
  throw forbidden(CROSS_SITE_REFUSED);
}
