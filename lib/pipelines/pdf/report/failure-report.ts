/**
 * The failure report of a contents-list read: when a document read poorly
 * (assessment-rules.ts), support gets the reason and the document (attached
 * up to MAX_EMAIL_ATTACHMENT_MB) by mail, so a vendor layout the import
 * handles badly gets looked at. Nothing happens without a mail key or a
 * support address; a mail that cannot be sent is logged and never stops the
 * read (the user keeps whatever was found either way).
 */
import { readObject } from '../../../blob/objects';
import { settings } from '../../../config';
import { MailClient } from '../../../integrations/mail';
import type { Job, PdfDocument } from '../../../jobs/job-record-rules';
import type { JobLog } from '../../../jobs/log-store';
import { attachmentAllowed } from './assessment-rules';

export async function reportPoorRead(
  job: Job,
  document: PdfDocument,
  reason: string,
  details: string[],
  log: JobLog,
): Promise<void> {
  const config = settings();
  const client = MailClient.fromSettings(config);
  if (!client.isConfigured || !config.SUPPORT_EMAIL) return;
  const attach = attachmentAllowed(document.size_bytes, config.MAX_EMAIL_ATTACHMENT_MB);
  const stored = attach ? await readObject(document.key) : null;
  const text = [
    `A contents list was read poorly: ${reason}`,
    '',
    `File: ${document.original_filename} (${document.size_bytes} bytes)`,
    `Job: ${job.id}`,
    `Team: ${job.team_id}`,
    `Claim: ${job.claim_id}`,
    ...details,
    '',
    stored
      ? 'The document is attached.'
      : `The document is not attached: it is larger than ${config.MAX_EMAIL_ATTACHMENT_MB} MB (MAX_EMAIL_ATTACHMENT_MB).`,
  ].join('\n');
  try {
    await client.send({
      to: config.SUPPORT_EMAIL,
      subject: `Contents list import needs a look: ${document.original_filename}`,
      text,
      ...(stored
        ? {
            attachments: [
              { filename: document.original_filename, contentType: 'application/pdf', content: stored.body },
            ],
          }
        : {}),
    });
    await log.info(`Reported the read of ${document.original_filename} to support: ${reason}`);
  } catch (err) {
    await log.warn(`Could not report the read of ${document.original_filename} to support: ${String(err)}`);
  }
}
