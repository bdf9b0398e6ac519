/** Table keys of estimation and claims platform sends (lib/db/keys.ts describes the table). */

export const sendKeys = {
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
} as const;

export const sendIndexes = {
  claimSubmissions: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#SUBMISSIONS` }),
  openSubmissions: () => ({ index: 'active', pk: 'SUBMISSIONS#OPEN' }),
  openEstimationSends: () => ({ index: 'active', pk: 'ESTSENDS#OPEN' }),
} as const;
