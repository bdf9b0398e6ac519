/** Request and answer shapes of the training routes (spec: training). */
import * as z from 'zod';
import { credentialParam } from '../http/route';

export const missionParams = z.object({ key: z.string().min(1).max(50) });
/** A certificate's code: whoever holds it can read the certificate, so it is masked wherever a path is written. */
export const codeParams = z.object({ code: credentialParam(z.string().max(100)) });

export const quizBody = z.strictObject({
  answers: z
    .record(z.string().max(50), z.number().int('must be the index of a choice').min(0, 'must be 0 or more'))
    .describe('Question id → the index of the chosen answer. Unanswered questions count as wrong.'),
});

const check = z.object({
  id: z.string(),
  label: z.string(),
  passed: z.boolean(),
  value: z.number().int().describe('What the training claim shows now.'),
  needed: z.number().int(),
});

const badge = z.object({ key: z.string(), title: z.string(), description: z.string() });

export const overviewResponse = z.object({
  training_claim_id: z.string().nullable().describe('The sandbox claim, once started.'),
  points: z.number().int(),
  missions: z.array(
    z.object({
      key: z.string(),
      title: z.string(),
      summary: z.string(),
      steps: z.array(z.string()),
      points: z.number().int(),
      checks: z.array(z.object({ id: z.string(), label: z.string() })),
      quiz: z
        .array(z.object({ id: z.string(), question: z.string(), choices: z.array(z.string()) }))
        .describe('The questions and choices; the answers are never sent.'),
      quiz_best: z.number().int().nullable(),
      quiz_total: z.number().int(),
      completed: z.boolean(),
      completed_at: z.string().nullable(),
    }),
  ),
  badges: z.array(badge).describe('Earned.'),
  all_badges: z.array(badge),
  certificate: z.object({ eligible: z.boolean(), code: z.string().nullable() }),
});

export const startResponse = z.object({ training_claim_id: z.string(), claim_number: z.string() });

export const quizResponse = z.object({
  score: z.number().int(),
  total: z.number().int(),
  best: z.number().int().describe('The best score so far (kept).'),
  results: z.array(
    z.object({ id: z.string(), answered: z.number().int().nullable(), correct: z.boolean(), explanation: z.string() }),
  ),
});

export const checksResponse = z.object({
  passed: z.boolean(),
  checks: z.array(check),
  started: z.boolean().describe('False before POST /api/training/start: nothing to grade yet.'),
});

export const checkResponse = z.object({
  passed: z.boolean(),
  checks: z.array(check),
  completed: z.boolean(),
  points_banked: z.number().int().describe('Points banked by this call (0 when the mission was complete already).'),
  points: z.number().int(),
});

export const leaderboardResponse = z.object({
  team_points: z.number().int(),
  members: z.array(
    z.object({ user_id: z.string(), user_name: z.string(), points: z.number().int(), certified: z.boolean() }),
  ),
});

export const certificateResponse = z.object({
  code: z.string(),
  verify_path: z.string().describe('Where anyone can verify it (no sign-in).'),
});

export const verifyResponse = z.union([
  z.object({ valid: z.literal(false) }),
  z.object({
    valid: z.literal(true),
    holder_name: z.string(),
    team_name: z.string(),
    issued_at: z.string(),
    missions: z.array(z.string()),
  }),
]);
