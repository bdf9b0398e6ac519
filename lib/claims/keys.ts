/** Table keys of claims (lib/db/keys.ts describes the table). */

export const claimKeys = {
  claim: (id: string) => ({ pk: `CLAIM#${id}`, sk: 'CLAIM' }),
} as const;

export const claimIndexes = {
  teamClaims: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#CLAIMS` }),
  allClaims: () => ({ index: 'gsi2', pk: 'CLAIMS' }),
} as const;
