/** Table keys of rooms (lib/db/keys.ts describes the table). */

export const roomKeys = {
  room: (id: string) => ({ pk: `ROOM#${id}`, sk: 'ROOM' }),
} as const;

export const roomIndexes = {
  claimRooms: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#ROOMS` }),
  /** A room's items (written on the item rows by lib/inventory), here so the room's counts can read them. */
  roomItems: (roomId: string) => ({ index: 'gsi2', pk: `ROOM#${roomId}#ITEMS` }),
} as const;
