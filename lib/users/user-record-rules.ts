/** The shape of a User record (spec: Resources > User). Reads and writes are in store.ts. */

export interface User {
  id: string;
  /** String form; a legacy integer is stored as its string, a UUID is allowed. Null for the local bypass user. */
  external_id: string | null;
  name: string;
  email: string | null;
  team_id: string;
  last_seen_at: string | null;
  /** IANA zone name, or '' for browser-local. */
  timezone?: string;
  created_at: string;
}
