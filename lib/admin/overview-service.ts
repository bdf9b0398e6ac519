/**
 * GET /api/admin/overview (spec: Admin). The figures come from the usage
 * counters kept as jobs, charges, claims and sends are written (lib/stats):
 * a range sums a handful of counter partitions (the year's settled months as
 * one rollup, made the first time a month's year range is read), and the
 * short lists read
 * the newest rows of their feeds since the range's start. Nothing here reads
 * a team's jobs or items, so the answer costs the same with 20 or 20,000 jobs.
 */
import type { ActivityEntry } from '../activity/store';
import type { Claim } from '../claims/claim-record-rules';
import { MEDIA_COUNTERS, parseRange, qualityAverages, rangeBuckets, sumUsage, usageByTeam } from '../stats/rules';
import { countActiveUsers, listFailureEntries, readRollupRows, readUsageRows } from '../stats/store';
import { listNewestJobIds, listRunningJobs } from './job-list-service';
import { LEADERBOARD_SIZE, OVERVIEW_LIST_SIZE } from './rules';
import { getJobsInOrder, getTeamsById, listNewestFeedRows, namesOf } from './store';
import { adminJobView } from './view';
import type { SendPlatform } from '../sends/destination-rules';
import { SEND_DESTINATIONS } from '../sends/destination-rules';

const pick = <T extends object, K extends keyof T>(row: T, names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, row[name]])) as Pick<T, K>;

export async function showOverview(rangeParam: string | undefined, now = new Date()) {
  const range = parseRange(rangeParam);
  const { buckets, start, rollup } = rangeBuckets(range, now);
  const [rows, rolledUp, failures, activeUsers, running, claims, lastJobIds, activity] = await Promise.all([
    readUsageRows(buckets),
    rollup ? readRollupRows(rollup, now) : [],
    listFailureEntries(start, OVERVIEW_LIST_SIZE),
    countActiveUsers(now),
    listRunningJobs(),
    listNewestFeedRows<Claim>('CLAIMS', start, OVERVIEW_LIST_SIZE),
    listNewestJobIds(start, OVERVIEW_LIST_SIZE, now),
    listNewestFeedRows<ActivityEntry>('ACTIVITY', start, OVERVIEW_LIST_SIZE),
  ]);
  const counted = [...rows, ...rolledUp];
  const totals = sumUsage(counted);
  const leaders = usageByTeam(counted, LEADERBOARD_SIZE);
  const lastJobs = await getJobsInOrder(lastJobIds);
  const [names, teams] = await Promise.all([
    namesOf([...lastJobs, ...running]),
    getTeamsById([...leaders, ...claims, ...failures].map((row) => row.team_id)),
  ]);
  const teamName = (id: string) => teams.get(id)?.name ?? null;
  const mediaFigures = (media: keyof typeof totals.by_media) => totals.by_media[media];
  return {
    range,
    range_start: start,
    generated_at: now.toISOString(),
    credits_spent: totals.credits,
    counts: pick(totals, ['jobs', 'completed', 'failed', 'items', 'claims', 'submissions', 'estimation_sends']),
    spend_by_media_type: { video: mediaFigures('video'), photo: mediaFigures('photo'), audio: mediaFigures('audio') },
    leaderboard: leaders.map((team) => ({
      team_id: team.team_id,
      team_name: teamName(team.team_id),
      ...pick(team, MEDIA_COUNTERS),
    })),
    latest_claims: claims.map((claim) => ({
      id: claim.id,
      claim_number: claim.claim_number,
      team_id: claim.team_id,
      team_name: teamName(claim.team_id),
      is_training: Boolean(claim.is_training),
      created_at: claim.created_at,
    })),
    last_jobs: lastJobs.map((job) => adminJobView(job, names)),
    processing_now: running.map((job) => adminJobView(job, names)),
    recent_failures: failures.map((failure) => ({ ...failure, team_name: teamName(failure.team_id) })),
    activity,
    submissions: Object.fromEntries(SEND_DESTINATIONS.map((d) => [d.platform, totals[d.statsCounter]])) as Record<
      SendPlatform,
      number
    >,
    quality: qualityAverages(totals),
    stats: pick(totals, ['ai_cost_usd', 'ai_tokens', 'ai_calls', 'processing_seconds']),
    active_users: activeUsers,
    active_jobs: running.length,
  };
}
