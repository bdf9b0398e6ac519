/**
 * The capture source connection and browse proxy (spec: Capture source
 * integration; Outbound credentials: the org token as a bearer token).
 *
 * A team connects by pasting its organisation's token: it is checked with a
 * whoami call, then stored as the team's one connection (replacing an earlier
 * one, which keeps its id) and never answered. The browse routes call the
 * capture source with that token and pass its pages through, presigned
 * thumbnail URLs included. Without CAPTURE_SOURCE_API_BASE_URL the
 * integration is off: the list says so and everything else answers 503.
 */
import { randomUUID } from 'node:crypto';
import { recordActivity } from '../../activity/service';
import type { Identity } from '../../auth/identity-rules';
import { settings as currentSettings, type Settings } from '../../config';
import { ConflictError, NotFoundError, RemoteFailureError, UnavailableError, UnprocessableError } from '../../errors';
import { CaptureSourceClient, type CaptureSourceResult } from '../../integrations/capture-source';
import { loadConnectionForTeam } from './access-service';
import { CAPTURE_SOURCE, deleteConnection, findOrgConnection, findTeamConnection, saveConnection } from './store';
import type { StorageConnection } from './connection-record-rules';
import { connectionView } from './view';

const NOT_CONFIGURED = 'The capture source integration is not configured in this deployment.';
const TOKEN_REFUSED = 'The capture source refused this token.';
export const ORG_TAKEN =
  'This capture source organisation is connected to another team: its submissions go to that team. Disconnect it there first.';
const CONNECTION_REFUSED =
  'The capture source refused this connection’s token (revoked or expired): connect again with a new one.';

/** A client speaking as the organisation of `token`; 503 when the integration is off. */
export function openCaptureSource(token: string, config: Settings = currentSettings()): CaptureSourceClient {
  if (!config.CAPTURE_SOURCE_API_BASE_URL) throw new UnavailableError(NOT_CONFIGURED);
  return new CaptureSourceClient({ baseUrl: config.CAPTURE_SOURCE_API_BASE_URL, token });
}

/**
 * A browse answer, or the domain error for how the call ended: the
 * connection's token refused → 409 (connect again), unknown there → 404, the
 * capture source unreachable or failing → 502.
 */
function answerOf<T>(result: CaptureSourceResult<T>): T {
  switch (result.outcome) {
    case 'ok':
      return result.body;
    case 'unauthorized':
      throw new ConflictError(CONNECTION_REFUSED);
    case 'not_found':
      throw new NotFoundError('Not found on the capture source');
    case 'unprocessable':
      throw new UnprocessableError(result.detail);
    default:
      throw new RemoteFailureError(result.detail);
  }
}

/** GET /api/integrations/connections: the team's connections, and whether the integration is on. */
export async function listConnections(identity: Identity) {
  const connection = await findTeamConnection(identity.team.id);
  return {
    connections: connection ? [connectionView(connection)] : [],
    contents_capture_available: Boolean(currentSettings().CAPTURE_SOURCE_API_BASE_URL),
  };
}

/**
 * POST /api/integrations/capture-source/connect: checks the token with
 * whoami (422 when refused, 502 when the capture source cannot answer), then
 * stores or replaces the team's connection.
 */
export async function connectCaptureSource(identity: Identity, body: { api_token: string }) {
  const whoami = await openCaptureSource(body.api_token).whoami();
  if (whoami.outcome === 'unauthorized')
    throw new UnprocessableError(TOKEN_REFUSED, [{ field: 'body.api_token', message: TOKEN_REFUSED }]);
  const who = answerOf(whoami);
  // One team per organisation: its webhook's events must go to exactly one team.
  const holder = await findOrgConnection(who.org.id);
  if (holder && holder.team_id !== identity.team.id) throw new ConflictError(ORG_TAKEN);
  const previous = await findTeamConnection(identity.team.id);
  const now = new Date().toISOString();
  const connection: StorageConnection = {
    id: previous?.id ?? randomUUID(),
    team_id: identity.team.id,
    provider: CAPTURE_SOURCE,
    external_account_id: who.org.id,
    external_account_name: who.org.name,
    api_token: body.api_token,
    token_owner: who.user.email || who.user.name,
    connected_by_user_id: identity.user.id,
    created_at: previous?.created_at ?? now,
    updated_at: now,
  };
  if (!(await saveConnection(connection, previous)))
    throw new ConflictError(
      'The team’s connection or the organisation’s changed meanwhile (another connect); reload and try again.',
    );
  await recordActivity(identity.actor, {
    team_id: identity.team.id,
    action_type: 'connect_capture_source',
    action_label: `Connected the capture source (${who.org.name})`,
    target: who.org.name,
    entity_type: 'connection',
    entity_id: connection.id,
    restorable: false,
  });
  return { ...connectionView(connection), replaced: previous !== null };
}

/** DELETE /api/integrations/connections/{id}: disconnects (the token is forgotten). */
export async function deleteTeamConnection(identity: Identity, connectionId: string) {
  const connection = await loadConnectionForTeam(identity, connectionId);
  await deleteConnection(connection);
  await recordActivity(identity.actor, {
    team_id: connection.team_id,
    action_type: 'disconnect_capture_source',
    action_label: `Disconnected the capture source (${connection.external_account_name})`,
    target: connection.external_account_name,
    entity_type: 'connection',
    entity_id: connection.id,
    restorable: false,
  });
  return { id: connection.id, deleted: true as const };
}

async function clientFor(identity: Identity, connectionId: string) {
  const connection = await loadConnectionForTeam(identity, connectionId);
  return openCaptureSource(connection.api_token);
}

/** GET .../connections/{id}/teams. */
export async function listCaptureTeams(identity: Identity, connectionId: string, cursor?: string) {
  return answerOf(await (await clientFor(identity, connectionId)).teams(cursor));
}

/** GET .../connections/{id}/teams/{tid}/assignments. */
export async function listCaptureAssignments(
  identity: Identity,
  connectionId: string,
  teamId: string,
  cursor?: string,
) {
  return answerOf(await (await clientFor(identity, connectionId)).assignments(teamId, cursor));
}

/** GET .../assignments/{aid}/tree: locations and their groups. */
export async function showCaptureTree(identity: Identity, connectionId: string, assignmentId: string) {
  return answerOf(await (await clientFor(identity, connectionId)).tree(assignmentId));
}

/** GET .../assignments/{aid}/media: one page of the assignment's media (thumbnail URLs pass through). */
export async function listCaptureMedia(
  identity: Identity,
  connectionId: string,
  assignmentId: string,
  cursor?: string,
) {
  return answerOf(await (await clientFor(identity, connectionId)).media(assignmentId, cursor));
}
