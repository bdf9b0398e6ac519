/**
 * Single-table design: every key shape the service writes, in one place.
 *
 * Table attributes: pk, sk (primary); gsi1pk/gsi1sk and gsi2pk/gsi2sk (general
 * "list children of X, newest first" indexes); archpk/archsk (sparse index of
 * archived things for the daily purge).
 *
 * | entity            | pk                      | sk        | gsi1pk                  | gsi1sk              | gsi2pk            | gsi2sk        |
 * |-------------------|-------------------------|-----------|-------------------------|---------------------|-------------------|---------------|
 * | Team              | TEAM#<id>               | TEAM      | TEAMS                   | <created_at>        |                   |               |
 * | team token unique | TEAMTOKEN#<sha256>      | UNIQUE    |                         |                     |                   |               |
 * | team ext unique   | TEAMEXT#<external_id>   | UNIQUE    |                         |                     |                   |               |
 * | User              | USER#<id>               | USER      | TEAM#<team_id>#USERS    | <created_at>        | USERS             | <created_at>  |
 * | user ext unique   | USEREXT#<external_id>   | UNIQUE    |                         |                     |                   |               |
 * | user email unique | USEREMAIL#<email>       | UNIQUE    |                         |                     |                   |               |
 * | Claim             | CLAIM#<id>              | CLAIM     | TEAM#<team_id>#CLAIMS   | <created_at>#<id>   | CLAIMS            | <created_at>  |
 * | Room              | ROOM#<id>               | ROOM      | CLAIM#<claim_id>#ROOMS  | <created_at>#<id>   |                   |               |
 * | ProcessingJob     | JOB#<id>                | JOB       | ROOM#<room_id>#JOBS     | <created_at>#<id>   | TEAM#<team>#JOBS  | <created_at>  |
 * | InventoryItem     | ITEM#<id>               | ITEM      | JOB#<job_id>#ITEMS      | <item_number:08>    | ROOM#<room>#ITEMS | <number:08>   |
 * | ItemPhoto         | ITEM#<item_id>          | PHOTO#<id> |                        |                     |                   |               |
 * | item number batch | JOB#<job_id>            | ITEMBATCH#<batch> |                 |                     |                   |               |
 * | photo group plan  | JOB#<job_id>            | PHOTOPLAN#<run_id> |                |                     |                   |               |
 * | photo group result| JOB#<job_id>            | PHOTORESULT#<run_id>#<group:06> |   |                     |                   |               |
 * | Activity entry    | ACTIVITY#<id>           | ACTIVITY  | TEAM#<team_id>#ACTIVITY | <created_at>#<id>   | ACTIVITY          | <created_at>  |
 * | Component flags   | COMPONENTS              | GLOBAL or TEAM#<team_id> |          |                     |                   |               |
 * | StagedPhoto       | JOB#<job_id>            | PHOTO#<index:06> |                  |                     |                   |               |
 * | Upload session    | UPLOAD#<id>             | UPLOAD    |                         |                     | UPLOADS#OPEN (while open) | <created_at> |
 * | Job live log      | JOBLOG#<job_id>         | SEQ, LINE#<slot:06> |               |                     |                   |               |
 * | ImportBatch       | IMPORT#<id>             | IMPORT    | CLAIM#<claim_id>#IMPORTS | <created_at>#<id>  |                   |               |
 * | Estimation send   | ESTSEND#<claim_id>      | SEND      |                         |                     |                   |               |
 * | estimation batch item | ESTSEND#<claim_id>  | ITEM#<batch_id>#<item_id> |           |                     |                   |               |
 * | Submission        | SUBMISSION#<id>         | SUBMISSION | CLAIM#<claim_id>#SUBMISSIONS | <created_at>#<id> |               |               |
 * | submission item   | SUBMISSION#<id>         | ITEM#<item_id> |                    |                     |                   |               |
 * | send unit's item  | SUBMISSION#<id>         | UNITITEM#<index> |                  |                     |                   |               |
 * | claim's open send | CLAIMSEND#<claim_id>    | SEND      |                         |                     |                   |               |
 * | Insured link      | INSUREDLINK#<id>        | LINK      | CLAIM#<claim_id>#INSUREDLINKS | <created_at>#<id> |              |               |
 * | insured draft room| INSUREDLINK#<id>        | ROOM#<room_id>, ROOMNAME#<lower name> |  |             |                   |               |
 * | insured submit round | INSUREDROUND#<id>    | ROUND     |                         |                     | INSUREDROUNDS#OPEN (making) | <heartbeat>#<id> |
 * | link token unique | INSUREDTOKEN#<sha256>   | UNIQUE    |                         |                     |                   |               |
 * | link mail unique  | INSUREDMAIL#<message id> | UNIQUE   |                         |                     |                   |               |
 * | mail event seen   | MAILEVENT#<token>       | SEEN      |                         |                     |                   |               |
 * | Job log archive   | JOBLOGARCHIVE#<job_id>  | ARCHIVE   |                         |                     |                   |               |
 * | Fan-out unit      | JOBUNIT#<job_id>        | <run_id>#<stage>#<index:06> |       |                     |                   |               |
 * | AI request record | AIREQ#<job_id>          | <at ISO>#<id> |                       |                     |                   |               |
 * | Idempotency record| IDEMPOTENCY             | http#<sha256 of team, route, key> |  |                     |                   |               |
 * | Job stream slot   | JOBSTREAM#<job_id>      | SLOT#<n>  |                         |                     |                   |               |
 * | Export (file)     | EXPORT#<id>             | EXPORT    |                         |                     |                   |               |
 * | export request    | EXPORTREQ#<team_id>#<scope>#<scope_id> | <format>#<all|approved> |   |                   |               |
 * | rate window       | RATE#<scope>#<key>      | WINDOW#<window start, epoch s> |  |                     |                   |               |
 * | usage counters    | STATS#<bucket>          | TEAM#<team_id> |                    |                     |                   |               |
 * | failure feed      | FAILURES                | <failed at>#<job_id> |              |                     |                   |               |
 * | presence          | PRESENCE#<minute>       | USER#<user_id> |                    |                     |                   |               |
 * | direct delivery   | DELIVERY#<message id>   | COUNT     |                         |                     |                   |               |
 * | owed send refund  | SENDREFUND#<reference>  | OWED      |                         |                     |                   |               |
 *
 * Archived claims and rooms also carry archpk=ARCHIVED, archsk=<archived_at>#<kind>#<id>
 * so the purge reads only what is archived. Jobs in a processing state carry
 * activepk=ACTIVE, activesk=<last activity>#<id> so the watchdog reads only
 * running jobs, oldest activity first; Submissions still processing (a claims
 * platform send's run) carry activepk=SUBMISSIONS#OPEN, activesk=<last activity>#<id>
 * so the watchdog reads only the sends under way; estimation send records between a batch's record
 * and its end carry activepk=ESTSENDS#OPEN, activesk=<step written>#<claim_id>. Jobs owing billing work (a refund not yet
 * confirmed, a spend whose answer was lost) or holding a round (listed from the moment its spend is asked for,
 * taken off by the sweep once its run started or its refund is settled) carry archpk=BILLING#PENDING,
 * archsk=<owed since>#<id> on the same sparse index, so the billing sweep reads only those;
 * so do the refunds of failed sends not yet confirmed (owed send refund rows).
 * Export rows and export request rows carry expires_at (TTL, a week after the
 * request): an export is asked for, built by the exports worker and downloaded
 * within minutes, and its file lives under the claim's prefix in the bucket.
 * Rate window rows (lib/db/rate-window.ts) carry expires_at a little after
 * their minute ends: a window is never read again once it is over.
 * Media jobs (not a contents-list reader or a capture runner) also carry
 * jobspk=JOBS#<UTC day of created_at>, jobssk=<created_at>#<id> on the `jobs`
 * index, which projects a few attributes only: the admin lists read and filter
 * it a day at a time, newest first (lib/admin/job-page-rules.ts). Rows written
 * before the day buckets carry jobspk=JOBS; `npm run migrate:job-days` moves
 * them to their day (lib/admin/migration-service.ts).
 * The media job totals (JOBTOTALS#<0..15>, lib/jobs/job-totals-rules.ts) are
 * added to in the same transaction that writes or deletes a media job row, a
 * shard chosen by the job's id: the admin lists' `total` reads 16 rows.
 * Usage counters (lib/stats) are added to as jobs, charges, claims and sends
 * are written, one row per team and bucket (HOUR#<yyyy-mm-ddThh>,
 * DAY#<yyyy-mm-dd>, MONTH#<yyyy-mm>, ALL), so the admin overview sums a few
 * partitions instead of reading the jobs. Presence rows carry expires_at an
 * hour on; failure feed rows a year on. Direct delivery rows (lib/db/delivery-counter.ts)
 * count the deliveries of a message handed to a worker by direct invoke, and
 * carry expires_at a day on.
 */

