/** Table keys of users (lib/db/keys.ts describes the table). */

export const userKeys = {
  user: (id: string) => ({ pk: `USER#${id}`, sk: 'USER' }),
  userExternal: (externalId: string) => ({ pk: `USEREXT#${externalId}`, sk: 'UNIQUE' }),
  userEmail: (email: string) => ({ pk: `USEREMAIL#${email.trim().toLowerCase()}`, sk: 'UNIQUE' }),
} as const;

export const userIndexes = {
  teamUsers: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#USERS` }),
} as const;
