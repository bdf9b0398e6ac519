/** Table keys of processing jobs and the rows beside them (lib/db/keys.ts describes the table). */

export const jobKeys = {
  job: (id: string) => ({ pk: `JOB#${id}`, sk: 'JOB' }),
  /** One shard of the media job totals (lib/jobs/job-totals-rules.ts): its own partition, so no one row takes every job's write. */
  jobTotalsShard: (shard: number) => ({ pk: `JOBTOTALS#${shard}`, sk: 'JOBTOTALS' }),
  aiRequest: (jobId: string, at: string, id: string) => ({ pk: `AIREQ#${jobId}`, sk: `${at}#${id}` }),
  jobStreamSlot: (jobId: string, slot: number) => ({ pk: `JOBSTREAM#${jobId}`, sk: `SLOT#${slot}` }),
} as const;

export const jobIndexes = {
  roomJobs: (roomId: string) => ({ index: 'gsi1', pk: `ROOM#${roomId}#JOBS` }),
  teamJobs: (teamId: string) => ({ index: 'gsi2', pk: `TEAM#${teamId}#JOBS` }),
  activeJobs: () => ({ index: 'active', pk: 'ACTIVE' }),
  /** The media jobs created on one UTC day (yyyy-mm-dd). */
  jobsOfDay: (day: string) => ({ index: 'jobs', pk: `JOBS#${day}` }),
  /** The single all-jobs partition rows written before the day buckets still carry, until migrated. */
  legacyAllJobs: () => ({ index: 'jobs', pk: 'JOBS' }),
} as const;
