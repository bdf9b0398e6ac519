/**
 * The shape of a ProcessingJob record (spec: Resources > ProcessingJob) and
 * the record of a new job (pure: no I/O). Reads and writes are in job-store.ts.
 */
import { randomUUID } from 'node:crypto';
import type { RunState } from '../db/run-state';
import type { JobStatus, SourceType } from './job-rules';

/** A photo group whose answer was cut short (spec: Output budget and truncation). */
export interface TruncatedGroup {
  group_index: number;
  /** Calls made for it so far, the first included. */
  passes: number;
  /** Names found so far. */
  names: string[];
  /** Still cut short at PHOTO_MAX_PASSES: the user is told to segment it. */
  too_dense: boolean;
}

/** The job itself (lib/jobs): whose it is, what was uploaded, where it stands for the user. */
interface JobRecord {
  id: string;
  room_id: string;
  claim_id: string;
  team_id: string;
  created_by_user_id: string;
  source_type: SourceType;
  status: JobStatus;
  progress_pct: number;
  current_stage: string;
  error_message: string | null;
  original_filename: string | null;
  file_size_bytes: number;
  items_found: number;
  created_at: string;
  updated_at: string;
}

/** The engine's slice (lib/orchestrator): which pipeline run, stage and fan-out the job is in, its leases and timings. */
interface JobRunState extends RunState {
  /** Set while the job runs a follow-up pass (read the rest): it ends complete again, even on failure. */
  follow_up_pass?: boolean;
  finished_at: string | null;
}

/** Billing's slice (lib/billing): the charge rounds, what was billed, and refunds owed until the billing service confirms them. */
interface JobBilling {
  /** Whole credits, not dollars (the name is historical). */
  billed_cost_usd: number;
  billed_blocks: number;
  billed_minutes: number;
  billing_finalized_at: string | null;
  billing_charged: boolean;
  billing_txn_id: string | null;
  billing_amount: number;
  billing_refunded: boolean;
  /** How many times the job has been charged up front (a retried errored job is charged again). */
  billing_rounds: number;
  /** The spend of billing_rounds was sent but its answer was lost; settlement asks again with the same reference (lib/billing/settlement-service.ts). */
  billing_unconfirmed?: boolean;
  /**
   * False from the charge of billing_rounds until a run starts on it (true). A round charged and never started
   * (the function died between the spend and the start) is the charge of the next start, never a second spend.
   */
  billing_round_started?: boolean;
  /**
   * When billing_rounds was charged (or, while billing_spend_round is set, when that spend was asked for): a round
   * still not started (or not recorded) UNSTARTED_ROUND_LEASE_SECONDS later never will be by the request that charged
   * it (lib/billing/settlement-rules.ts), and the billing sweep gives it back.
   */
  billing_charged_at?: string | null;
  /**
   * The round whose spend was asked for and whose answer is not recorded yet (billing_rounds + 1), and its
   * credits: written just before the spend call, cleared by the write that records its answer. A request that
   * died in between leaves it for the billing sweep, which gives back whatever that spend took.
   */
  billing_spend_round?: number | null;
  billing_spend_amount?: number | null;
  /**
   * The last round whose spend the billing service flatly refused (402). The service remembers a refusal under
   * its reference, so a refused round is never asked again: the next charge takes the round after it.
   */
  billing_refused_round?: number | null;
  /**
   * True once the whole spend of billing_rounds is owed back before any run started on it (its start failed, or
   * its lease ran out): no run may start on it any more, and the next start charges a new round.
   */
  billing_round_abandoned?: boolean;
  /** Refunds owed to the team and not yet confirmed by the billing service. */
  refunds_owed?: OwedRefund[];
  /** 'pending' while a refund is owed, 'done' once the billing service confirmed every one. */
  refund_state?: 'pending' | 'done' | null;
  /** Bumped by every write of the billing fields, so a settlement never overwrites a newer charge or refund. */
  billing_version?: number;
  /** Read the rest: the charge round spent up front for the running pass, or null when it was not charged. */
  pass_charge_round?: number | null;
  /** Read the rest: the last pass whose credits were added to the job's billed credits (once per pass). */
  pass_billed?: string | null;
}

/** What the job's AI calls cost (lib/pipelines, recorded with each call). */
interface JobAiUsage {
  ai_cost_usd: number;
  ai_input_tokens: number;
  ai_output_tokens: number;
  ai_api_calls: number;
  /** Set once the job is counted among the jobs with AI calls (lib/jobs/job-totals-store.ts), with its first call. */
  with_ai_calls_counted?: boolean;
}

/** A video's or voice note's slice (lib/uploads, lib/pipelines/video, audio): the recording, its probe and transcript. */
interface JobRecording {
  /** Object key of the uploaded video or audio file. */
  media_key: string | null;
  total_frames: number;
  /** Seconds; drives billing for video and audio. */
  duration: number | null;
  /** The transcript's share the row carries (lib/pipelines/transcript-rules.ts); the whole one is in the bucket. */
  transcript: { text: string; segments: unknown[]; word_timings?: boolean; truncated?: boolean } | null;
  /** What the video pipeline's probe found: the picture's size and frame rate, and whether there is sound. */
  media_info?: MediaInfo | null;
  /** Video and audio: seconds of the recording whose analysis was answered (what the run is billed for). */
  analyzed_seconds?: number | null;
}

