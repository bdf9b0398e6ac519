/** Table keys of teams (lib/db/keys.ts describes the table). */

export const teamKeys = {
  team: (id: string) => ({ pk: `TEAM#${id}`, sk: 'TEAM' }),
  teamToken: (tokenHash: string) => ({ pk: `TEAMTOKEN#${tokenHash}`, sk: 'UNIQUE' }),
  teamExternal: (externalId: number | string) => ({ pk: `TEAMEXT#${externalId}`, sk: 'UNIQUE' }),
} as const;
