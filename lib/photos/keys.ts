/** Table keys of staged photos (lib/db/keys.ts describes the table). */

export const photoKeys = {
  stagedPhoto: (jobId: string, index: number) => ({
    pk: `JOB#${jobId}`,
    sk: `PHOTO#${String(index).padStart(6, '0')}`,
  }),
} as const;
