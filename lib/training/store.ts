/**
 * Training records: a progress row per user (the sandbox claim, banked
 * points, the certificate), listed under the team for the leaderboard; a row
 * per mission (best quiz score, completion); a row per certificate code.
 * Points are banked in the same transaction that completes a mission,
 * conditional on it not being complete, so they are banked once.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { trainingIndexes, trainingKeys } from './keys';
import { queryAll, queryPartition } from '../db/query';
import type { MissionProgress } from './rules';

export interface TrainingProgress {
  user_id: string;
  team_id: string;
  user_name: string;
  claim_id: string;
  points: number;
  certificate_code: string | null;
  created_at: string;
}

export interface Certificate {
  code: string;
  user_id: string;
  holder_name: string;
  team_name: string;
  issued_at: string;
  missions: string[];
  revoked_at: string | null;
}

/** The user's progress row, created with the sandbox claim's id unless it exists; the row that stands. */
export async function ensureProgress(progress: TrainingProgress): Promise<TrainingProgress> {
  const index = trainingIndexes.teamTraining(progress.team_id);
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...trainingKeys.trainingProgress(progress.user_id),
          entity: 'TrainingProgress',
          gsi1pk: index.pk,
          gsi1sk: progress.user_id,
          ...progress,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return progress;
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return (await getProgress(progress.user_id)) as TrainingProgress;
  }
}

export async function getProgress(userId: string): Promise<TrainingProgress | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: trainingKeys.trainingProgress(userId), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as TrainingProgress) : null;
}

/** Every mission row of the user, by mission key. */
export async function listMissionProgress(userId: string): Promise<Record<string, MissionProgress>> {
  const rows = await queryPartition<Record<string, unknown>>(trainingKeys.trainingProgress(userId).pk, 'MISSION#', {
    consistent: true,
  });
  return Object.fromEntries(
    rows.map((r) => [
      String(r.mission_key),
      {
        quiz_best: (r.quiz_best as number | undefined) ?? null,
        quiz_total: Number(r.quiz_total ?? 0),
        completed_at: (r.completed_at as string | undefined) ?? null,
        points: Number(r.points ?? 0),
      },
    ]),
  );
}

/** Keeps a quiz score when it beats the best so far. */
export async function recordQuizScore(userId: string, missionKey: string, score: number, total: number) {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: trainingKeys.trainingMission(userId, missionKey),
        UpdateExpression: 'SET mission_key = :key, quiz_best = :score, quiz_total = :total, entity = :entity',
        ConditionExpression: 'attribute_not_exists(quiz_best) OR quiz_best < :score',
        ExpressionAttributeValues: {
          ':key': missionKey,
          ':score': score,
          ':total': total,
          ':entity': 'TrainingMission',
        },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** Completes a mission and banks its points, once; false when it was complete already. */
export async function completeMission(userId: string, missionKey: string, points: number, at: string) {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: trainingKeys.trainingMission(userId, missionKey),
              UpdateExpression: 'SET mission_key = :key, completed_at = :at, points = :points, entity = :entity',
              ConditionExpression: 'attribute_not_exists(completed_at)',
              ExpressionAttributeValues: {
                ':key': missionKey,
                ':at': at,
                ':points': points,
                ':entity': 'TrainingMission',
              },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: trainingKeys.trainingProgress(userId),
              UpdateExpression: 'ADD points :points',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':points': points },
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/** The team's training rows (the leaderboard). */
export function listTeamProgress(teamId: string): Promise<TrainingProgress[]> {
  return queryAll<TrainingProgress>(trainingIndexes.teamTraining(teamId));
}

/** Issues the user's certificate once: the code row and the progress row's code together; the code that stands. */
export async function issueCertificate(certificate: Certificate): Promise<string> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...trainingKeys.trainingCertificate(certificate.code), entity: 'Certificate', ...certificate },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: trainingKeys.trainingProgress(certificate.user_id),
              UpdateExpression: 'SET certificate_code = :code',
              ConditionExpression:
                'attribute_exists(pk) AND (attribute_not_exists(certificate_code) OR certificate_code = :none)',
              ExpressionAttributeValues: { ':code': certificate.code, ':none': null },
            },
          },
        ],
      }),
    );
    return certificate.code;
  } catch (err) {
    if (!isConditionRace(err)) throw err;
    const progress = await getProgress(certificate.user_id);
    if (!progress?.certificate_code) throw err;
    return progress.certificate_code;
  }
}

export async function getCertificate(code: string): Promise<Certificate | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: trainingKeys.trainingCertificate(code) }),
  );
  return Item ? (withoutKeys(Item) as unknown as Certificate) : null;
}