/** A photo job's slice (lib/photos, lib/pipelines/photo, photo-read-the-rest): uploads, AI requests and passes. */
interface JobPhotoWork {
  photo_request_count: number;
  photo_truncated_groups: TruncatedGroup[];
  /** Photo jobs: the last pass run (1 = the first run, 2.. = read-the-rest passes). */
  photo_pass?: number;
  /** Read the rest: AI requests of the last pass that were answered (what it is billed for). */
  pass_request_count?: number;
  /** Why the last read-the-rest pass failed (the job stays complete with its items). */
  last_pass_error?: string | null;
  /** Photo jobs: the loose photos of the browser's selection (photo_count_hint); contents-list groups are numbered after them. */
  photo_count_hint?: number;
  /** Photo jobs: bytes reserved against MAX_PHOTO_UPLOAD_MB as upload URLs are issued. */
  photo_bytes_reserved: number;
  /** Photo jobs: the next orig_#### number when appends give no start_index. */
  photo_next_index: number;
}

/** A contents-list read's slice (lib/imports, lib/pipelines/pdf): the documents and the import they belong to. */
interface JobContentsLists {
  /** Photo jobs started with contents lists (PDFs): each document and how its read went. */
  pdf_documents?: PdfDocument[];
  /**
   * The job that reads a claim-level contents-list import (ImportBatch): it
   * belongs to no room (room_id ''), is listed nowhere, and ends complete once
   * its photos are handed to one awaiting_grouping job per room.
   */
  reads_batch_id?: string | null;
  /** Photo jobs a claim-level contents-list import created: the ImportBatch they came from. */
  import_batch_id?: string | null;
  /** Why the last preparing run (a PDF import) stopped early; the job went on with what it had found. */
  preparation_error?: string | null;
}

/**
 * A ProcessingJob record: one row, made of slices, each written by the folder named on it (the job's status moves
 * through the engine).
 */
export type Job = JobRecord & JobRunState & JobBilling & JobAiUsage & JobRecording & JobPhotoWork & JobContentsLists;

/**
 * The slices of a job by name. A write names the slices it writes (`updateJob` in job-store.ts) and may set only
 * their fields; tests/unit/project/job-slices.test.ts checks each writer's folder owns the slices it names.
 */
interface JobSlices {
  job: JobRecord;
  run: JobRunState;
  billing: JobBilling;
  ai: JobAiUsage;
  recording: JobRecording;
  photo: JobPhotoWork;
  contents: JobContentsLists;
}
export type JobSlice = keyof JobSlices;

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** Every field of the slices `S`. */
export type SliceFields<S extends JobSlice> = Intersection<JobSlices[S]>;

/** One contents list (PDF) of a photo upload, from its upload slot to the end of its read. */
export interface PdfDocument {
  /** Its number in the upload, from 0. */
  document: number;
  original_filename: string;
  /** Object key of the PDF in the bucket. */
  key: string;
  /** The declared size: the presigned POST accepts at most this many bytes. */
  size_bytes: number;
  /**
   * awaiting_upload: slot issued; queued: confirmed and waiting for the read;
   * read: photos taken out (possibly none, see message); failed: could not be
   * read (message says why); skipped: never arrived.
   */
  state: 'awaiting_upload' | 'queued' | 'read' | 'failed' | 'skipped';
  pages: number | null;
  photos: number;
  /** What the user should know: why it failed, a limit it hit, that nothing was found. */
  message: string | null;
}

interface MediaInfo {
  width: number | null;
  height: number | null;
  fps: number | null;
  has_audio: boolean;
}

/** A refund owed to the team for one charge round (lib/billing/settlement-store.ts). */
export interface OwedRefund {
  round: number;
  /** The spend it undoes: job:<id>:<round>. */
  spend_reference: string;
  /** Its own key at the billing service: the spend's for a whole refund, job:<id>:<round>:adjust for the unbilled part. */
  reference: string;
  /** Credits to give back; null gives back the whole spend. */
  amount: number | null;
}

export interface NewJob {
  room: { id: string; claim_id: string; team_id: string };
  userId: string;
  sourceType: SourceType;
  status: JobStatus;
  mediaKey?: string | null;
  originalFilename?: string | null;
  fileSizeBytes?: number;
  id?: string;
}

export function newJobRecord(input: NewJob, now = new Date()): Job {
  const at = now.toISOString();
  return {
    id: input.id ?? randomUUID(),
    room_id: input.room.id,
    claim_id: input.room.claim_id,
    team_id: input.room.team_id,
    created_by_user_id: input.userId,
    source_type: input.sourceType,
    status: input.status,
    progress_pct: 0,
    current_stage: input.status,
    error_message: null,
    media_key: input.mediaKey ?? null,
    original_filename: input.originalFilename ?? null,
    file_size_bytes: input.fileSizeBytes ?? 0,
    total_frames: 0,
    duration: null,
    transcript: null,
    items_found: 0,
    ai_cost_usd: 0,
    ai_input_tokens: 0,
    ai_output_tokens: 0,
    ai_api_calls: 0,
    billed_cost_usd: 0,
    billed_blocks: 0,
    billed_minutes: 0,
    billing_finalized_at: null,
    photo_request_count: 0,
    billing_charged: false,
    billing_txn_id: null,
    billing_amount: 0,
    billing_refunded: false,
    billing_rounds: 0,
    recovery_attempts: 0,
    photo_truncated_groups: [],
    photo_bytes_reserved: 0,
    photo_next_index: 0,
    stage_timings: {},
    pipeline: null,
    run_id: null,
    stage_name: null,
    stage_state: null,
    stage_runner: null,
    stage_lease_until: null,
    fanout_total: 0,
    fanout_next: 0,
    fanout_done: 0,
    heartbeat_at: null,
    started_at: null,
    finished_at: null,
    created_at: at,
    updated_at: at,
  };
}
