/** Table keys of usage counters, the failure feed and presence (lib/db/keys.ts describes the table). */

export const statsKeys = {
  /** One team's usage counters in one time bucket (lib/stats/rules.ts names the buckets). */
  usage: (bucket: string, teamId: string) => ({ pk: `STATS#${bucket}`, sk: `TEAM#${teamId}` }),
  /** Written after a rollup bucket's team rows (lib/stats/rules.ts, Rollup): they are all there. */
  usageRollupDone: (bucket: string) => ({ pk: `STATS#${bucket}`, sk: 'COMPLETE' }),
  /** A job failure, newest last: the overview's recent failures. */
  failure: (failedAt: string, jobId: string) => ({ pk: 'FAILURES', sk: `${failedAt}#${jobId}` }),
  /** A user seen in one minute (UTC, yyyy-mm-ddThh:mm): the overview's active users. */
  presence: (minute: string, userId: string) => ({ pk: `PRESENCE#${minute}`, sk: `USER#${userId}` }),
} as const;
