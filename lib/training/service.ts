/**
 * The training sandbox (spec: Settings, activity, billing, dashboard,
 * training; Training claims change behavior; Team feature flags: training is
 * hidden unless turned on). Each user gets one sandbox claim (a training
 * claim: never charged, its sends dry runs, never locked) and works through
 * the curriculum (curriculum-rules.ts). Checks are graded from the sandbox
 * claim's real records; points are banked once per mission; a certificate,
 * once every mission is complete, can be verified by anyone with its code.
 */
import { randomBytes } from 'node:crypto';
import { listTeamActivity } from '../activity/store';
import type { Identity } from '../auth/identity-rules';
import { getClaim, putNewClaim } from '../claims/store';
import type { Claim } from '../claims/claim-record-rules';
import { isConditionalCheckFailed } from '../db/client';
import { ConflictError, NotFoundError } from '../errors';
import { countExportRequests } from '../exports/store';
import { teamFeatures } from '../features/store';
import { derivedId } from '../inventory/item-rules';
import { listRoomItems } from '../inventory/numbering/room-item-store';
import { listRoomJobs } from '../jobs/job-store';
import { listStagedPhotos } from '../photos/staged-photo-store';
import { listClaimRooms } from '../rooms/store';
import { BADGES, CURRICULUM, type Mission } from './curriculum-rules';
import {
  allComplete,
  bestScore,
  CERTIFICATE_CODE,
  certificateCode,
  earnedBadges,
  findMission,
  gradeChecks,
  gradeQuiz,
  missionView,
  NO_FACTS,
  totalPoints,
  type TrainingFacts,
} from './rules';
import {
  completeMission,
  ensureProgress,
  getCertificate,
  getProgress,
  issueCertificate,
  listMissionProgress,
  listTeamProgress,
  recordQuizScore,
  type TrainingProgress,
} from './store';

const TRAINING_OFF = 'Training is not turned on for your team.';

/** The team must have training turned on (a feature flag, hidden by default): else 404. */
async function requireTraining(identity: Identity): Promise<void> {
  if (!(await teamFeatures(identity.team.id)).training) throw new NotFoundError(TRAINING_OFF);
}

async function loadMission(identity: Identity, key: string): Promise<Mission> {
  await requireTraining(identity);
  const mission = findMission(key);
  if (!mission) throw new NotFoundError('Mission not found');
  return mission;
}

