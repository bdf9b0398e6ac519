/** Claim request and response shapes (spec: Resources > Claim). */
import * as z from 'zod';
import { queryBool } from '../http/schemas';

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

/** The editable claim fields; unknown fields are rejected. */
const claimFields = {
  claim_number: text(100),
  insured_name: text(200).nullable(),
  loss_type: text(100).nullable(),
  coverage_type: z.enum(['ACV', 'RCV']).nullable(),
  claim_type: z.enum(['Residential', 'Commercial']).nullable(),
  /** A US ZIP or a Canadian postal code. */
  zip_code: text(20).nullable(),
  adjuster_name: text(200).nullable(),
};

export const claimCreateBody = z.strictObject({
  ...claimFields,
  claim_number: claimFields.claim_number.min(1, 'is required'),
  insured_name: claimFields.insured_name.optional(),
  loss_type: claimFields.loss_type.optional(),
  coverage_type: claimFields.coverage_type.optional(),
  claim_type: claimFields.claim_type.optional(),
  zip_code: claimFields.zip_code.optional(),
  adjuster_name: claimFields.adjuster_name.optional(),
});

export const claimPatchBody = z
  .strictObject({
    claim_number: claimFields.claim_number.min(1, 'must not be empty').optional(),
    insured_name: claimFields.insured_name.optional(),
    loss_type: claimFields.loss_type.optional(),
    coverage_type: claimFields.coverage_type.optional(),
    claim_type: claimFields.claim_type.optional(),
    zip_code: claimFields.zip_code.optional(),
    adjuster_name: claimFields.adjuster_name.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, 'must change at least one field');

export const claimListQuery = z.object({ archived: queryBool(false) });

export const claimResponse = z.object({
  id: z.uuid(),
  team_id: z.string(),
  created_by_user_id: z.string(),
  claim_number: z.string(),
  insured_name: z.string().nullable(),
  loss_type: z.string().nullable(),
  coverage_type: z.enum(['ACV', 'RCV']).nullable(),
  claim_type: z.enum(['Residential', 'Commercial']).nullable(),
  zip_code: z.string().nullable(),
  adjuster_name: z.string().nullable(),
  is_archived: z.boolean(),
  archived_at: z.string().nullable(),
  submitted_at: z.string().nullable(),
  is_training: z.boolean(),
  estimation_claim_key: z.string().nullable(),
  estimation_claim_id: z.string().nullable(),
  estimation_submitted_at: z.string().nullable(),
  estimation_items_unlocked: z.boolean(),
  items_locked: z.boolean(),
  spend_usd: z.number().int().describe('Whole credits spent on the claim (the name is historical).'),
  created_at: z.string(),
  updated_at: z.string(),
});
