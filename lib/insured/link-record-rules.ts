/** The shape of an Insured link record (spec: Other records > Insured link). Reads and writes are in store.ts. */

export interface InsuredLink {
  id: string;
  claim_id: string;
  team_id: string;
  token_hash: string;
  insured_email: string;
  invited_by_user_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** The homeowner's name, once they give it (identify). */
  insured_name: string | null;
  opened_at: string | null;
  last_opened_at: string | null;
  open_count: number;
  mail_message_id: string | null;
  mail_sent_at: string | null;
  delivered_at: string | null;
  mail_opened_at: string | null;
  mail_clicked_at: string | null;
  mail_failed_at: string | null;
  submitted_at: string | null;
  updated_at: string;
  /** Bytes reserved by the homeowner's files, lifetime (removal does not lower it). */
  bytes_reserved?: number;
  /** The homeowner's files and typed rows held now. */
  files_count?: number;
  items_count?: number;
  /** The last submit round started; a round is being made while it is above submitted_round. */
  submit_round?: number;
  /** The last round over: made, or given up by the engine (its round row: lib/insured/submit-round-store.ts). */
  submitted_round?: number;
  /** When the last round started, and what the submit that started it counted (answered to a submit meanwhile). */
  submit_started_at?: string | null;
  submit_summary?: SubmitRoundSummary | null;
}

/** What a round sends, as the submit that started it counted the draft. */
export interface SubmitRoundSummary {
  photo_jobs: number;
  photos: number;
  media_jobs: number;
  items: number;
  pending_files: number;
}
