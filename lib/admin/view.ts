/** Jobs, users and teams as the admin dashboard shows them: with the names of their team and creator. */
import type { Job } from '../jobs/job-record-rules';
import { jobProgress } from '../jobs/job-rules';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';

export interface Names {
  teams: Map<string, Team>;
  users: Map<string, User>;
}

export function adminJobView(job: Job, names: Names) {
  return {
    id: job.id,
    team_id: job.team_id,
    team_name: names.teams.get(job.team_id)?.name ?? null,
    user_id: job.created_by_user_id,
    user_name: names.users.get(job.created_by_user_id)?.name ?? null,
    claim_id: job.claim_id,
    room_id: job.room_id || null,
    source_type: job.source_type,
    status: job.status,
    progress_pct: jobProgress(job),
    current_stage: job.current_stage,
    error_message: job.error_message,
    original_filename: job.original_filename,
    items_found: job.items_found,
    credits_billed: job.billed_cost_usd,
    ai_api_calls: job.ai_api_calls,
    ai_cost_usd: job.ai_cost_usd,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    logs_url: `/api/jobs/${job.id}/logs`,
  };
}

export function adminUserView(user: User, team: Team | undefined, isAdmin: boolean) {
  return {
    id: user.id,
    external_id: user.external_id,
    name: user.name,
    email: user.email,
    team_id: user.team_id,
    team_name: team?.name ?? null,
    is_admin: isAdmin,
    last_seen_at: user.last_seen_at,
    created_at: user.created_at,
  };
}
