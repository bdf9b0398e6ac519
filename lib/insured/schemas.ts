/** Request and answer shapes of the insured link routes (spec: Insured link). */
import * as z from 'zod';
import { draftFileResponse, draftItemResponse, linkToken } from './draft-schemas';

export const inviteBody = z.strictObject({
  email: z
    .string()
    .trim()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be an email address'))
    .describe("The homeowner's address; the link is mailed there."),
});

const linkResponse = z.object({
  id: z.string(),
  claim_id: z.string(),
  insured_email: z.string(),
  insured_name: z.string().nullable(),
  state: z.enum(['live', 'revoked', 'expired']),
  created_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  opened_at: z.string().nullable(),
  last_opened_at: z.string().nullable(),
  open_count: z.number().int(),
  mail: z.object({
    sent_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    opened_at: z.string().nullable(),
    clicked_at: z.string().nullable(),
    failed_at: z.string().nullable(),
  }),
  submitted_at: z.string().nullable(),
  submit_processing: z
    .boolean()
    .describe(
      'True while a submit is still being handed over (a large draft is handed over in the background, within minutes).',
    ),
  progress: z
    .object({
      files: z.number().int().describe('Photos, videos and voice notes the homeowner holds now.'),
      items: z.number().int().describe('Rows the homeowner typed.'),
      bytes_used: z.number().int().describe('Bytes counted against the link, removed files included.'),
      submits: z.number().int().describe('Submits that sent something.'),
    })
    .describe('What the homeowner has added so far.'),
});

export const insuredLinksResponse = z.object({ links: z.array(linkResponse) });

export const invitationResponse = z.object({
  link: linkResponse,
  url: z.string().describe('The homeowner’s URL (its token is shown only here, never stored).'),
  mail_sent: z.boolean(),
  not_configured: z.boolean().describe('True when mail is off (no mail key): share the URL yourself.'),
  resent: z
    .boolean()
    .describe('True when the address already had a live link: that link was sent again with a new token.'),
});

export const linkParams = z.object({ link_id: z.uuid() });
export const tokenParams = z.object({ token: linkToken });

export const wizardStateResponse = z.object({
  claim: z.object({ claim_number: z.string(), insured_name: z.string().nullable() }),
  insured_email: z.string(),
  insured_name: z.string().nullable(),
  expires_at: z.string(),
  submitted_at: z.string().nullable(),
  submit_processing: z
    .boolean()
    .describe(
      'True while a submit is still being handed over (a large draft is handed over in the background, within minutes).',
    ),
  rooms: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      created_at: z.string(),
      files: z
        .array(draftFileResponse)
        .describe('Photos, videos and voice notes of the room (not typed rows’ photos).'),
      items: z.array(draftItemResponse).describe('Rows the homeowner typed, with their photos.'),
    }),
  ),
  usage: z
    .object({
      bytes_used: z.number().int().describe('Bytes counted against the link, removed files included.'),
      bytes_limit: z.number().int().nullable(),
      files: z.number().int(),
      files_limit: z.number().int().nullable(),
      items: z.number().int(),
      items_limit: z.number().int().nullable(),
      photo_max_bytes: z.number().int().nullable(),
      media_max_bytes: z.number().int().nullable(),
    })
    .describe('What the link holds against its ceilings (null: no ceiling).'),
});

const draftName = (what: string) =>
  z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters').describe(what);

export const identifyBody = z.strictObject({ name: draftName("The homeowner's name, as they give it.") });
export const insuredRoomBody = z.strictObject({ name: draftName('The room, e.g. Kitchen.') });
export const insuredRoomResponse = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  created: z
    .boolean()
    .describe('False when the draft already had a room of this name (any case): that room is answered.'),
});

/** The mail service's webhook body (its signature block and the event); other fields are ignored. */
export const mailEventBody = z.looseObject({
  signature: z.looseObject({ timestamp: z.string(), token: z.string(), signature: z.string() }),
  'event-data': z.looseObject({
    event: z.string(),
    message: z.looseObject({ headers: z.looseObject({ 'message-id': z.string() }) }).optional(),
  }),
});
