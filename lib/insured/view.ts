/** Insured links as the adjuster and the homeowner see them (spec: Insured link). */
import { linkState } from './rules';
import type { InsuredLink } from './store';

/** The adjuster's view: state, open and mail tracking. Never the token or its hash. */
export function insuredLinkView(link: InsuredLink, now = new Date()) {
  return {
    id: link.id,
    claim_id: link.claim_id,
    insured_email: link.insured_email,
    insured_name: link.insured_name,
    state: linkState(link, now),
    created_at: link.created_at,
    expires_at: link.expires_at,
    revoked_at: link.revoked_at,
    opened_at: link.opened_at,
    last_opened_at: link.last_opened_at,
    open_count: link.open_count,
    mail: {
      sent_at: link.mail_sent_at,
      delivered_at: link.delivered_at,
      opened_at: link.mail_opened_at,
      clicked_at: link.mail_clicked_at,
      failed_at: link.mail_failed_at,
    },
    submitted_at: link.submitted_at,
  };
}