export const keys = {
  team: (id: string) => ({ pk: `TEAM#${id}`, sk: 'TEAM' }),
  teamToken: (tokenHash: string) => ({ pk: `TEAMTOKEN#${tokenHash}`, sk: 'UNIQUE' }),
  teamExternal: (externalId: number | string) => ({ pk: `TEAMEXT#${externalId}`, sk: 'UNIQUE' }),
  user: (id: string) => ({ pk: `USER#${id}`, sk: 'USER' }),
  userExternal: (externalId: string) => ({ pk: `USEREXT#${externalId}`, sk: 'UNIQUE' }),
  userEmail: (email: string) => ({ pk: `USEREMAIL#${email.trim().toLowerCase()}`, sk: 'UNIQUE' }),
  claim: (id: string) => ({ pk: `CLAIM#${id}`, sk: 'CLAIM' }),
  room: (id: string) => ({ pk: `ROOM#${id}`, sk: 'ROOM' }),
  job: (id: string) => ({ pk: `JOB#${id}`, sk: 'JOB' }),
  /** One shard of the media job totals (lib/jobs/job-totals-rules.ts): its own partition, so no one row takes every job's write. */
  jobTotalsShard: (shard: number) => ({ pk: `JOBTOTALS#${shard}`, sk: 'JOBTOTALS' }),
  item: (id: string) => ({ pk: `ITEM#${id}`, sk: 'ITEM' }),
  itemPhoto: (itemId: string, photoId: string) => ({ pk: `ITEM#${itemId}`, sk: `PHOTO#${photoId}` }),
  activity: (id: string) => ({ pk: `ACTIVITY#${id}`, sk: 'ACTIVITY' }),
  stagedPhoto: (jobId: string, index: number) => ({
    pk: `JOB#${jobId}`,
    sk: `PHOTO#${String(index).padStart(6, '0')}`,
  }),
  upload: (id: string) => ({ pk: `UPLOAD#${id}`, sk: 'UPLOAD' }),
  components: (teamId: string | null) => ({ pk: 'COMPONENTS', sk: teamId ? `TEAM#${teamId}` : 'GLOBAL' }),
  aiRequest: (jobId: string, at: string, id: string) => ({ pk: `AIREQ#${jobId}`, sk: `${at}#${id}` }),
  /** Idempotency-Key records (lib/http/idempotency.ts); Powertools writes the sort key. */
  idempotency: (recordKey: string) => ({ pk: 'IDEMPOTENCY', sk: recordKey }),
  jobStreamSlot: (jobId: string, slot: number) => ({ pk: `JOBSTREAM#${jobId}`, sk: `SLOT#${slot}` }),
  export: (id: string) => ({ pk: `EXPORT#${id}`, sk: 'EXPORT' }),
  importBatch: (id: string) => ({ pk: `IMPORT#${id}`, sk: 'IMPORT' }),
  /** The claim's estimation platform send: one row per claim, its lease and its last batch. */
  estimationSend: (claimId: string) => ({ pk: `ESTSEND#${claimId}`, sk: 'SEND' }),
  /** One item of an estimation send's batch, in the claim's send partition. */
  estimationSendItem: (claimId: string, batchId: string, itemId: string) => ({
    pk: `ESTSEND#${claimId}`,
    sk: `ITEM#${batchId}#${itemId}`,
  }),
  submission: (id: string) => ({ pk: `SUBMISSION#${id}`, sk: 'SUBMISSION' }),
  /** One item a claims platform send carries, and its outcome once counted. */
  submissionItem: (submissionId: string, itemId: string) => ({
    pk: `SUBMISSION#${submissionId}`,
    sk: `ITEM#${itemId}`,
  }),
  /** Which item the `index`-th unit of a claims platform send's run sends (written by the run's plan). */
  submissionUnitItem: (submissionId: string, index: number) => ({
    pk: `SUBMISSION#${submissionId}`,
    sk: `UNITITEM#${String(index).padStart(6, '0')}`,
  }),
  /** The claim's one open claims platform send (and the charge rounds its batches used). */
  claimSend: (claimId: string) => ({ pk: `CLAIMSEND#${claimId}`, sk: 'SEND' }),
  insuredLink: (id: string) => ({ pk: `INSUREDLINK#${id}`, sk: 'LINK' }),
  /** A room the homeowner added (a draft until submit), in the link's partition. */
  insuredRoom: (linkId: string, roomId: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `ROOM#${roomId}` }),
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
  /** A user's training progress (points, sandbox claim, certificate) and one row per mission. */
  trainingProgress: (userId: string) => ({ pk: `TRAINING#${userId}`, sk: 'PROGRESS' }),
  trainingMission: (userId: string, missionKey: string) => ({ pk: `TRAINING#${userId}`, sk: `MISSION#${missionKey}` }),
  trainingCertificate: (code: string) => ({ pk: `CERTIFICATE#${code}`, sk: 'CERTIFICATE' }),
  /** A homeowner's file (a room's photo, video or voice note, or a typed row's photo), in the link's partition. */
  insuredFile: (linkId: string, fileId: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `FILE#${fileId}` }),
  /** A row the homeowner typed, in the link's partition. */
  insuredItem: (linkId: string, itemId: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `ITEM#${itemId}` }),
  /** One row per draft room name of a link (lower-cased), so a name is added once. */
  /** A homeowner submit round (its id derived from the link and the round): its run on the engine. */
  insuredRound: (id: string) => ({ pk: `INSUREDROUND#${id}`, sk: 'ROUND' }),
  insuredRoomName: (linkId: string, name: string) => ({ pk: `INSUREDLINK#${linkId}`, sk: `ROOMNAME#${name}` }),
  /** A link's current token (its SHA-256): the public routes' lookup. */
  insuredToken: (tokenHash: string) => ({ pk: `INSUREDTOKEN#${tokenHash}`, sk: 'UNIQUE' }),
  /** The invitation mail's message id: the mail-events webhook's lookup. */
  insuredMail: (messageId: string) => ({ pk: `INSUREDMAIL#${messageId}`, sk: 'UNIQUE' }),
  /** A mail event's signing token, once seen (a replay is refused); expires with the signature window. */
  mailEventToken: (token: string) => ({ pk: `MAILEVENT#${token}`, sk: 'SEEN' }),
  /** Learned contents-list recipes (global): one partition per page size, so a hash miss reads its neighbours once. */
  pdfTemplate: (pageWidth: number, pageHeight: number, hash: string) => ({
    pk: `PDFTEMPLATES#${pageWidth}x${pageHeight}`,
    sk: hash,
  }),
  /** The latest export asked for one scope, format and filter: a repeat while it is pending reuses it. */
  exportRequest: (teamId: string, scope: string, scopeId: string, format: string, approvedOnly: boolean) => ({
    pk: `EXPORTREQ#${teamId}#${scope}#${scopeId}`,
    sk: `${format}#${approvedOnly ? 'approved' : 'all'}`,
  }),
  /** One fixed rate-limit window of one caller (`key`, already bounded) for one limited action (`scope`). */
  directDelivery: (messageId: string) => ({ pk: `DELIVERY#${messageId}`, sk: 'COUNT' }),
  owedSendRefund: (reference: string) => ({ pk: `SENDREFUND#${reference}`, sk: 'OWED' }),
  rateWindow: (scope: string, key: string, windowStartSeconds: number) => ({
    pk: `RATE#${scope}#${key}`,
    sk: `WINDOW#${windowStartSeconds}`,
  }),
  /** One team's usage counters in one time bucket (lib/stats/rules.ts names the buckets). */
  usage: (bucket: string, teamId: string) => ({ pk: `STATS#${bucket}`, sk: `TEAM#${teamId}` }),
  /** Written after a rollup bucket's team rows (lib/stats/rules.ts, Rollup): they are all there. */
  usageRollupDone: (bucket: string) => ({ pk: `STATS#${bucket}`, sk: 'COMPLETE' }),
  /** A job failure, newest last: the overview's recent failures. */
  failure: (failedAt: string, jobId: string) => ({ pk: 'FAILURES', sk: `${failedAt}#${jobId}` }),
  /** A user seen in one minute (UTC, yyyy-mm-ddThh:mm): the overview's active users. */
  presence: (minute: string, userId: string) => ({ pk: `PRESENCE#${minute}`, sk: `USER#${userId}` }),
} as const;

