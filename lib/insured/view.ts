/** Insured links as the adjuster and the homeowner see them (spec: Insured link). */
import { typedRowFields } from './draft-rules';
import { linkState, submitProcessing } from './rules';
import type { DraftFile, DraftItem } from './draft-record-rules';
import type { InsuredLink } from './link-record-rules';

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
    submit_processing: submitProcessing(link),
    progress: {
      files: link.files_count ?? 0,
      items: link.items_count ?? 0,
      bytes_used: link.bytes_reserved ?? 0,
      submits: link.submitted_round ?? 0,
    },
  };
}

/** Where the homeowner's browser reads a file: its content and (photos only) its thumbnail, under the token. */
const fileUrls = (token: string, file: DraftFile) => {
  const base = `/api/public/insured/${token}/files/${file.id}`;
  return { content_url: `${base}/content`, thumb_url: file.kind === 'photo' ? `${base}/thumb` : null };
};

/** A draft file as the homeowner sees it. */
export function draftFileView(token: string, file: DraftFile) {
  return {
    id: file.id,
    kind: file.kind,
    room_id: file.room_id,
    item_id: file.item_id,
    filename: file.filename,
    size_bytes: file.size_bytes,
    note: file.note,
    status: file.status,
    submitted: file.round !== null,
    created_at: file.created_at,
    ...(file.status === 'ready' ? fileUrls(token, file) : { content_url: null, thumb_url: null }),
  };
}

/** A typed row as the homeowner sees it, with its photos. */
export function draftItemView(token: string, item: DraftItem, photos: DraftFile[]) {
  return {
    id: item.id,
    room_id: item.room_id,
    ...typedRowFields(item),
    submitted: item.round !== null,
    created_at: item.created_at,
    photos: photos.map((p) => draftFileView(token, p)),
  };
}
