/**
 * Which objects a job may hand out through its capability routes: its own
 * folder, or a homeowner's file of its claim that it uses where it lies (a
 * homeowner's recording, a submitted photo's original). Checked before
 * signing, so a record can never lend a public route another claim's object,
 * and those routes' roles are scoped to exactly these prefixes
 * (deploy/public-access.js reads them from the routes' code).
 */
import { blobKeys } from '../blob/keys';
import type { Job } from './job-record-rules';

export const isJobObjectKey = (job: Pick<Job, 'team_id' | 'claim_id' | 'id'>, key: string) =>
  key.startsWith(blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)) ||
  key.startsWith(`${blobKeys.claimPrefix(job.team_id, job.claim_id)}insured/`);
