/** The shapes of a Submission record (spec: Submission record) and of the claim's open-send row. Reads and writes are in submission-store.ts. */
import type { UnconfirmedSpend } from '../billing/send-refund-record-rules';
import type { RunRecord } from '../orchestrator/run-kind';

type SubmissionStatus = 'processing' | 'complete' | 'failed';

/**
 * Where the request of a send is: `charging` (recorded, its charge asked
 * for), `syncing` (the remote claim and rooms). Null once the request handed
 * the items to the run's next stage.
 */
export type RequestStep = 'charging' | 'syncing';

export interface Submission extends RunRecord {
  id: string;
  claim_id: string;
  team_id: string;
  status: SubmissionStatus;
  request_step: RequestStep | null;
  charge_key: string;
  /** Credits charged (planned, until the billing service answered). */
  credits: number;
  item_count: number;
  /** Photos the platform was given, counted as items finish. */
  photo_count: number;
  done_count: number;
  failed_count: number;
  claim_key: string | null;
  remote_claim_id: string | null;
  dry_run: boolean;
  error: string | null;
  created_by_user_id: string;
  created_at: string;
  completed_at: string | null;
  /** End-to-end time, request to the last item, in seconds. */
  processing_seconds: number | null;
  /**
   * The charge's spend when its answer was lost (it may or may not be on the
   * ledger): every refund the send owes asks for it again first.
   */
  charge_spend?: UnconfirmedSpend | null;
}

/** The claim's open-send row: the send it points at and the charge round each batch size last used. */
export interface ClaimSend {
  submission_id: string | null;
  /** already_submitted → the last charge round used for it (references are never reused). */
  rounds: Record<string, number>;
}
