/** The shape of an owed send refund record and of a spend whose answer was lost. Reads and writes are in send-refund-store.ts. */

/**
 * A send's spend whose answer was lost (it may or may not be on the ledger):
 * what asking for it again under the same reference takes. The service
 * answers the first spend if it landed, or makes it now.
 */
export interface UnconfirmedSpend {
  team_external_id: number;
  user_external_id: string | null;
  /** Whole credits, as first asked. */
  amount: number;
  description: string;
}

export interface OwedSendRefund {
  /** The charge to give back (all of it, or `amount` of it). */
  reference: string;
  team_id: string;
  owed_at: string;
  /** A part of the charge: its own idempotency key at the billing service, and the credits. */
  part?: { refund_reference: string; amount: number };
  /** The charge was not confirmed: this spend is asked for again before anything is given back. */
  spend?: UnconfirmedSpend;
}
