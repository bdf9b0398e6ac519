/** Table keys of insured links, the homeowner's drafts and submit rounds (lib/db/keys.ts describes the table). */

export const insuredKeys = {
  insuredLink: (id: string) => ({ pk: `INSUREDLINK#${id}`, sk: 'LINK' }),
  /** A room the homeowner added (a draft until submit), in the link's partition. */
  insuredRoom: (linkId: string, roomId: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `ROOM#${roomId}` }),
  /** A homeowner's file (a room's photo, video or voice note, or a typed row's photo), in the link's partition. */
  insuredFile: (linkId: string, fileId: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `FILE#${fileId}` }),
  /** A row the homeowner typed, in the link's partition. */
  insuredItem: (linkId: string, itemId: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `ITEM#${itemId}` }),
  /** One row per draft room name of a link (lower-cased), so a name is added once. */
  insuredRoomName: (linkId: string, name: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `ROOMNAME#${name}` }),
  /** A homeowner submit round (its id derived from the link and the round): its run on the engine. */
  insuredRound: (id: string) => ({ pk: `INSUREDROUND#${id}`, sk: 'ROUND' }),
  /** A link's current token (its SHA-256): the public routes' lookup. */
  insuredToken: (tokenHash: string) => ({ pk: `INSUREDTOKEN#${tokenHash}`, sk: 'UNIQUE' }),
  /** The invitation mail's message id: the mail-events webhook's lookup. */
  insuredMail: (messageId: string) => ({ pk: `INSUREDMAIL#${messageId}`, sk: 'UNIQUE' }),
  /** A mail event's signing token, once seen (a replay is refused); expires with the signature window. */
  mailEventToken: (token: string) => ({ pk: `MAILEVENT#${token}`, sk: 'SEEN' }),
} as const;

export const insuredIndexes = {
  claimInsuredLinks: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#INSUREDLINKS` }),
  /** Homeowner submit rounds being made (their run under way), walked by the watchdog. */
  openInsuredRounds: () => ({ index: 'active', pk: 'INSUREDROUNDS#OPEN' }),
  /** Links of the shape before rounds ran on the engine, with a round being made: what the migration moves on. */
  openInsuredSubmits: () => ({ index: 'active', pk: 'INSUREDSUBMITS#OPEN' }),
} as const;
