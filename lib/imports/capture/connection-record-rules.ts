/** The shape of a storage connection record (spec: Other records > Storage connection). Reads and writes are in store.ts. */

export interface StorageConnection {
  id: string;
  team_id: string;
  /** The one provider kind so far (CAPTURE_SOURCE in store.ts). */
  provider: 'capture_source';
  /** The capture source organisation's id. */
  external_account_id: string;
  external_account_name: string;
  /** The organisation's token: sent as the bearer token, never answered. */
  api_token: string;
  /** Who made the token, as the capture source says. */
  token_owner: string;
  connected_by_user_id: string;
  created_at: string;
  updated_at: string;
}
