/** Loading a storage connection by its id for the caller (lib/tenancy/team-scope-rules.ts). */
import type { Identity } from '../../auth/identity-rules';
import { ownRecordOr404 } from '../../tenancy/team-scope-rules';
import { getConnection } from './store';
import type { StorageConnection } from './connection-record-rules';

const CONNECTION_NOT_FOUND = 'Connection not found';

/** A storage connection of the caller's team: 404 for a missing one and for another team's. */
export async function loadConnectionForTeam(identity: Identity, connectionId: string): Promise<StorageConnection> {
  return ownRecordOr404(identity, await getConnection(connectionId), CONNECTION_NOT_FOUND);
}
