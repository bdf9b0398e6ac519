/** The shape of a Team record (spec: Resources > Team). Reads and writes are in store.ts. */

export interface Team {
  id: string;
  external_id: number | null;
  name: string;
  team_token: string | null;
  estimation_platform_key: string | null;
  /** Dollars per credit; null means DEFAULT_TEAM_CREDIT_RATE. */
  credit_rate: number | null;
  created_at: string;
  updated_at: string;
}
