/** Export requests, answers and the exports queue's message. */
import * as z from 'zod';
import { queryBool, uuid } from '../http/schemas';

export const exportQuery = z.object({ approved_only: queryBool(false) });

const exportStatus = z.enum(['pending', 'ready', 'failed']);

/** The 202 answer of an export request: where to poll until the file is ready. */
export const exportAccepted = z
  .object({
    export_id: z.uuid(),
    status: exportStatus,
    poll_url: z.string().meta({ description: 'GET it until status is ready (or failed).' }),
  })
  .meta({ description: 'The export is being built; poll poll_url for its status and download link.' });

export const exportView = z.object({
  export_id: z.uuid(),
  status: exportStatus,
  format: z.enum(['excel', 'csv', 'pdf']),
  scope: z.enum(['job', 'room', 'claim']),
  scope_id: z.uuid(),
  approved_only: z.boolean(),
  filename: z.string().nullable(),
  item_count: z.number().int().nullable(),
  download_url: z
    .string()
    .nullable()
    .meta({ description: 'A short-lived link to the file (an attachment), once status is ready.' }),
  download_expires_in: z.number().int().nullable().meta({ description: 'Seconds the download link stays valid.' }),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const exportParams = z.object({ export_id: uuid() });

/** One export to build. */
export const exportMessage = z.object({ export_id: z.uuid() });
export type ExportMessage = z.output<typeof exportMessage>;