/** The user's sandbox claim: one per user, its id derived from the user (two starts at once make one). */
async function ensureSandbox(identity: Identity): Promise<{ progress: TrainingProgress; claim: Claim }> {
  const claimId = derivedId('training-claim', identity.user.id);
  let claim = await getClaim(claimId, true);
  if (!claim) {
    try {
      claim = await putNewClaim(
        identity.team.id,
        identity.user.id,
        { claim_number: `TRAINING-${identity.user.id.slice(0, 8).toUpperCase()}`, insured_name: 'Training homeowner' },
        { isTraining: true, id: claimId },
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      claim = (await getClaim(claimId, true)) as Claim;
    }
  }
  const progress = await ensureProgress({
    user_id: identity.user.id,
    team_id: identity.team.id,
    user_name: identity.user.name,
    claim_id: claim.id,
    points: 0,
    certificate_code: null,
    created_at: new Date().toISOString(),
  });
  return { progress, claim };
}

/** The facts the checks read, from the sandbox claim's records. */
async function sandboxFacts(identity: Identity, claim: Claim): Promise<TrainingFacts> {
  const rooms = await listClaimRooms(claim.id, false);
  const jobs = (await Promise.all(rooms.map((r) => listRoomJobs(r.id)))).flat();
  const photoJobs = jobs.filter((j) => j.source_type === 'photo');
  const staged = (await Promise.all(photoJobs.map((j) => listStagedPhotos(j.id)))).map((photos) =>
    photos.filter((p) => !p.deleted && !p.is_segment),
  );
  const groupSizes = staged.flatMap((photos) => {
    const sizes = new Map<number, number>();
    for (const p of photos) sizes.set(p.group_index, (sizes.get(p.group_index) ?? 0) + 1);
    return [...sizes.values()];
  });
  const items = (
    await Promise.all(
      rooms.flatMap((r) => [listRoomItems(r.id, { archived: false }), listRoomItems(r.id, { archived: true })]),
    )
  ).flat();
  const itemIds = new Set(items.map((i) => i.id));
  // The user's own recent actions on the sandbox's items (the feed is newest first).
  const feed = (await listTeamActivity(identity.team.id, { limit: 500 })).items.filter(
    (e) => e.user_id === identity.user.id && e.entity_id !== null && itemIds.has(e.entity_id),
  );
  const exports = await Promise.all([
    countExportRequests(claim.team_id, 'claim', claim.id),
    ...rooms.map((r) => countExportRequests(claim.team_id, 'room', r.id)),
    ...jobs.map((j) => countExportRequests(claim.team_id, 'job', j.id)),
  ]);
  return {
    rooms: rooms.length,
    photo_jobs: photoJobs.length,
    staged_photos: staged.reduce((n, photos) => n + photos.length, 0),
    grouped_photo_groups: groupSizes.filter((n) => n >= 2).length,
    processed_jobs: jobs.filter((j) => j.status === 'complete').length,
    items: items.length,
    edited_items: new Set(feed.filter((e) => e.action_type === 'update_item').map((e) => e.entity_id)).size,
    approved_items: items.filter((i) => i.approved).length,
    archived_items: items.filter((i) => i.is_archived).length,
    undone_actions: feed.filter((e) => e.restored_at).length,
    exports: exports.reduce((n, c) => n + c, 0),
    estimation_sends: claim.estimation_submitted_at || claim.estimation_claim_key ? 1 : 0,
  };
}

/** GET /api/training/overview: missions with progress, points, badges, the sandbox claim, the certificate. */
export async function showTrainingOverview(identity: Identity) {
  await requireTraining(identity);
  const progress = await getProgress(identity.user.id);
  const missions = await listMissionProgress(identity.user.id);
  return {
    training_claim_id: progress?.claim_id ?? null,
    points: totalPoints(missions),
    missions: CURRICULUM.map((m) => missionView(m, missions[m.key])),
    badges: earnedBadges(missions),
    all_badges: BADGES.map((b) => ({ ...b })),
    certificate: {
      eligible: allComplete(missions),
      code: progress?.certificate_code ?? null,
    },
  };
}

/** POST /api/training/start: the user's sandbox claim, made once. */
export async function startTraining(identity: Identity) {
  await requireTraining(identity);
  const { claim } = await ensureSandbox(identity);
  return { training_claim_id: claim.id, claim_number: claim.claim_number };
}

/** POST /api/training/missions/{key}/quiz: graded; the best score is kept. */
export async function submitQuiz(identity: Identity, key: string, answers: Record<string, number>) {
  const mission = await loadMission(identity, key);
  await ensureSandbox(identity);
  const graded = gradeQuiz(mission, answers);
  await recordQuizScore(identity.user.id, mission.key, graded.score, graded.total);
  const progress = (await listMissionProgress(identity.user.id))[mission.key];
  return { ...graded, best: bestScore(progress?.quiz_best ?? null, graded.score) };
}

async function gradeMission(identity: Identity, mission: Mission) {
  // ensureSandbox reads the claim afresh (consistent): its send marks are current.
  const { claim } = await ensureSandbox(identity);
  return gradeChecks(mission, await sandboxFacts(identity, claim));
}

/** GET /api/training/missions/{key}/checks: grading only, nothing written; safe to poll. */
export async function showMissionChecks(identity: Identity, key: string) {
  const mission = await loadMission(identity, key);
  const progress = await getProgress(identity.user.id);
  const claim = progress ? await getClaim(progress.claim_id, true) : null;
  if (!claim) return { passed: false, checks: gradeChecks(mission, NO_FACTS).checks, started: false };
  return { ...gradeChecks(mission, await sandboxFacts(identity, claim)), started: true };
}

/** POST /api/training/missions/{key}/check: when every check passes, the mission is complete and its points banked, once. */
export async function checkMission(identity: Identity, key: string) {
  const mission = await loadMission(identity, key);
  const graded = await gradeMission(identity, mission);
  let banked = false;
  if (graded.passed)
    banked = await completeMission(identity.user.id, mission.key, mission.points, new Date().toISOString());
  const missions = await listMissionProgress(identity.user.id);
  return {
    ...graded,
    completed: Boolean(missions[mission.key]?.completed_at),
    points_banked: banked ? mission.points : 0,
    points: totalPoints(missions),
  };
}

/** GET /api/training/leaderboard: the team's members by points, and the team's total. */
export async function showLeaderboard(identity: Identity) {
  await requireTraining(identity);
  const rows = await listTeamProgress(identity.team.id);
  const members = rows
    .map((r) => ({
      user_id: r.user_id,
      user_name: r.user_name,
      points: r.points ?? 0,
      certified: Boolean(r.certificate_code),
    }))
    .sort((a, b) => b.points - a.points || a.user_name.localeCompare(b.user_name));
  return { team_points: members.reduce((n, m) => n + m.points, 0), members };
}

/** POST /api/training/certificate: issued once every mission is complete (409 before); repeating it answers the same. */
export async function requestCertificate(identity: Identity) {
  await requireTraining(identity);
  const missions = await listMissionProgress(identity.user.id);
  if (!allComplete(missions)) throw new ConflictError('Complete every mission first.');
  const { progress } = await ensureSandbox(identity);
  const code =
    progress.certificate_code ??
    (await issueCertificate({
      code: certificateCode(randomBytes(12)),
      user_id: identity.user.id,
      holder_name: identity.user.name,
      team_name: identity.team.name,
      issued_at: new Date().toISOString(),
      missions: CURRICULUM.map((m) => m.title),
      revoked_at: null,
    }));
  return { code, verify_path: `/api/training/certificates/${code}` };
}

/** GET /api/training/certificates/{code} (public): {valid: false} for unknown or revoked codes; never an email or id. */
export async function verifyCertificate(code: string) {
  const certificate = CERTIFICATE_CODE.test(code) ? await getCertificate(code) : null;
  if (!certificate || certificate.revoked_at) return { valid: false as const };
  return {
    valid: true as const,
    holder_name: certificate.holder_name,
    team_name: certificate.team_name,
    issued_at: certificate.issued_at,
    missions: certificate.missions,
  };
}
