/**
 * The HTTP endpoint every API handler is built with: the generic middy stack
 * of lib/http wired to this service's sign-in (lib/auth). lib/http knows
 * nothing about users or teams; this module, above the domains, tells it who
 * is calling and whether the credential came with the browser by itself.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Identity } from '../auth/identity-rules';
import { resolveAdminIdentity, resolveIdentity } from '../auth/identity-service';
import {
  buildEndpoint,
  type AuthenticatedLevel,
  type Caller,
  type EndpointImpl,
  type HttpHandler,
} from '../http/endpoint';
import type { RouteContract } from '../http/route';
// A request can end a run (a dismissal, an upload that never came): what hears a run's end is loaded with every endpoint.
import '../pipelines/run-end-subscribers';

export type { HttpHandler } from '../http/endpoint';

/**
 * get_current_user, or require_admin on admin routes. Their NotSignedInError
 * (401) and ForbiddenError (403) are answered by the endpoint's error mapping.
 */
async function resolveCaller(level: AuthenticatedLevel, event: APIGatewayProxyEventV2): Promise<Caller<Identity>> {
  const identity = level === 'admin' ? await resolveAdminIdentity(event) : await resolveIdentity(event);
  return {
    identity,
    tenant: identity.team.id,
    // The shared cookie and the local sign-in reach us on any request the browser makes, cross-site ones included.
    ambient: identity.tokenVia !== 'bearer',
  };
}

/**
 * Builds the Lambda handler of one route: the contract's auth level signs
 * the caller in (`identity`), its schemas validate `params`, `query` and
 * `body` (422 with the field problems), and what `impl` returns is answered
 * as JSON with the contract's success status. A thrown domain error
 * (lib/errors.ts) is answered with its status and `{detail: message}`.
 * Handler files (functions/api/**) hold nothing but this call.
 *
 * @example
 * ```ts
 * // functions/api/claims/patch-claim.ts
 * import { httpEndpoint } from '../../../lib/api/endpoint';
 * import { claimRoutes } from '../../../lib/claims/routes';
 * import { updateClaim } from '../../../lib/claims/service';
 *
 * export const handler = httpEndpoint(claimRoutes.patch, ({ identity, params, body }) =>
 *   updateClaim(identity, params.id, body),
 * );
 * ```
 */
export function httpEndpoint<C extends RouteContract>(route: C, impl: EndpointImpl<C, Identity>): HttpHandler {
  return buildEndpoint(route, impl, resolveCaller);
}
