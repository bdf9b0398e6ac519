/**
 * The billing service's wire contract and the outcomes its client answers
 * with (spec: Limits > Credit prices and charging, rule 4). The client is
 * billing-service.ts.
 *
 * Contract (the spec fixes the paths; the bodies are ours):
 *
 *   POST /api/v1/credits/spend
 *     request  {app: BILLING_EXTERNAL_APP, team_id: Team.external_id (integer),
 *               user_id: User.external_id (string or null), amount: whole credits (> 0),
 *               reference: string, description: string}
 *     200      {transaction_id: string, balance: number}
 *     402      {error: 'insufficient_credits', balance: number, required: number, buy_url: string}
 *     Idempotent per (app, team_id, reference): repeating a reference returns the
 *     first answer and never charges twice (also after a refund).
 *
 *   POST /api/v1/credits/refund
 *     request  {app, team_id, reference}        (reference of the spend to undo)
 *              optionally refund_reference and amount: give back only `amount`
 *              credits of that spend, idempotent per refund_reference (used to
 *              return the unbilled part of a spend, e.g. job:<id>:<round>:adjust)
 *     200      {transaction_id: string, balance: number, refunded: true}
 *     Idempotent per refund (refund_reference, else reference): a second refund
 *     returns the same answer and restores nothing more. A whole refund gives
 *     back what is left of the spend. 404 when no spend carries the reference.
 *
 *   GET /api/v1/credits/balance?app=<app>&team_id=<team external id>
 *     200      {balance: number, buy_url: string}
 *
 *   Any call: 401 for a wrong or missing key.
 */

import { IntegrationError } from '../observability/outbound-failures';

export const SPEND_PATH = '/api/v1/credits/spend';
export const REFUND_PATH = '/api/v1/credits/refund';
export const BALANCE_PATH = '/api/v1/credits/balance';

export type UnreachableReason = 'not_configured' | 'network' | 'timeout' | 'server_error' | 'unreadable' | 'rejected';

/** The billing service could not be used; `reason` says why. Never a flat refusal. */
export class BillingServiceUnreachable extends IntegrationError {
  constructor(
    readonly reason: UnreachableReason,
    readonly call: string,
    readonly detail: string,
    /** HTTP status when the service answered. */
    status?: number,
    /**
     * The request may have reached the service and been applied, its answer
     * lost (a timeout, a dropped connection, a 5xx, an unreadable 200). False
     * when it surely was not (nothing listening, DNS, TLS, a 4xx, not configured).
     */
    mayHaveApplied = false,
  ) {
    super(
      'billing service',
      `billing service unreachable: ${call} ${reason}${status ? ` (HTTP ${status})` : ''}: ${detail}`,
      status ?? null,
      reason !== 'rejected' && reason !== 'not_configured',
      mayHaveApplied,
    );
    this.name = 'BillingServiceUnreachable';
  }
}

export interface SpendRequest {
  /** Team.external_id. */
  teamId: number;
  /** User.external_id; null when the user has none. */
  userId: string | null;
  /** Whole credits, > 0. */
  amount: number;
  /** Idempotency key, e.g. job:<job_id>:<round>. */
  reference: string;
  description: string;
}

export type SpendResult =
  | { outcome: 'charged'; transactionId: string; balance: number | null }
  | { outcome: 'insufficient'; balance: number | null; required: number; buyUrl: string | null }
  | { outcome: 'unavailable'; error: BillingServiceUnreachable };

export interface RefundRequest {
  teamId: number;
  /** The spend to undo. */
  reference: string;
  /** A partial refund's own idempotency key; with `amount`. */
  refundReference?: string;
  /** Credits to give back; without it, what is left of the spend. */
  amount?: number;
}

export type RefundResult =
  | { outcome: 'refunded'; transactionId: string | null; balance: number | null }
  | { outcome: 'unknown_reference' }
  /**
   * 409: the spend has less left than the part asked for (it was given back already, by a part or by hand at the
   * service). A final answer: asking again can never succeed.
   */
  | { outcome: 'nothing_left'; detail: string }
  | { outcome: 'unavailable'; error: BillingServiceUnreachable };

export type BalanceResult =
  | { outcome: 'ok'; balance: number; buyUrl: string | null }
  | { outcome: 'unavailable'; error: BillingServiceUnreachable };
