/**
 * The HTTP endpoint every API handler is built with: the generic middy stack
 * of lib/http wired to this service's sign-in (lib/auth). lib/http knows
 * nothing about users or teams; this module, above the domains, tells it who
 * is calling and whether the credential came with the browser by itself.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { adminIdentity, currentIdentity, type Identity } from '../auth/identity';
import {
  buildEndpoint,
  type AuthenticatedLevel,
  type Caller,
  type EndpointImpl,
  type HttpHandler,
} from '../http/endpoint';
import type { RouteContract } from '../http/route';

export type { HttpHandler } from '../http/endpoint';

/** get_current_user, or require_admin on admin routes. */
export async function resolveCaller(
  level: AuthenticatedLevel,
  event: APIGatewayProxyEventV2,
): Promise<Caller<Identity>> {
  const identity = level === 'admin' ? await adminIdentity(event) : await currentIdentity(event);
  return {
    identity,
    tenant: identity.team.id,
    // The shared cookie and the local sign-in reach us on any request the browser makes, cross-site ones included.
    ambient: identity.tokenVia !== 'bearer',
  };
}

export function httpEndpoint<C extends RouteContract>(route: C, impl: EndpointImpl<C, Identity>): HttpHandler {
  return buildEndpoint(route, impl, resolveCaller);
}
