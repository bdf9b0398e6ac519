/** GET /api/admin/activity: every team's activity, newest first, filtered by team and text, paged by offset. */
import { type ActivityEntry, activityRows } from '../activity/store';
import { matchesQuery } from './rules';
import { getTeamsById } from './store';

export async function listAllActivity(filter: { team_id?: string; q?: string; limit: number; offset: number }) {
  const matched: ActivityEntry[] = [];
  let hasMore = false;
  // Read a page at a time and stop one past the page asked for: the feed can be long.
  for await (const entry of activityRows(filter.team_id ?? null)) {
    if (
      !matchesQuery(filter.q, [entry.action_type, entry.action_label, entry.target, entry.user_name, entry.entity_id])
    )
      continue;
    if (matched.length === filter.offset + filter.limit) {
      hasMore = true;
      break;
    }
    matched.push(entry);
  }
  const items = matched.slice(filter.offset);
  const teams = await getTeamsById(items.map((entry) => entry.team_id));
  return {
    limit: filter.limit,
    offset: filter.offset,
    has_more: hasMore,
    items: items.map((entry) => ({ ...entry, team_name: teams.get(entry.team_id)?.name ?? null })),
  };
}
