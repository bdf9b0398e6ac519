import { BADGES, CURRICULUM } from '../../../lib/training/curriculum-rules';
import {
  allComplete,
  bestScore,
  CERTIFICATE_ALPHABET,
  CERTIFICATE_CODE,
  certificateCode,
  earnedBadges,
  findMission,
  gradeChecks,
  gradeQuiz,
  type MissionProgress,
  missionView,
  NO_FACTS,
  totalPoints,
  type TrainingFacts,
} from '../../../lib/training/rules';

const facts = (over: Partial<TrainingFacts> = {}): TrainingFacts => ({ ...NO_FACTS, ...over });

const done = (points: number, quiz_best: number | null = null): MissionProgress => ({
  quiz_best,
  quiz_total: 0,
  completed_at: '2026-11-25T00:00:00Z',
  points,
});

describe('the curriculum', () => {
  it('has at least six missions walking the workflow, each with a quiz and checks, answers in range', () => {
    expect(CURRICULUM.map((m) => m.key)).toEqual(['rooms', 'photos', 'process', 'review', 'export', 'send']);
    for (const mission of CURRICULUM) {
      expect(mission.quiz.length).toBeGreaterThan(0);
      expect(mission.checks.length).toBeGreaterThan(0);
      for (const q of mission.quiz) expect(q.answer).toBeLessThan(q.choices.length);
    }
    expect(new Set(CURRICULUM.flatMap((m) => m.quiz.map((q) => q.id))).size).toBe(
      CURRICULUM.reduce((n, m) => n + m.quiz.length, 0),
    );
  });
});

describe('training rules', () => {
  const rooms = findMission('rooms')!;

  it('finds missions by key', () => {
    expect(rooms.title).toBe('Set up the claim');
    expect(findMission('nope')).toBeUndefined();
  });

  it('grades a quiz per question and keeps the best score', () => {
    const graded = gradeQuiz(rooms, { 'rooms-1': 1, 'rooms-2': 0 });
    expect(graded).toMatchObject({ score: 1, total: 2 });
    expect(graded.results).toEqual([
      { id: 'rooms-1', answered: 1, correct: true, explanation: expect.any(String) },
      { id: 'rooms-2', answered: 0, correct: false, explanation: expect.any(String) },
    ]);
    expect(gradeQuiz(rooms, {}).results[0]).toMatchObject({ answered: null, correct: false });
    expect(bestScore(null, 1)).toBe(1);
    expect(bestScore(2, 1)).toBe(2);
  });

  it('grades checks against the facts at their thresholds', () => {
    expect(gradeChecks(rooms, facts({ rooms: 1 }))).toEqual({
      passed: false,
      checks: [{ id: 'two-rooms', label: expect.any(String), passed: false, value: 1, needed: 2 }],
    });
    expect(gradeChecks(rooms, facts({ rooms: 2 })).passed).toBe(true);
  });

  it('counts banked points, completion and badges', () => {
    expect(totalPoints({})).toBe(0);
    expect(totalPoints({ rooms: done(50), photos: { ...done(100), completed_at: null } })).toBe(50);
    expect(earnedBadges({})).toEqual([]);
    expect(earnedBadges({ rooms: done(50) }).map((b) => b.key)).toEqual(['first-steps']);
    const half = Object.fromEntries(CURRICULUM.slice(0, 3).map((m) => [m.key, done(m.points)]));
    expect(earnedBadges(half).map((b) => b.key)).toEqual(['first-steps', 'halfway']);
    expect(allComplete(half)).toBe(false);
    const all = Object.fromEntries(CURRICULUM.map((m) => [m.key, done(m.points, m.quiz.length)]));
    expect(allComplete(all)).toBe(true);
    expect(earnedBadges(all).map((b) => b.key)).toEqual(BADGES.map((b) => b.key));
  });

  it('shows a mission without its answers', () => {
    const view = missionView(rooms, undefined);
    expect(JSON.stringify(view)).not.toContain('"answer"');
    expect(view).toMatchObject({ completed: false, quiz_best: null, quiz_total: 2, completed_at: null });
    expect(missionView(rooms, done(50, 2))).toMatchObject({ completed: true, quiz_best: 2 });
  });

  it('makes certificate codes of 12 unambiguous characters', () => {
    const code = certificateCode(new Uint8Array(Array.from({ length: 12 }, (_, i) => i * 37)));
    expect(code).toMatch(CERTIFICATE_CODE);
    expect(code).toHaveLength(12);
    expect(CERTIFICATE_ALPHABET).not.toMatch(/[01ILO]/);
    expect(CERTIFICATE_CODE.test('abcdefghjkmn')).toBe(false);
  });
});
