/**
 * Examples of the contents-list import's requests and answers for the API
 * reference (lib/http/openapi.ts shows them beside the schemas): the manifest
 * in, one presigned POST per PDF out, then the confirm naming the files
 * whose POST finished. importBatchExample is the ImportBatch answer, which
 * the capture source import shares (lib/imports/capture/examples.ts).
 */
import type * as z from 'zod';
import { bodyExample, responseExample } from '../http/route';
import { confirmImportBody, importBatchResponse, importContentsListBody, startImportResponse } from './schemas';

const BATCH_ID = '0d8f6b4a-2c1e-4f3d-9b5a-7e9c1a3f5b7d';
const CLAIM_ID = '5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e';
const READ_JOB_ID = '6e2a4c8f-0b1d-4a3e-8c5f-9d1b3f5a7c9e';

const PDFS = [
  { filename: 'contents-list-ground-floor.pdf', size: 2_483_913 },
  { filename: 'contents-list-upstairs.pdf', size: 1_120_447 },
];

type ImportBatch = z.output<typeof importBatchResponse>;

/** The two PDFs as the import lists them, in one state. */
const pdfDocuments = (state: ImportBatch['documents'][number]['state']): ImportBatch['documents'] =>
  PDFS.map((pdf, document) => ({
    document,
    original_filename: pdf.filename,
    size_bytes: pdf.size,
    state,
    pages: null,
    photos: 0,
    message: null,
  }));

/** An ImportBatch answer: a contents-list import's unless `fields` say otherwise. */
export const importBatchExample = (fields: Partial<ImportBatch>): ImportBatch => ({
  id: BATCH_ID,
  kind: 'contents_list',
  claim_id: CLAIM_ID,
  connection_id: null,
  manifest: null,
  status: 'awaiting_upload',
  total: PDFS.length,
  imported: 0,
  skipped: 0,
  failed: 0,
  documents: pdfDocuments('awaiting_upload'),
  jobs: [],
  job_ids: [],
  read_job_id: READ_JOB_ID,
  progress_pct: 0,
  runs: 1,
  created_by_user_id: 'user-1042',
  created_at: '2025-06-02T14:40:00Z',
  updated_at: '2025-06-02T14:40:00Z',
  finished_at: null,
  ...fields,
});

export const importContentsListExamples = {
  body: {
    twoLists: bodyExample(importContentsListBody, 'Two PDF contents lists, as the browser has them (File.size)', {
      files: PDFS.map((pdf) => ({ ...pdf, content_type: 'application/pdf' })),
    }),
  },
  response: {
    started: responseExample(startImportResponse, 'The import, waiting for its files: POST each, then confirm', {
      ...importBatchExample({}),
      uploads: PDFS.map((pdf, document) => ({
        document,
        original_filename: pdf.filename,
        url: 'https://media-bucket.s3.us-east-1.amazonaws.com/',
        fields: {
          key: `teams/team-7/claims/${CLAIM_ID}/imports/${BATCH_ID}/${document}.pdf`,
          'Content-Type': 'application/pdf',
          Policy: 'eyJleHBpcmF0aW9uIjoi…',
          'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
          'X-Amz-Credential': 'AKIA…/20250602/us-east-1/s3/aws4_request',
          'X-Amz-Date': '20250602T144000Z',
          'X-Amz-Signature': '5c0f…',
        },
        max_bytes: pdf.size,
      })),
    }),
  },
};

export const confirmImportExamples = {
  body: {
    some: bodyExample(confirmImportBody, 'The first file’s POST finished (the second is still on its way)', {
      documents: [0],
    }),
    all: bodyExample(confirmImportBody, 'Every file still waiting: the read starts', {}),
  },
  response: {
    reading: responseExample(
      importBatchResponse,
      'Both files arrived: the read has started',
      importBatchExample({
        status: 'importing',
        documents: pdfDocuments('queued'),
        progress_pct: 10,
        updated_at: '2025-06-02T14:41:30Z',
      }),
    ),
  },
};
