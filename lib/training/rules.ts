/**
 * Training rules (spec: Settings, activity, billing, dashboard, training):
 * quiz grading (the best score kept), checks graded against the training
 * claim's facts, points banked once per mission, badges, and what the
 * overview may show (never an answer). Pure.
 */
import { BADGES, CURRICULUM, type Mission, type TrainingFact } from './curriculum-rules';

export type TrainingFacts = Record<TrainingFact, number>;

/** A sandbox with nothing in it (before start). */
export const NO_FACTS: TrainingFacts = {
  rooms: 0,
  photo_jobs: 0,
  staged_photos: 0,
  grouped_photo_groups: 0,
  processed_jobs: 0,
  items: 0,
  edited_items: 0,
  approved_items: 0,
  archived_items: 0,
  undone_actions: 0,
  exports: 0,
  estimation_sends: 0,
};

/** A user's progress, as stored. */
export interface MissionProgress {
  quiz_best: number | null;
  quiz_total: number;
  completed_at: string | null;
  points: number;
}

export const findMission = (key: string): Mission | undefined => CURRICULUM.find((m) => m.key === key);

/** Grades answers (question id → chosen index): per question right or wrong, with its explanation. */
export function gradeQuiz(mission: Mission, answers: Record<string, number>) {
  const results = mission.quiz.map((q) => ({
    id: q.id,
    answered: answers[q.id] ?? null,
    correct: answers[q.id] === q.answer,
    explanation: q.explanation,
  }));
  return { score: results.filter((r) => r.correct).length, total: results.length, results };
}

/** The best of two scores (a retaken quiz never lowers it). */
export const bestScore = (previous: number | null, score: number) => Math.max(previous ?? 0, score);

/** Each check of the mission against the facts. */
export function gradeChecks(mission: Mission, facts: TrainingFacts) {
  const checks = mission.checks.map((c) => ({
    id: c.id,
    label: c.label,
    passed: facts[c.fact] >= c.atLeast,
    value: facts[c.fact],
    needed: c.atLeast,
  }));
  return { passed: checks.every((c) => c.passed), checks };
}

export const totalPoints = (progress: Record<string, MissionProgress>) =>
  Object.values(progress).reduce((n, p) => n + (p.completed_at ? p.points : 0), 0);

export const allComplete = (progress: Record<string, MissionProgress>) =>
  CURRICULUM.every((m) => progress[m.key]?.completed_at);

/** The badges a user's progress earns. */
export function earnedBadges(progress: Record<string, MissionProgress>) {
  const done = CURRICULUM.filter((m) => progress[m.key]?.completed_at).length;
  const aced = CURRICULUM.every((m) => {
    const p = progress[m.key];
    return p?.quiz_best !== null && p?.quiz_best !== undefined && p.quiz_best >= m.quiz.length;
  });
  const earned = new Set<string>();
  if (done >= 1) earned.add('first-steps');
  if (done * 2 >= CURRICULUM.length) earned.add('halfway');
  if (aced) earned.add('quiz-ace');
  if (done === CURRICULUM.length) earned.add('graduate');
  return BADGES.filter((b) => earned.has(b.key)).map((b) => ({ ...b }));
}

/** A mission as the overview shows it: the quiz without its answers. */
export function missionView(mission: Mission, progress: MissionProgress | undefined) {
  return {
    key: mission.key,
    title: mission.title,
    summary: mission.summary,
    steps: [...mission.steps],
    points: mission.points,
    checks: mission.checks.map((c) => ({ id: c.id, label: c.label })),
    quiz: mission.quiz.map((q) => ({ id: q.id, question: q.question, choices: [...q.choices] })),
    quiz_best: progress?.quiz_best ?? null,
    quiz_total: mission.quiz.length,
    completed: Boolean(progress?.completed_at),
    completed_at: progress?.completed_at ?? null,
  };
}

/** Certificate codes: 12 characters of an unambiguous alphabet (no 0/O, 1/I/L). */
export const CERTIFICATE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CERTIFICATE_CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{12}$/;

/** A code from 12 random bytes (each picks a character). */
export function certificateCode(random: Uint8Array): string {
  return Array.from(random.slice(0, 12), (b) => CERTIFICATE_ALPHABET[b % CERTIFICATE_ALPHABET.length]).join('');
}
