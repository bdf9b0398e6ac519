/**
 * The admin job lists' structured filters as a DynamoDB FilterExpression
 * (spec: Admin), so DynamoDB counts a list's total (Select COUNT) and drops
 * what does not match before rows come back. Pure: no I/O.
 *
 * It must say what jobMatches (./rules.ts) says of every slim row:
 * tests/unit/admin/job-filter-rules.test.ts evaluates the expression over a
 * table of rows and filters and compares the verdicts, and the integration
 * test of the totals runs both against DynamoDB. The free text `q` has no
 * expression: it matches team and creator names, which the slim rows do not
 * hold, so a filter with `q` is counted by reading its rows.
 */
import { RUNNING_STATUSES } from '../jobs/job-rules';
import type { JobFilter } from './rules';

export interface JobFilterExpression {
  FilterExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, string | number>;
}

/** Whether DynamoDB can decide the whole filter by itself: every filter but the free text. */
export const isExpressible = (filter: JobFilter) => !filter.q?.trim();

/**
 * The filter's team, user, type, status (or 'active': the running statuses)
 * and AI-calls conditions, joined by AND; null when it has none. `q` is left
 * out (see isExpressible). Placeholders start with `f_`, clear of the key
 * conditions' (#pk, :pk, :after, :before).
 */
export function jobFilterExpression(filter: JobFilter): JobFilterExpression | null {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, string | number> = {};
  const equals = (key: string, attribute: string, value: string) => {
    names[`#f_${key}`] = attribute;
    values[`:f_${key}`] = value;
    clauses.push(`#f_${key} = :f_${key}`);
  };
  // Empty values filter nothing, as in jobMatches.
  if (filter.team_id) equals('team', 'team_id', filter.team_id);
  if (filter.user_id) equals('user', 'created_by_user_id', filter.user_id);
  if (filter.type) equals('type', 'source_type', filter.type);
  if (filter.status === 'active') {
    names['#f_status'] = 'status';
    const placeholders = RUNNING_STATUSES.map((status, i) => {
      values[`:f_status${i}`] = status;
      return `:f_status${i}`;
    });
    clauses.push(`#f_status IN (${placeholders.join(', ')})`);
  } else if (filter.status) equals('status', 'status', filter.status);
  if (filter.with_ai_calls) {
    names['#f_calls'] = 'ai_api_calls';
    values[':f_zero'] = 0;
    // A missing or non-number attribute is not > 0 for DynamoDB, as Number(undefined) > 0 is false.
    clauses.push('#f_calls > :f_zero');
  }
  if (clauses.length === 0) return null;
  return {
    FilterExpression: clauses.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
