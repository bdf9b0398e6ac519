/**
 * Capture imports (spec: Capture source integration > import; Events >
 * Inbound webhook from the capture source; ImportBatch). An import saves its
 * manifest as an ImportBatch of the claim it lands in (a new claim is
 * numbered after the assignment's reference) and starts the batch's runner:
 * a job of the claim in no room that runs the capture-import pipeline
 * (lib/pipelines/capture). GET /api/integrations/imports/{batch_id} shows its
 * progress; a partial or failed batch can be retried (the failed media only).
 */
import { randomUUID } from 'node:crypto';
import type { Identity } from '../../auth/identity-rules';
import { recordActivity } from '../../activity/service';
import { getClaim, putNewClaim } from '../../claims/store';
import type { Claim } from '../../claims/claim-record-rules';
import { isConditionalCheckFailed } from '../../db/client';
import { ConflictError, UnprocessableError } from '../../errors';
import { batchCounters } from '../rules';
import { importBatchRow, putNewImportBatch, updateImportBatch } from '../store';
import type { ImportBatch } from '../batch-record-rules';
import { importBatchView } from '../view';
import { derivedId } from '../../inventory/item-rules';
import { deleteJobRows, putNewJob } from '../../jobs/job-store';
import { type Job, newJobRecord } from '../../jobs/job-record-rules';
import { startJob } from '../../orchestrator/start';
import { CAPTURE_IMPORT } from '../../orchestrator/pipeline-catalog';
import { loadClaimForTeam } from '../../claims/access-service';
import { loadConnectionForTeam } from './access-service';
import { loadRoomForTeam } from '../../rooms/access-service';
import { type CaptureManifest, claimNumberOf } from './import-rules';
import { assignmentClaimId, putWebhookBatch, recordAssignmentClaim, webhookBatchId } from './import-store';
import { openCaptureSource } from './service';
import type { StorageConnection } from './connection-record-rules';

/** The claim of a new-claim import: numbered after the assignment (its reference, else its title). */
async function ensureClaim(connection: StorageConnection, assignmentId: string, userId: string, claimId: string) {
  const existing = await getClaim(claimId, true);
  if (existing) return existing;
  const tree = await openCaptureSource(connection.api_token).tree(assignmentId);
  if (tree.outcome === 'not_found' || tree.outcome === 'unauthorized') {
    const detail =
      tree.outcome === 'not_found'
        ? 'The capture source has no such assignment.'
        : 'The capture source refused the connection’s token: connect again.';
    throw new UnprocessableError(detail, [{ field: 'body.assignment_id', message: detail }]);
  }
  if (tree.outcome !== 'ok') throw new ConflictError(`The capture source could not be asked: ${tree.detail}`);
  try {
    return await putNewClaim(
      connection.team_id,
      userId,
      { claim_number: claimNumberOf(tree.body.assignment) },
      { id: claimId },
    );
  } catch (err) {
    // Two first submissions of one assignment at once: one claim.
    if (!isConditionalCheckFailed(err)) throw err;
    return (await getClaim(claimId, true)) as Claim;
  }
}

function newBatch(
  connection: StorageConnection,
  claimId: string,
  manifest: CaptureManifest,
  userId: string,
  runnerId: string,
): ImportBatch {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    team_id: connection.team_id,
    claim_id: claimId,
    connection_id: connection.id,
    kind: 'capture_source',
    manifest: manifest as unknown as Record<string, unknown>,
    documents: [],
    ...batchCounters([]),
    status: 'importing',
    jobs: [],
    read_job_id: runnerId,
    read_job_ids: [runnerId],
    runs: 1,
    failed_media_ids: [],
    created_by_user_id: userId,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
}

/** The batch's runner: a job of the claim in no room (listed nowhere), waiting in importing. */
function newRunner(batch: Pick<ImportBatch, 'id' | 'claim_id' | 'team_id'>, userId: string, id: string): Job {
  const job = newJobRecord({
    id,
    room: { id: '', claim_id: batch.claim_id, team_id: batch.team_id },
    userId,
    sourceType: 'photo',
    status: 'importing',
  });
  job.reads_batch_id = batch.id;
  job.photo_count_hint = 0;
  return job;
}

/**
 * POST /api/integrations/connections/{id}/import: the manifest saved as an
 * ImportBatch of its claim (existing_claim and room are checked to be the
 * team's: 404; new_claim makes the claim now), and its runner started.
 */
