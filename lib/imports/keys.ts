/** Table keys of import batches (lib/db/keys.ts describes the table). */

export const importKeys = {
  importBatch: (id: string) => ({ pk: `IMPORT#${id}`, sk: 'IMPORT' }),
} as const;

export const importIndexes = {
  claimImports: (claimId: string) => ({ index: 'gsi1', pk: `CLAIM#${claimId}#IMPORTS` }),
} as const;
