/** Loading a job by its id for the caller (lib/tenancy/team-scope-rules.ts). */
import type { Identity } from '../auth/identity-rules';
import { ownRecordOr404 } from '../tenancy/team-scope-rules';
import { getJob } from './job-store';
import type { Job } from './job-record-rules';

export const JOB_NOT_FOUND = 'Job not found';

/** load_job_for_team: 404 for a missing job and for another team's job. */
export async function loadJobForTeam(identity: Identity, jobId: string): Promise<Job> {
  return ownRecordOr404(identity, await getJob(jobId, true), JOB_NOT_FOUND);
}
