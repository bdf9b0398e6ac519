/** Table keys of activity entries (lib/db/keys.ts describes the table). */

export const activityKeys = {
  activity: (id: string) => ({ pk: `ACTIVITY#${id}`, sk: 'ACTIVITY' }),
} as const;

export const activityIndexes = {
  teamActivity: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#ACTIVITY` }),
} as const;
