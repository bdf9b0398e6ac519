/**
 * POST /api/integrations/capture-source/webhook (spec: Events > Inbound
 * webhook from the capture source). Public, authenticated by signature:
 * X-Capture-Signature is checked on the raw body before anything is read
 * (no secret configured: 503; a mismatch: 401). The event's organisation
 * names the connection (none: 202, ignored); only submission.created acts,
 * and a redelivery answers the batch the first delivery made.
 */
import * as z from 'zod';
import { settings as currentSettings, type Settings } from '../../config';
import { InvalidRequestError, NotSignedInError, UnavailableError, UnprocessableError } from '../../errors';
import { captureSignatureValid } from './import-rules';
import { handleSubmission } from './import-service';
import { findOrgConnection } from './store';

const envelope = z.looseObject({ id: z.string().min(1), type: z.string(), org_id: z.string().min(1) });
const submission = z.looseObject({
  assignmentId: z.string().min(1),
  submissionId: z.string().min(1),
  mediaIds: z.array(z.string().min(1)).min(1).max(10_000),
});

export interface WebhookDelivery {
  rawBody: Buffer;
  signature: string | undefined;
  deliveryId: string | undefined;
}

export async function handleCaptureEvent(delivery: WebhookDelivery, config: Settings = currentSettings()) {
  const secret = config.CAPTURE_SOURCE_WEBHOOK_SECRET;
  if (!secret) throw new UnavailableError('The capture source webhook is not configured (no signing secret).');
  if (!captureSignatureValid(delivery.rawBody, delivery.signature, secret))
    throw new NotSignedInError('Invalid signature');
  let body: unknown;
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    throw new InvalidRequestError('The event is not JSON.');
  }
  const event = envelope.safeParse(body);
  if (!event.success) throw new UnprocessableError('The event lacks its id, type or org_id.');
  const connection = await findOrgConnection(event.data.org_id);
  if (!connection)
    return { status: 'ignored' as const, reason: 'No team is connected to this organisation.', batch_id: null };
  if (event.data.type !== 'submission.created')
    return {
      status: 'ignored' as const,
      reason: `Events of type ${event.data.type} are not acted on.`,
      batch_id: null,
    };
  const data = submission.safeParse((body as { data?: unknown }).data);
  if (!data.success)
    throw new UnprocessableError('A submission.created event needs data.assignmentId, submissionId and mediaIds.');
  const intake = await handleSubmission(connection, {
    id: event.data.id,
    delivery_id: delivery.deliveryId ?? null,
    ...data.data,
  });
  return {
    status: intake.created ? ('created' as const) : ('duplicate' as const),
    reason: intake.created ? 'Import started.' : 'This event or submission was received before.',
    batch_id: intake.batch_id,
  };
}