export const indexes = {
  teamClaims: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#CLAIMS` }),
  teamUsers: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#USERS` }),
  claimRooms: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#ROOMS` }),
  claimImports: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#IMPORTS` }),
  claimSubmissions: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#SUBMISSIONS` }),
  claimInsuredLinks: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#INSUREDLINKS` }),
  roomJobs: (roomId: string) => ({ index: 'gsi1', pk: `ROOM#${roomId}#JOBS` }),
  jobItems: (jobId: string) => ({ index: 'gsi1', pk: `JOB#${jobId}#ITEMS` }),
  teamActivity: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#ACTIVITY` }),
  teamTraining: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#TRAINING` }),
  teamJobs: (teamId: string) => ({ index: 'gsi2', pk: `TEAM#${teamId}#JOBS` }),
  allClaims: () => ({ index: 'gsi2', pk: 'CLAIMS' }),
  roomItems: (roomId: string) => ({ index: 'gsi2', pk: `ROOM#${roomId}#ITEMS` }),
  archived: () => ({ index: 'archived', pk: 'ARCHIVED' }),
  openUploads: () => ({ index: 'gsi2', pk: 'UPLOADS#OPEN' }),
  activeJobs: () => ({ index: 'active', pk: 'ACTIVE' }),
  openSubmissions: () => ({ index: 'active', pk: 'SUBMISSIONS#OPEN' }),
  openEstimationSends: () => ({ index: 'active', pk: 'ESTSENDS#OPEN' }),
  /** Homeowner submit rounds being made (their run under way), walked by the watchdog. */
  openInsuredRounds: () => ({ index: 'active', pk: 'INSUREDROUNDS#OPEN' }),
  /** Links of the shape before rounds ran on the engine, with a round being made: what the migration moves on. */
  openInsuredSubmits: () => ({ index: 'active', pk: 'INSUREDSUBMITS#OPEN' }),
  pendingBilling: () => ({ index: 'archived', pk: 'BILLING#PENDING' }),
  /** The media jobs created on one UTC day (yyyy-mm-dd). */
  jobsOfDay: (day: string) => ({ index: 'jobs', pk: `JOBS#${day}` }),
  /** The single all-jobs partition rows written before the day buckets still carry, until migrated. */
  legacyAllJobs: () => ({ index: 'jobs', pk: 'JOBS' }),
} as const;

/** Strips the key attributes before a row is shaped for a response. */
export function withoutKeys<T extends Record<string, unknown>>(
  row: T,
): Omit<
  T,
  | 'pk'
  | 'sk'
  | 'gsi1pk'
  | 'gsi1sk'
  | 'gsi2pk'
  | 'gsi2sk'
  | 'archpk'
  | 'archsk'
  | 'activepk'
  | 'activesk'
  | 'jobspk'
  | 'jobssk'
  | 'entity'
> {
  const {
    pk,
    sk,
    gsi1pk,
    gsi1sk,
    gsi2pk,
    gsi2sk,
    archpk,
    archsk,
    activepk,
    activesk,
    jobspk,
    jobssk,
    entity,
    ...rest
  } = row as Record<string, unknown>;
  void pk;
  void sk;
  void gsi1pk;
  void gsi1sk;
  void gsi2pk;
  void gsi2sk;
  void archpk;
  void archsk;
  void activepk;
  void activesk;
  void jobspk;
  void jobssk;
  void entity;
  return rest as never;
}
