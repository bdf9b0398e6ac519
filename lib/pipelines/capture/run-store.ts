/**
 * What a capture import run keeps between its stages, keyed by run so a
 * restarted run never reads what an interrupted one left: the import plan
 * (bucket JSON: thousands of media are far over DynamoDB's 400 KB row) and
 * one result per download unit (a run record, written once).
 */
import { putJson, readObject } from '../../blob/objects';
import { blobKeys } from '../../blob/keys';
import type { Job } from '../../jobs/job-record-rules';
import { getRunRecord, listRunRecords, putRunRecord, runRecordKey } from '../run-record-store';
import type { CaptureMediaType } from '../../imports/capture/import-rules';

type JobPlace = Pick<Job, 'team_id' | 'claim_id' | 'id'>;

/** One media item to download, and where it lands. */
export interface PlannedMedia {
  media_id: string;
  type: CaptureMediaType;
  filename: string;
  content_type: string;
  size_bytes: number;
  captured_at: string | null;
  /** The job it goes to: its room's photo job, or a job of its own (video, audio). */
  job_id: string;
  room_id: string;
  room_name: string;
  /** Photos: their number and group in the room job. */
  index: number | null;
  group_index: number | null;
  /** Where its bytes are written (a photo's upright JPEG, or the recording). */
  key: string;
  /** Where it was captured, kept on its Upload record. */
  meta: Record<string, string | null>;
}

export interface PlannedRoom {
  room_id: string;
  room_name: string;
  created: boolean;
}

export interface ImportPlan {
  run_id: string;
  media: PlannedMedia[];
  /** Download units: positions in `media`. */
  units: number[][];
  rooms: PlannedRoom[];
  /** Selected, but already imported on the connection. */
  skipped: number;
}

/** What became of one media item. */
export interface DownloadResult {
  media_id: string;
  ok: boolean;
  sha256: string | null;
  size_bytes: number | null;
  width: number | null;
  height: number | null;
  /** The photo's original could not be read: the capture source's proxy was used. */
  from_proxy: boolean;
  error: string | null;
}

const UNIT_RESULT = 'CAPTUREUNIT';

const planKey = (job: JobPlace, runId: string) =>
  `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}capture-runs/${runId}/plan.json`;

export const putImportPlan = (job: JobPlace, plan: ImportPlan) => putJson(planKey(job, plan.run_id), plan);

export async function getImportPlan(job: JobPlace, runId: string): Promise<ImportPlan> {
  const stored = await readObject(planKey(job, runId));
  if (!stored) throw new Error(`no import plan for run ${runId}`);
  return JSON.parse(stored.body.toString('utf8')) as ImportPlan;
}

export const putUnitResults = (jobId: string, runId: string, unit: number, results: DownloadResult[]) =>
  putRunRecord(jobId, runRecordKey(UNIT_RESULT, runId, unit), 'CaptureUnitResult', { unit, results });

export const getUnitResults = (jobId: string, runId: string, unit: number) =>
  getRunRecord<{ unit: number; results: DownloadResult[] }>(jobId, runRecordKey(UNIT_RESULT, runId, unit));

export async function listDownloadResults(jobId: string, runId: string): Promise<DownloadResult[]> {
  const records = await listRunRecords<{ results: DownloadResult[] }>(jobId, UNIT_RESULT, runId);
  return records.flatMap((r) => r.results);
}
