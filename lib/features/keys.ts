/** Table keys of the component flags (lib/db/keys.ts describes the table). */

export const featureKeys = {
  components: (teamId: string | null) => ({ pk: 'COMPONENTS', sk: teamId ? `TEAM#${teamId}` : 'GLOBAL' }),
} as const;
