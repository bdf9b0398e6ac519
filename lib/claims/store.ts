/**
 * Claim records (spec: Resources > Claim; States > Other lifecycles).
 * Claim.team_id is the tenant boundary. Every state change is a conditional
 * write, so a concurrent submit cannot slip between the check and the archive;
 * a write whose condition fails answers null and the use case decides why.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { claimIndexes, claimKeys } from './keys';
import { queryAll } from '../db/query';
import { setClauses } from '../db/update';
import { recordClaimCreated } from '../stats/service';
import type { Claim, ClaimCreate, ClaimPatch } from './claim-record-rules';

function claimRow(claim: Claim) {
  const index = claimIndexes.teamClaims(claim.team_id);
  return {
    ...claimKeys.claim(claim.id),
    entity: 'Claim',
    gsi1pk: index.pk,
    gsi1sk: `${claim.created_at}#${claim.id}`,
    gsi2pk: 'CLAIMS',
    gsi2sk: claim.created_at,
    ...(claim.is_archived && claim.archived_at
      ? { archpk: 'ARCHIVED', archsk: `${claim.archived_at}#claim#${claim.id}` }
      : {}),
    ...claim,
  };
}

const asClaim = (row: Record<string, unknown> | undefined) => withoutKeys(row ?? {}) as unknown as Claim;

/** Writes a new claim with the defaults of a fresh one. */
export async function putNewClaim(
  teamId: string,
  userId: string,
  input: ClaimCreate,
  options: { isTraining?: boolean; id?: string } = {},
): Promise<Claim> {
  const now = new Date().toISOString();
  const claim: Claim = {
    id: options.id ?? randomUUID(),
    team_id: teamId,
    created_by_user_id: userId,
    claim_number: input.claim_number,
    insured_name: input.insured_name ?? null,
    loss_type: input.loss_type ?? null,
    coverage_type: input.coverage_type ?? null,
    claim_type: input.claim_type ?? null,
    zip_code: input.zip_code ?? null,
    adjuster_name: input.adjuster_name ?? null,
    is_archived: false,
    archived_at: null,
    submitted_at: null,
    is_training: options.isTraining ?? false,
    estimation_claim_key: null,
    estimation_claim_id: null,
    estimation_submitted_at: null,
    estimation_items_unlocked: false,
    spend_credits: 0,
    created_at: now,
    updated_at: now,
  };
  await db().send(
    new PutCommand({ TableName: tableName(), Item: claimRow(claim), ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  await recordClaimCreated(claim);
  return claim;
}

export async function getClaim(id: string, consistent = false): Promise<Claim | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: claimKeys.claim(id), ConsistentRead: consistent }),
  );
  return Item ? asClaim(Item) : null;
}

export async function listTeamClaims(teamId: string, archived: boolean): Promise<Claim[]> {
  return queryAll<Claim>(claimIndexes.teamClaims(teamId), {
    FilterExpression: 'is_archived = :archived',
    ExpressionAttributeValues: { ':archived': archived },
    ScanIndexForward: false,
  });
}

/** Every claim (any team) that has been sent to the estimation platform, oldest first: for the one-time migration. */
export async function listClaimsSentToEstimation(): Promise<Claim[]> {
  return queryAll<Claim>(claimIndexes.allClaims(), {
    FilterExpression: 'attribute_exists(estimation_submitted_at) AND estimation_submitted_at <> :none',
    ExpressionAttributeValues: { ':none': null },
    ScanIndexForward: true,
  });
}

/** Writes fields to an existing claim; null when the claim is gone. */
async function writeClaimFields(claimId: string, fields: Partial<Claim>): Promise<Claim | null> {
  const set = setClauses({ ...fields, updated_at: new Date().toISOString() });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: claimKeys.claim(claimId),
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: set.names,
        ExpressionAttributeValues: set.values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asClaim(Attributes);
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Writes the patched fields; null when the claim is gone. */
export function updateClaimFields(claimId: string, patch: ClaimPatch): Promise<Claim | null> {
  return writeClaimFields(claimId, patch as Partial<Claim>);
}

/**
 * Stores the estimation platform link after a send: the remote claim's key and
 * id, and the first send's time (kept once set). Conditional on the claim not
 * being linked to another remote claim. Null when the claim is gone or linked elsewhere.
 */
export async function setEstimationLink(
  claim: Pick<Claim, 'id' | 'estimation_submitted_at'>,
  link: { claim_key: string; claim_id: string },
  now = new Date(),
): Promise<Claim | null> {
  const at = now.toISOString();
  const set = setClauses({
    estimation_claim_key: link.claim_key,
    estimation_claim_id: link.claim_id,
    ...(claim.estimation_submitted_at ? {} : { estimation_submitted_at: at }),
    updated_at: at,
  });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: claimKeys.claim(claim.id),
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(estimation_claim_key) OR estimation_claim_key = :none OR estimation_claim_key = :estimation_claim_key)',
        ExpressionAttributeNames: set.names,
        ExpressionAttributeValues: { ...set.values, ':none': null },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asClaim(Attributes);
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Marks the claim submitted to the claims platform (its first submission's time is kept). */
export function setClaimSubmitted(claimId: string, at: string): Promise<Claim | null> {
  return writeClaimFields(claimId, { submitted_at: at });
}

/** The admin's item unlock (estimation_items_unlocked); null when the claim is gone. */
export function setEstimationItemsUnlocked(claimId: string, unlocked: boolean): Promise<Claim | null> {
  return writeClaimFields(claimId, { estimation_items_unlocked: unlocked });
}

/** Archives the claim unless it is gone or submitted (null: read it again to tell which). */
export async function setClaimArchived(claimId: string, now = new Date()): Promise<Claim | null> {
  const archivedAt = now.toISOString();
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: claimKeys.claim(claimId),
        UpdateExpression:
          'SET is_archived = :true, archived_at = :at, archpk = :archpk, archsk = :archsk, updated_at = :at',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(submitted_at) OR submitted_at = :null)',
        ExpressionAttributeValues: {
          ':true': true,
          ':at': archivedAt,
          ':archpk': 'ARCHIVED',
          ':archsk': `${archivedAt}#claim#${claimId}`,
          ':null': null,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asClaim(Attributes);
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Brings the claim back from the archive; null when it is gone. */
export async function setClaimUnarchived(claimId: string): Promise<Claim | null> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: claimKeys.claim(claimId),
        UpdateExpression: 'SET is_archived = :false, archived_at = :null, updated_at = :now REMOVE archpk, archsk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':false': false, ':null': null, ':now': new Date().toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asClaim(Attributes);
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Removes the claim row itself; what lies beneath is removed by the purge worker. */
export async function deleteClaimRow(claimId: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: claimKeys.claim(claimId) }));
}

/** Adds finalized credits to the claim's spend (atomic counter). */
/** Adds credits to the claim's spend; false when the claim no longer exists. */
export async function addClaimSpend(claimId: string, credits: number): Promise<boolean> {
  if (!credits) return true;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: claimKeys.claim(claimId),
        UpdateExpression: 'ADD spend_credits :c',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':c': credits },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}
