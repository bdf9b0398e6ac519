/** Table keys of training progress and certificates (lib/db/keys.ts describes the table). */

export const trainingKeys = {
  /** A user's training progress (points, sandbox claim, certificate) and one row per mission. */
  trainingProgress: (userId: string) => ({ pk: `TRAINING#${userId}`, sk: 'PROGRESS' }),
  trainingMission: (userId: string, missionKey: string) => ({ pk: `TRAINING#${userId}`, sk: `MISSION#${missionKey}` }),
  trainingCertificate: (code: string) => ({ pk: `CERTIFICATE#${code}`, sk: 'CERTIFICATE' }),
} as const;

export const trainingIndexes = {
  teamTraining: (teamId: string) => ({ index: 'gsi1', pk: `TEAM#${teamId}#TRAINING` }),
} as const;
