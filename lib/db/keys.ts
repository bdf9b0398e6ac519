/**
 * Single-table design: every key shape the service writes, described in one place. Each domain builds the keys of
 * its own rows (lib/<domain>/keys.ts: claimKeys, jobKeys, jobIndexes, ...); this module builds those of the lower
 * layers (idempotency records, rate windows, direct deliveries).
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
  /** Idempotency-Key records (lib/http/idempotency.ts); Powertools writes the sort key. */
  idempotency: (recordKey: string) => ({ pk: 'IDEMPOTENCY', sk: recordKey }),
  directDelivery: (messageId: string) => ({ pk: `DELIVERY#${messageId}`, sk: 'COUNT' }),
  /** One fixed rate-limit window of one caller (`key`, already bounded) for one limited action (`scope`). */
  rateWindow: (scope: string, key: string, windowStartSeconds: number) => ({
    pk: `RATE#${scope}#${key}`,
    sk: `WINDOW#${windowStartSeconds}`,
  }),
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
