/**
 * The table's keys, pinned byte for byte: stored rows are found by them, so a builder that changes what it builds
 * loses every row written before. Every builder of every table key module (lib/db/keys.ts and each domain's
 * keys.ts, deploy/public-access.js: isTableKeyModule) has a sample here; a new builder needs one.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { activityIndexes, activityKeys } from '../../../lib/activity/keys';
import { billingIndexes, billingKeys } from '../../../lib/billing/keys';
import { captureKeys } from '../../../lib/imports/capture/keys';
import { claimIndexes, claimKeys } from '../../../lib/claims/keys';
import { keys } from '../../../lib/db/keys';
import { exportKeys } from '../../../lib/exports/keys';
import { featureKeys } from '../../../lib/features/keys';
import { importIndexes, importKeys } from '../../../lib/imports/keys';
import { insuredIndexes, insuredKeys } from '../../../lib/insured/keys';
import { itemIndexes, itemKeys } from '../../../lib/inventory/keys';
import { jobIndexes, jobKeys } from '../../../lib/jobs/keys';
import { photoKeys } from '../../../lib/photos/keys';
import { templateKeys } from '../../../lib/pipelines/pdf/template/template-keys';
import { purgeIndexes } from '../../../lib/purge/keys';
import { roomIndexes, roomKeys } from '../../../lib/rooms/keys';
import { sendIndexes, sendKeys } from '../../../lib/sends/keys';
import { statsKeys } from '../../../lib/stats/keys';
import { teamKeys } from '../../../lib/teams/keys';
import { trainingIndexes, trainingKeys } from '../../../lib/training/keys';
import { uploadIndexes, uploadKeys } from '../../../lib/uploads/keys';
import { userIndexes, userKeys } from '../../../lib/users/keys';

const { isTableKeyModule } = require('../../../deploy/public-access') as {
  isTableKeyModule: (file: string) => boolean;
};

const root = join(__dirname, '..', '..', '..');

/** [builder, its arguments, what it builds] */
const PINS: Array<[string, (...args: never[]) => unknown, unknown[], Record<string, unknown>]> = [
  ['teamKeys.team', teamKeys.team, ['id-1'], { pk: 'TEAM#id-1', sk: 'TEAM' }],
  ['teamKeys.teamToken', teamKeys.teamToken, ['tokenHash-1'], { pk: 'TEAMTOKEN#tokenHash-1', sk: 'UNIQUE' }],
  ['teamKeys.teamExternal', teamKeys.teamExternal, [7], { pk: 'TEAMEXT#7', sk: 'UNIQUE' }],
  ['userKeys.user', userKeys.user, ['id-1'], { pk: 'USER#id-1', sk: 'USER' }],
  ['userKeys.userExternal', userKeys.userExternal, ['externalId-1'], { pk: 'USEREXT#externalId-1', sk: 'UNIQUE' }],
  ['userKeys.userEmail', userKeys.userEmail, ['email-1'], { pk: 'USEREMAIL#email-1', sk: 'UNIQUE' }],
  ['claimKeys.claim', claimKeys.claim, ['id-1'], { pk: 'CLAIM#id-1', sk: 'CLAIM' }],
  ['roomKeys.room', roomKeys.room, ['id-1'], { pk: 'ROOM#id-1', sk: 'ROOM' }],
  ['jobKeys.job', jobKeys.job, ['id-1'], { pk: 'JOB#id-1', sk: 'JOB' }],
  ['jobKeys.jobTotalsShard', jobKeys.jobTotalsShard, [7], { pk: 'JOBTOTALS#7', sk: 'JOBTOTALS' }],
  ['itemKeys.item', itemKeys.item, ['id-1'], { pk: 'ITEM#id-1', sk: 'ITEM' }],
  ['itemKeys.itemPhoto', itemKeys.itemPhoto, ['itemId-1', 'photoId-1'], { pk: 'ITEM#itemId-1', sk: 'PHOTO#photoId-1' }],
  ['activityKeys.activity', activityKeys.activity, ['id-1'], { pk: 'ACTIVITY#id-1', sk: 'ACTIVITY' }],
  ['photoKeys.stagedPhoto', photoKeys.stagedPhoto, ['jobId-1', 7], { pk: 'JOB#jobId-1', sk: 'PHOTO#000007' }],
  ['uploadKeys.upload', uploadKeys.upload, ['id-1'], { pk: 'UPLOAD#id-1', sk: 'UPLOAD' }],
  ['featureKeys.components', featureKeys.components, ['teamId-1'], { pk: 'COMPONENTS', sk: 'TEAM#teamId-1' }],
  ['jobKeys.aiRequest', jobKeys.aiRequest, ['jobId-1', 'at-1', 'id-1'], { pk: 'AIREQ#jobId-1', sk: 'at-1#id-1' }],
  ['keys.idempotency', keys.idempotency, ['recordKey-1'], { pk: 'IDEMPOTENCY', sk: 'recordKey-1' }],
  ['jobKeys.jobStreamSlot', jobKeys.jobStreamSlot, ['jobId-1', 7], { pk: 'JOBSTREAM#jobId-1', sk: 'SLOT#7' }],
  ['exportKeys.export', exportKeys.export, ['id-1'], { pk: 'EXPORT#id-1', sk: 'EXPORT' }],
  ['importKeys.importBatch', importKeys.importBatch, ['id-1'], { pk: 'IMPORT#id-1', sk: 'IMPORT' }],
  ['sendKeys.estimationSend', sendKeys.estimationSend, ['claimId-1'], { pk: 'ESTSEND#claimId-1', sk: 'SEND' }],
  [
    'sendKeys.estimationSendItem',
    sendKeys.estimationSendItem,
    ['claimId-1', 'batchId-1', 'itemId-1'],
    { pk: 'ESTSEND#claimId-1', sk: 'ITEM#batchId-1#itemId-1' },
  ],
  ['sendKeys.submission', sendKeys.submission, ['id-1'], { pk: 'SUBMISSION#id-1', sk: 'SUBMISSION' }],
  [
    'sendKeys.submissionItem',
    sendKeys.submissionItem,
    ['submissionId-1', 'itemId-1'],
    { pk: 'SUBMISSION#submissionId-1', sk: 'ITEM#itemId-1' },
  ],
  [
    'sendKeys.submissionUnitItem',
    sendKeys.submissionUnitItem,
    ['submissionId-1', 7],
    { pk: 'SUBMISSION#submissionId-1', sk: 'UNITITEM#000007' },
  ],
  ['sendKeys.claimSend', sendKeys.claimSend, ['claimId-1'], { pk: 'CLAIMSEND#claimId-1', sk: 'SEND' }],
  ['insuredKeys.insuredLink', insuredKeys.insuredLink, ['id-1'], { pk: 'INSUREDLINK#id-1', sk: 'LINK' }],
  [
    'insuredKeys.insuredRoom',
    insuredKeys.insuredRoom,
    ['linkId-1', 'roomId-1'],
    { pk: 'INSUREDLINK#linkId-1', sk: 'ROOM#roomId-1' },
  ],
  ['captureKeys.connection', captureKeys.connection, ['id-1'], { pk: 'CONNECTION#id-1', sk: 'CONNECTION' }],
  [
    'captureKeys.teamConnection',
    captureKeys.teamConnection,
    ['teamId-1', 'provider-1'],
    { pk: 'TEAMCONN#teamId-1#provider-1', sk: 'UNIQUE' },
  ],
  [
    'captureKeys.orgConnection',
    captureKeys.orgConnection,
    ['orgId-1', 'teamId-1'],
    { pk: 'CAPTUREORG#orgId-1', sk: 'TEAM#teamId-1' },
  ],
  ['captureKeys.orgOwner', captureKeys.orgOwner, ['orgId-1'], { pk: 'CAPTUREORG#orgId-1', sk: 'OWNER' }],
  [
    'captureKeys.uploadRecord',
    captureKeys.uploadRecord,
    ['connectionId-1', 'mediaId-1'],
    { pk: 'UPLOADREC#connectionId-1', sk: 'MEDIA#mediaId-1' },
  ],
  [
    'captureKeys.captureAssignment',
    captureKeys.captureAssignment,
    ['connectionId-1', 'assignmentId-1'],
    { pk: 'CAPTUREASSIGN#connectionId-1#assignmentId-1', sk: 'CLAIM' },
  ],
  [
    'captureKeys.captureEvent',
    captureKeys.captureEvent,
    ['connectionId-1', 'eventId-1'],
    { pk: 'CAPTUREEVENT#connectionId-1#eventId-1', sk: 'BATCH' },
  ],
  [
    'captureKeys.captureSubmission',
    captureKeys.captureSubmission,
    ['connectionId-1', 'submissionId-1'],
    { pk: 'CAPTURESUB#connectionId-1#submissionId-1', sk: 'BATCH' },
  ],
  [
    'trainingKeys.trainingProgress',
    trainingKeys.trainingProgress,
    ['userId-1'],
    { pk: 'TRAINING#userId-1', sk: 'PROGRESS' },
  ],
  [
    'trainingKeys.trainingMission',
    trainingKeys.trainingMission,
    ['userId-1', 'missionKey-1'],
    { pk: 'TRAINING#userId-1', sk: 'MISSION#missionKey-1' },
  ],
  [
    'trainingKeys.trainingCertificate',
    trainingKeys.trainingCertificate,
    ['code-1'],
    { pk: 'CERTIFICATE#code-1', sk: 'CERTIFICATE' },
  ],
  [
    'insuredKeys.insuredFile',
    insuredKeys.insuredFile,
    ['linkId-1', 'fileId-1'],
    { pk: 'INSUREDLINK#linkId-1', sk: 'FILE#fileId-1' },
  ],
  [
    'insuredKeys.insuredItem',
    insuredKeys.insuredItem,
    ['linkId-1', 'itemId-1'],
    { pk: 'INSUREDLINK#linkId-1', sk: 'ITEM#itemId-1' },
  ],
  ['insuredKeys.insuredRound', insuredKeys.insuredRound, ['id-1'], { pk: 'INSUREDROUND#id-1', sk: 'ROUND' }],
  [
    'insuredKeys.insuredRoomName',
    insuredKeys.insuredRoomName,
    ['linkId-1', 'name-1'],
    { pk: 'INSUREDLINK#linkId-1', sk: 'ROOMNAME#name-1' },
  ],
  [
    'insuredKeys.insuredToken',
    insuredKeys.insuredToken,
    ['tokenHash-1'],
    { pk: 'INSUREDTOKEN#tokenHash-1', sk: 'UNIQUE' },
  ],
  [
    'insuredKeys.insuredMail',
    insuredKeys.insuredMail,
    ['messageId-1'],
    { pk: 'INSUREDMAIL#messageId-1', sk: 'UNIQUE' },
  ],
  ['insuredKeys.mailEventToken', insuredKeys.mailEventToken, ['token-1'], { pk: 'MAILEVENT#token-1', sk: 'SEEN' }],
  ['templateKeys.pdfTemplate', templateKeys.pdfTemplate, [7, 7, 'hash-1'], { pk: 'PDFTEMPLATES#7x7', sk: 'hash-1' }],
  [
    'exportKeys.exportRequest',
    exportKeys.exportRequest,
    ['teamId-1', 'scope-1', 'scopeId-1', 'format-1', true],
    { pk: 'EXPORTREQ#teamId-1#scope-1#scopeId-1', sk: 'format-1#approved' },
  ],
  ['keys.directDelivery', keys.directDelivery, ['messageId-1'], { pk: 'DELIVERY#messageId-1', sk: 'COUNT' }],
  [
    'billingKeys.owedSendRefund',
    billingKeys.owedSendRefund,
    ['reference-1'],
    { pk: 'SENDREFUND#reference-1', sk: 'OWED' },
  ],
  ['keys.rateWindow', keys.rateWindow, ['scope-1', 'key-1', 7], { pk: 'RATE#scope-1#key-1', sk: 'WINDOW#7' }],
  ['statsKeys.usage', statsKeys.usage, ['bucket-1', 'teamId-1'], { pk: 'STATS#bucket-1', sk: 'TEAM#teamId-1' }],
  ['statsKeys.usageRollupDone', statsKeys.usageRollupDone, ['bucket-1'], { pk: 'STATS#bucket-1', sk: 'COMPLETE' }],
  ['statsKeys.failure', statsKeys.failure, ['failedAt-1', 'jobId-1'], { pk: 'FAILURES', sk: 'failedAt-1#jobId-1' }],
  [
    'statsKeys.presence',
    statsKeys.presence,
    ['minute-1', 'userId-1'],
    { pk: 'PRESENCE#minute-1', sk: 'USER#userId-1' },
  ],
  ['claimIndexes.teamClaims', claimIndexes.teamClaims, ['teamId-1'], { index: 'gsi1', pk: 'TEAM#teamId-1#CLAIMS' }],
  ['userIndexes.teamUsers', userIndexes.teamUsers, ['teamId-1'], { index: 'gsi1', pk: 'TEAM#teamId-1#USERS' }],
  ['roomIndexes.claimRooms', roomIndexes.claimRooms, ['claimId-1'], { index: 'gsi1', pk: 'CLAIM#claimId-1#ROOMS' }],
  [
    'importIndexes.claimImports',
    importIndexes.claimImports,
    ['claimId-1'],
    { index: 'gsi1', pk: 'CLAIM#claimId-1#IMPORTS' },
  ],
  [
    'sendIndexes.claimSubmissions',
    sendIndexes.claimSubmissions,
    ['claimId-1'],
    { index: 'gsi1', pk: 'CLAIM#claimId-1#SUBMISSIONS' },
  ],
  [
    'insuredIndexes.claimInsuredLinks',
    insuredIndexes.claimInsuredLinks,
    ['claimId-1'],
    { index: 'gsi1', pk: 'CLAIM#claimId-1#INSUREDLINKS' },
  ],
  ['jobIndexes.roomJobs', jobIndexes.roomJobs, ['roomId-1'], { index: 'gsi1', pk: 'ROOM#roomId-1#JOBS' }],
  ['itemIndexes.jobItems', itemIndexes.jobItems, ['jobId-1'], { index: 'gsi1', pk: 'JOB#jobId-1#ITEMS' }],
  [
    'activityIndexes.teamActivity',
    activityIndexes.teamActivity,
    ['teamId-1'],
    { index: 'gsi1', pk: 'TEAM#teamId-1#ACTIVITY' },
  ],
  [
    'trainingIndexes.teamTraining',
    trainingIndexes.teamTraining,
    ['teamId-1'],
    { index: 'gsi1', pk: 'TEAM#teamId-1#TRAINING' },
  ],
  ['jobIndexes.teamJobs', jobIndexes.teamJobs, ['teamId-1'], { index: 'gsi2', pk: 'TEAM#teamId-1#JOBS' }],
  ['claimIndexes.allClaims', claimIndexes.allClaims, [], { index: 'gsi2', pk: 'CLAIMS' }],
  ['roomIndexes.roomItems', roomIndexes.roomItems, ['roomId-1'], { index: 'gsi2', pk: 'ROOM#roomId-1#ITEMS' }],
  ['purgeIndexes.archived', purgeIndexes.archived, [], { index: 'archived', pk: 'ARCHIVED' }],
  ['uploadIndexes.openUploads', uploadIndexes.openUploads, [], { index: 'gsi2', pk: 'UPLOADS#OPEN' }],
  ['jobIndexes.activeJobs', jobIndexes.activeJobs, [], { index: 'active', pk: 'ACTIVE' }],
  ['sendIndexes.openSubmissions', sendIndexes.openSubmissions, [], { index: 'active', pk: 'SUBMISSIONS#OPEN' }],
  ['sendIndexes.openEstimationSends', sendIndexes.openEstimationSends, [], { index: 'active', pk: 'ESTSENDS#OPEN' }],
  [
    'insuredIndexes.openInsuredRounds',
    insuredIndexes.openInsuredRounds,
    [],
    { index: 'active', pk: 'INSUREDROUNDS#OPEN' },
  ],
  [
    'insuredIndexes.openInsuredSubmits',
    insuredIndexes.openInsuredSubmits,
    [],
    { index: 'active', pk: 'INSUREDSUBMITS#OPEN' },
  ],
  ['billingIndexes.pendingBilling', billingIndexes.pendingBilling, [], { index: 'archived', pk: 'BILLING#PENDING' }],
  ['jobIndexes.jobsOfDay', jobIndexes.jobsOfDay, ['day-1'], { index: 'jobs', pk: 'JOBS#day-1' }],
  ['jobIndexes.legacyAllJobs', jobIndexes.legacyAllJobs, [], { index: 'jobs', pk: 'JOBS' }],
  ['featureKeys.components', featureKeys.components, [null], { pk: 'COMPONENTS', sk: 'GLOBAL' }],
  [
    'exportKeys.exportRequest',
    exportKeys.exportRequest,
    ['t', 'claim', 'c', 'xlsx', false],
    { pk: 'EXPORTREQ#t#claim#c', sk: 'xlsx#all' },
  ],
  ['userKeys.userEmail', userKeys.userEmail, ['  Ann@Example.COM '], { pk: 'USEREMAIL#ann@example.com', sk: 'UNIQUE' }],
  ['photoKeys.stagedPhoto', photoKeys.stagedPhoto, ['j', 1234567], { pk: 'JOB#j', sk: 'PHOTO#1234567' }],
  ['teamKeys.teamExternal', teamKeys.teamExternal, ['ext-9'], { pk: 'TEAMEXT#ext-9', sk: 'UNIQUE' }],
];

describe('table keys', () => {
  it.each(PINS.map(([name, build, args, built]) => [name, build, args, built] as const))(
    '%s builds what it always built',
    (_name, build, args, built) => {
      expect((build as (...a: unknown[]) => unknown)(...args)).toEqual(built);
    },
  );

  it('pins every builder of every table key module', () => {
    const files = readdirSync(join(root, 'lib'), { recursive: true, encoding: 'utf8' })
      .map((file) =>
        relative(root, join(root, 'lib', file))
          .split(sep)
          .join('/'),
      )
      .filter(isTableKeyModule);
    const builders = files.flatMap((file) =>
      Object.entries(require(join(root, file)) as Record<string, Record<string, unknown>>).flatMap(
        ([object, members]) => Object.keys(members).map((name) => `${object}.${name}`),
      ),
    );
    expect(files.length).toBeGreaterThan(10);
    expect([...new Set(PINS.map(([name]) => name))].sort()).toEqual(builders.sort());
  });
});
