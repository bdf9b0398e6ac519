/**
 * The HTTP endpoint of the public routes (auth 'none' or 'capability': the
 * homeowner link, webhooks, certificates, capability URLs, health). Kept
 * apart from lib/api/endpoint.ts so a public function's bundle never holds
 * the sign-in code and the team and user stores it reads: each public
 * function's role is derived from its bundle (deploy/public-access.js),
 * and must not grant the rows a public request never touches.
 */
import { buildEndpoint, type EndpointImpl, type HttpHandler } from '../http/endpoint';
import type { RouteContract } from '../http/route';

export { clientIp, rawBody } from '../http/endpoint';
export { headerValue } from '../http/csrf';

type PublicRoute = RouteContract & { auth: 'none' | 'capability' };

/** buildEndpoint never signs a public route's caller in; a route declared otherwise is a wiring mistake. */
function noSignIn(): never {
  throw new Error('a public endpoint was asked to sign a caller in');
}

export function publicEndpoint<C extends PublicRoute>(route: C, impl: EndpointImpl<C, never>): HttpHandler {
  if (route.auth !== 'none' && route.auth !== 'capability')
    throw new Error(`${route.name} is not a public route (auth ${route.auth}); use httpEndpoint`);
  return buildEndpoint(route, impl, noSignIn);
}
