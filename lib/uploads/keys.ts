/** Table keys of upload sessions (lib/db/keys.ts describes the table). */

export const uploadKeys = {
  upload: (id: string) => ({ pk: `UPLOAD#${id}`, sk: 'UPLOAD' }),
} as const;

export const uploadIndexes = {
  openUploads: () => ({ index: 'gsi2', pk: 'UPLOADS#OPEN' }),
} as const;
