/** Table keys of owed send refunds and the pending-billing index (lib/db/keys.ts describes the table). */

export const billingKeys = {
  owedSendRefund: (reference: string) => ({ pk: `SENDREFUND#${reference}`, sk: 'OWED' }),
} as const;

export const billingIndexes = {
  pendingBilling: () => ({ index: 'archived', pk: 'BILLING#PENDING' }),
} as const;
