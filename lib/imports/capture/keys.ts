/** Table keys of storage connections and capture imports' provenance (lib/db/keys.ts describes the table). */

export const captureKeys = {
  /** A team's connection to an external system (one per team and provider kind). */
  connection: (id: string) => ({ pk: `CONNECTION#${id}`, sk: 'CONNECTION' }),
  /** The team's connection of one provider kind: the uniqueness row that makes it one. */
  teamConnection: (teamId: string, provider: string) => ({ pk: `TEAMCONN#${teamId}#${provider}`, sk: 'UNIQUE' }),
  /** The capture source organisation's connections (one per team that connected it): the webhook's lookup. */
  orgConnection: (orgId: string, teamId: string) => ({ pk: `CAPTUREORG#${orgId}`, sk: `TEAM#${teamId}` }),
  /** The one team connected to a capture source organisation: its webhook's events go to that team's connection. */
  orgOwner: (orgId: string) => ({ pk: `CAPTUREORG#${orgId}`, sk: 'OWNER' }),
  /** Provenance of one imported capture media item: unique on (connection, media id). */
  uploadRecord: (connectionId: string, mediaId: string) => ({
    pk: `UPLOADREC#${connectionId}`,
    sk: `MEDIA#${mediaId}`,
  }),
  /** The claim an assignment's media lands in on a connection (set by its first import). */
  captureAssignment: (connectionId: string, assignmentId: string) => ({
    pk: `CAPTUREASSIGN#${connectionId}#${assignmentId}`,
    sk: 'CLAIM',
  }),
  /** A webhook event, or a submission, already turned into a batch on a connection. */
  captureEvent: (connectionId: string, eventId: string) => ({
    pk: `CAPTUREEVENT#${connectionId}#${eventId}`,
    sk: 'BATCH',
  }),
  captureSubmission: (connectionId: string, submissionId: string) => ({
    pk: `CAPTURESUB#${connectionId}#${submissionId}`,
    sk: 'BATCH',
  }),
} as const;
