/**
 * The job lists' FilterExpression (lib/admin/job-filter-rules.ts) says what
 * jobMatches says, on every row of a table of slim rows and every filter of a
 * table of filters: the expression is evaluated here by a small interpreter
 * of the DynamoDB expression forms it uses (=, IN, >, AND), with DynamoDB's
 * rules (a missing attribute, or one of another type, compares false). A form
 * the interpreter does not know fails the test, and so does a placeholder
 * that is declared but not used (DynamoDB refuses the query then). The
 * totals' integration test runs the same expressions against DynamoDB.
 */
import { isExpressible, type JobFilterExpression, jobFilterExpression } from '../../../lib/admin/job-filter-rules';
import { type JobFilter, type JobIndexRow, jobMatches } from '../../../lib/admin/rules';
import { JOB_STATUSES } from '../../../lib/jobs/job-rules';

type Value = string | number | undefined;

/** DynamoDB's verdict on one row: every clause of an AND holds. */
function evaluate(expression: JobFilterExpression, row: Record<string, unknown>): boolean {
  const { FilterExpression, ExpressionAttributeNames: names, ExpressionAttributeValues: values } = expression;
  const used = new Set<string>();
  const attribute = (placeholder: string): Value => {
    if (!(placeholder in names)) throw new Error(`undeclared name ${placeholder}`);
    used.add(placeholder);
    return row[names[placeholder]] as Value;
  };
  const value = (placeholder: string): string | number => {
    if (!(placeholder in values)) throw new Error(`undeclared value ${placeholder}`);
    used.add(placeholder);
    return values[placeholder];
  };
  const sameType = (a: Value, b: Value) => a !== undefined && b !== undefined && typeof a === typeof b;
  const verdicts = FilterExpression.split(' AND ').map((clause) => {
    let m = /^(#\w+) = (:\w+)$/.exec(clause);
    if (m) {
      const [a, b] = [attribute(m[1]), value(m[2])];
      return sameType(a, b) && a === b;
    }
    m = /^(#\w+) > (:\w+)$/.exec(clause);
    if (m) {
      const [a, b] = [attribute(m[1]), value(m[2])];
      return sameType(a, b) && (a as number) > (b as number);
    }
    m = /^(#\w+) IN \((:\w+(?:, :\w+)*)\)$/.exec(clause);
    if (m) {
      const a = attribute(m[1]);
      const list = m[2].split(', ').map(value);
      return list.some((b) => sameType(a, b) && a === b);
    }
    throw new Error(`a form the interpreter does not know: ${clause}`);
  });
  const unused = [...Object.keys(names), ...Object.keys(values)].filter((p) => !used.has(p));
  if (unused.length) throw new Error(`declared but unused: ${unused.join(', ')}`);
  return verdicts.every(Boolean);
}

const names = { teamName: () => 'Acme', userText: () => ['Dana', null] };

const rows: JobIndexRow[] = JOB_STATUSES.flatMap((status, i) =>
  (['video', 'photo', 'audio'] as const).flatMap((source_type, t) =>
    [undefined, 0, 3].map((ai_api_calls, c) => ({
      id: `job-${i}-${t}-${c}`,
      team_id: ['team-a', 'team-b'][(i + c) % 2],
      created_by_user_id: ['user-1', 'user-2', 'user-3'][(i + t) % 3],
      status,
      source_type,
      original_filename: c === 1 ? null : `file-${i}.mp4`,
      error_message: status === 'error' ? 'Every AI request of the run failed' : null,
      ...(ai_api_calls === undefined ? {} : { ai_api_calls }),
    })),
  ),
);

const filters: JobFilter[] = [
  {},
  { team_id: 'team-a' },
  { team_id: 'team-z' },
  { user_id: 'user-2' },
  { type: 'audio' },
  { with_ai_calls: true },
  { status: 'active' },
  ...JOB_STATUSES.map((status) => ({ status })),
  { team_id: 'team-b', user_id: 'user-3', status: 'active' },
  { team_id: 'team-a', type: 'video', with_ai_calls: true },
  { user_id: 'user-1', status: 'error', with_ai_calls: true },
  { type: 'photo', status: 'complete', team_id: 'team-b' },
  // Empty values filter nothing (a query string's `team_id=`).
  { team_id: '', user_id: '', status: '', type: '' },
];

describe('the job lists’ filter expression', () => {
  it('has a row table that exercises every filter both ways', () => {
    for (const filter of filters.filter((f) => Object.values(f).some(Boolean))) {
      const verdicts = new Set(rows.map((row) => jobMatches(row, filter, names)));
      if (filter.team_id !== 'team-z') expect([filter, verdicts.size]).toEqual([filter, 2]);
    }
  });

  it.each(filters.map((filter) => [JSON.stringify(filter), filter] as const))(
    'keeps exactly the rows jobMatches keeps: %s',
    (_, filter) => {
      const expression = jobFilterExpression(filter);
      for (const row of rows) {
        const kept = expression ? evaluate(expression, row as unknown as Record<string, unknown>) : true;
        expect([row.id, kept]).toEqual([row.id, jobMatches(row, filter, names)]);
      }
    },
  );

  it('is null when nothing is filtered', () => {
    expect(jobFilterExpression({})).toBeNull();
    expect(jobFilterExpression({ team_id: '', q: '' })).toBeNull();
  });

  it('leaves the text out: its rows are read, and the expression only narrows them', () => {
    expect(isExpressible({ status: 'error' })).toBe(true);
    expect(isExpressible({ q: '   ' })).toBe(true);
    expect(isExpressible({ q: 'acme' })).toBe(false);
    const filter = { q: 'nomatch', status: 'error', user_id: 'user-1' };
    const expression = jobFilterExpression(filter)!;
    for (const row of rows) {
      const kept = evaluate(expression, row as unknown as Record<string, unknown>);
      // Whatever the text says, a row the expression drops is not a match.
      if (!kept) expect(jobMatches(row, { ...filter, q: 'job' }, names)).toBe(false);
      expect(kept).toBe(jobMatches(row, { ...filter, q: undefined }, names));
    }
  });
});
