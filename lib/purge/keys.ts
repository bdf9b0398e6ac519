/** The sparse index of archived claims, rooms and items that the daily purge reads (lib/db/keys.ts describes the table). */

export const purgeIndexes = {
  archived: () => ({ index: 'archived', pk: 'ARCHIVED' }),
} as const;
