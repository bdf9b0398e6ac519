/**
 * The chat message after each media job finishes (spec: Events > Outbound
 * signals), as a subscriber of run ends (run-end-service.ts): the company, the
 * user and the media type, with the credits used and their revenue, or the
 * error. Only a job's own run posts; a follow-up pass or a contents list's
 * read does not. Best effort: lib/integrations/chat.ts logs a failed post.
 */
import { revenueUsd } from '../billing/credit-rules';
import { postJobOutcome } from '../integrations/chat';
import { getTeam } from '../teams/store';
import { getUser } from '../users/store';
import type { RunEnd } from '../jobs/run-end-service';

export async function postRunOutcome({ job, outcome, credits = 0, error }: RunEnd): Promise<void> {
  if (outcome !== 'complete' && outcome !== 'error') return;
  const [team, user] = await Promise.all([getTeam(job.team_id), getUser(job.created_by_user_id)]);
  await postJobOutcome({
    outcome: outcome === 'complete' ? 'success' : 'failure',
    company: team?.name ?? 'unknown team',
    user: user?.name ?? 'unknown user',
    mediaType: job.source_type,
    ...(outcome === 'complete' ? { credits, revenueUsd: revenueUsd(credits, team) } : { error: error ?? outcome }),
  });
}
