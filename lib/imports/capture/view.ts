/** Storage connections as the browser sees them: never the token. */
import type { StorageConnection } from './connection-record-rules';

export function connectionView(connection: StorageConnection) {
  return {
    id: connection.id,
    provider: connection.provider,
    external_account_id: connection.external_account_id,
    external_account_name: connection.external_account_name,
    token_owner: connection.token_owner,
    connected_by_user_id: connection.connected_by_user_id,
    created_at: connection.created_at,
    updated_at: connection.updated_at,
  };
}
