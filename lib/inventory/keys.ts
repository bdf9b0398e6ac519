/** Table keys of inventory items and their photos (lib/db/keys.ts describes the table). */

export const itemKeys = {
  item: (id: string) => ({ pk: `ITEM#${id}`, sk: 'ITEM' }),
  itemPhoto: (itemId: string, photoId: string) => ({ pk: `ITEM#${itemId}`, sk: `PHOTO#${photoId}` }),
} as const;

export const itemIndexes = {
  jobItems: (jobId: string) => ({ index: 'gsi1', pk: `JOB#${jobId}#ITEMS` }),
} as const;
