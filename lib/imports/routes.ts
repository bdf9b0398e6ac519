import { defineRoute } from '../http/route';
import { idParams } from '../http/schemas';
import { confirmImportExamples, importContentsListExamples } from './examples';
import {
  batchParams,
  confirmImportBody,
  importBatchResponse,
  importContentsListBody,
  startImportResponse,
} from './schemas';

export const importRoutes = {
  importContentsList: defineRoute({
    name: 'importContentsList',
    method: 'POST',
    path: '/api/claims/{id}/import-contents-list',
    auth: 'actor',
    tag: 'imports',
    summary:
      'Import PDF contents lists into a claim: a manifest of the PDFs in (name and size; the bytes go straight to storage), a new ImportBatch and one presigned POST per file out, at once. ' +
      'POST each file, then confirm the import: the files are read, their photos split by room (room names matched case-insensitively against the claim’s active rooms, missing rooms created; photos with no room go to a room named after their file), and one photo job per room is created in awaiting_grouping. ' +
      'PDFs only (400), at most 20 (400), 512 MiB each (413), not all empty (400); a malformed manifest is 422. Nothing is written on an error.',
    handler: 'api/imports/import-contents-list',
    params: idParams,
    body: importContentsListBody,
    response: startImportResponse,
    examples: importContentsListExamples,
    successStatus: 201,
    errors: [400, 404, 413],
    idempotent: true,
  }),
  confirm: defineRoute({
    name: 'confirmImport',
    method: 'POST',
    path: '/api/integrations/imports/{batch_id}/confirm',
    auth: 'actor',
    tag: 'imports',
    summary:
      'The files of a contents-list import whose upload finished (or failed); without documents, every file still waiting. Each is checked in storage: arrived, it is queued; missing, skipped. ' +
      'Once every file is confirmed the read starts; when none arrived the import ends failed. Idempotent. 400 for a file number the import does not have; 409 once it no longer waits for files.',
    handler: 'api/imports/confirm-import',
    params: batchParams,
    body: confirmImportBody,
    response: importBatchResponse,
    examples: confirmImportExamples,
    errors: [400, 404, 409],
  }),
  get: defineRoute({
    name: 'getImport',
    method: 'GET',
    path: '/api/integrations/imports/{batch_id}',
    auth: 'user',
    tag: 'imports',
    summary:
      'Progress of an import: status, counters (total, imported, skipped, failed), each file’s state and the photo jobs created, one per room. Poll it until the status is complete, partial or failed.',
    handler: 'api/imports/get-import',
    params: batchParams,
    response: importBatchResponse,
    errors: [404],
  }),
  retry: defineRoute({
    name: 'retryImport',
    method: 'POST',
    path: '/api/integrations/imports/{batch_id}/retry',
    auth: 'actor',
    tag: 'imports',
    summary:
      'Reads the failed files of a partial or failed import again (files that never arrived cannot be retried); their photos go to new photo jobs, one per room. 409 while the import runs or when no file failed.',
    handler: 'api/imports/retry-import',
    params: batchParams,
    response: importBatchResponse,
    errors: [404, 409],
  }),
};
