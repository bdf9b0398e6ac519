/** The shape of a Claim record (spec: Resources > Claim) and of the fields a create or a patch sets. Reads and writes are in store.ts. */
import type * as z from 'zod';
import type { claimCreateBody, claimPatchBody } from './schemas';

export interface Claim {
  id: string;
  team_id: string;
  created_by_user_id: string;
  claim_number: string;
  insured_name: string | null;
  loss_type: string | null;
  coverage_type: 'ACV' | 'RCV' | null;
  claim_type: 'Residential' | 'Commercial' | null;
  zip_code: string | null;
  adjuster_name: string | null;
  is_archived: boolean;
  archived_at: string | null;
  submitted_at: string | null;
  is_training: boolean;
  estimation_claim_key: string | null;
  estimation_claim_id: string | null;
  estimation_submitted_at: string | null;
  estimation_items_unlocked: boolean;
  /** Whole credits charged to the claim; atomically incremented when a charge is finalized. */
  spend_credits: number;
  created_at: string;
  updated_at: string;
}

export type ClaimCreate = z.output<typeof claimCreateBody>;

export type ClaimPatch = z.output<typeof claimPatchBody>;