export async function startCaptureImport(identity: Identity, connectionId: string, manifest: CaptureManifest) {
  const connection = await loadConnectionForTeam(identity, connectionId);
  // 503 before anything is written when this deployment has no capture source.
  openCaptureSource(connection.api_token);
  let claimId: string;
  const target = manifest.target;
  if (target.mode === 'existing_claim') claimId = (await loadClaimForTeam(identity, target.claim_id)).id;
  else if (target.mode === 'room') {
    const room = await loadRoomForTeam(identity, target.room_id);
    if (target.claim_id && target.claim_id !== room.claim_id) {
      const detail = 'The room is not in that claim.';
      throw new UnprocessableError(detail, [{ field: 'body.target.claim_id', message: detail }]);
    }
    claimId = room.claim_id;
  } else {
    claimId = (await ensureClaim(connection, manifest.assignment_id, identity.user.id, randomUUID())).id;
  }
  const runnerId = randomUUID();
  const batch = newBatch(connection, claimId, manifest, identity.user.id, runnerId);
  // The runner first: a batch never names a job that does not exist.
  const runner = await putNewJob(newRunner(batch, identity.user.id, runnerId));
  await putNewImportBatch(batch);
  const started = (await startJob(runner, CAPTURE_IMPORT)) ?? runner;
  const claim = await getClaim(claimId);
  await recordActivity(identity.actor, {
    team_id: batch.team_id,
    action_type: 'import_capture_source',
    action_label: `Imported from the capture source (${connection.external_account_name})`,
    target: claim?.claim_number ?? claimId,
    entity_type: 'claim',
    entity_id: claimId,
    restorable: false,
  });
  return importBatchView(batch, started);
}

/** A capture batch whose runner ended without recording its outcome (it failed early): failed. */
export async function settleCaptureBatch(batch: ImportBatch, runner: Job | null): Promise<ImportBatch> {
  if (batch.status !== 'importing' || !runner || runner.status === 'importing') return batch;
  const settled = await updateImportBatch(
    batch.id,
    { status: 'importing', readJobId: runner.id },
    {
      status: batch.imported > 0 ? 'partial' : 'failed',
      failed: Math.max(0, batch.total - batch.imported - batch.skipped),
      finished_at: runner.updated_at,
    },
  );
  return settled ?? batch;
}

/**
 * POST /api/integrations/imports/{batch_id}/retry for a capture import: a new
 * runner reads only the media that failed; 409 while it runs or when nothing failed.
 */
export async function retryCaptureImport(identity: Identity, batch: ImportBatch) {
  if (batch.status === 'importing') throw new ConflictError('This import is still running.');
  if (!batch.failed_media_ids?.length)
    throw new ConflictError('Nothing failed in this import: there is nothing to retry.');
  const runnerId = randomUUID();
  const runner = await putNewJob(newRunner(batch, identity.user.id, runnerId));
  const moved = await updateImportBatch(
    batch.id,
    { status: batch.status, readJobId: batch.read_job_id },
    {
      status: 'importing',
      read_job_id: runnerId,
      read_job_ids: [...batch.read_job_ids, runnerId],
      runs: batch.runs + 1,
      imported_before: batch.imported,
      failed: 0,
      finished_at: null,
    },
  );
  if (!moved) {
    await deleteJobRows(runner, { expectStatus: 'importing' });
    throw new ConflictError('This import changed meanwhile (another retry started); reload it.');
  }
  const started = (await startJob(runner, CAPTURE_IMPORT)) ?? runner;
  return importBatchView(moved, started);
}

/** What the webhook made of a submission: the batch (new or the first delivery's). */
export interface SubmissionIntake {
  batch_id: string;
  created: boolean;
}

/**
 * Events rules 4-6: a submission becomes an ImportBatch of exactly its
 * media (submitted only), landing in the claim the assignment's imports
 * land in on this connection, else a new claim (one per assignment however
 * many first submissions race). A redelivered event, or a new event for the
 * same submission, answers the first batch.
 */
export async function handleSubmission(
  connection: StorageConnection,
  event: { id: string; delivery_id: string | null; assignmentId: string; submissionId: string; mediaIds: string[] },
): Promise<SubmissionIntake> {
  const ids = { event_id: event.id, submission_id: event.submissionId };
  const earlier = await webhookBatchId(connection.id, ids);
  if (earlier) return { batch_id: earlier, created: false };
  const userId = connection.connected_by_user_id;
  const claimId =
    (await assignmentClaimId(connection.id, event.assignmentId)) ??
    (
      await ensureClaim(
        connection,
        event.assignmentId,
        userId,
        derivedId('capture-claim', connection.id, event.assignmentId),
      )
    ).id;
  const landed = await recordAssignmentClaim(connection.id, event.assignmentId, claimId);
  const manifest: CaptureManifest = {
    assignment_id: event.assignmentId,
    target: { mode: 'existing_claim', claim_id: landed },
    select: [{ scope: 'media', ids: event.mediaIds }],
    filters: { submitted_only: true },
    auto: { event_id: event.id, submission_id: event.submissionId, delivery_id: event.delivery_id },
  };
  const runnerId = randomUUID();
  const batch = newBatch(connection, landed, manifest, userId, runnerId);
  const runner = await putNewJob(newRunner(batch, userId, runnerId));
  if (!(await putWebhookBatch(connection.id, ids, importBatchRow(batch)))) {
    await deleteJobRows(runner, { expectStatus: 'importing' });
    const first = await webhookBatchId(connection.id, ids);
    if (!first) throw new ConflictError('The submission is being imported; deliver it again shortly.');
    return { batch_id: first, created: false };
  }
  await startJob(runner, CAPTURE_IMPORT);
  return { batch_id: batch.id, created: true };
}
