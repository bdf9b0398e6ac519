import * as z from 'zod';
import { defineRoute } from '../http/route';
import { addRoomExamples, identifyExamples, wizardStateExamples } from './examples';
import {
  identifyBody,
  insuredLinksResponse,
  insuredRoomBody,
  insuredRoomResponse,
  invitationResponse,
  inviteBody,
  linkParams,
  mailEventBody,
  tokenParams,
  wizardStateResponse,
} from './schemas';

const claimParams = z.object({ claim_id: z.uuid() });

export const insuredRoutes = {
  list: defineRoute({
    name: 'listInsuredLinks',
    method: 'GET',
    path: '/api/claims/{claim_id}/insured-links',
    auth: 'actor',
    tag: 'insured',
    summary:
      'The claim’s homeowner invitations, newest first: state (live, revoked, expired), opens, mail delivery and submission.',
    handler: 'api/insured/list-insured-links',
    params: claimParams,
    response: insuredLinksResponse,
    errors: [404],
  }),
  invite: defineRoute({
    name: 'inviteInsured',
    method: 'POST',
    path: '/api/claims/{claim_id}/insured-links',
    auth: 'actor',
    tag: 'insured',
    summary:
      'Invites a homeowner by email: a self-service link to this claim is made and mailed. Re-inviting an address whose link is live sends that link again with a new token (the old URL stops working; drafts stay). ' +
      'not_configured is true when mail is off; the URL is in the answer either way (the only place its token is shown).',
    handler: 'api/insured/invite-insured',
    params: claimParams,
    body: inviteBody,
    response: invitationResponse,
    successStatus: 201,
    errors: [404],
  }),
  resend: defineRoute({
    name: 'resendInsuredLink',
    method: 'POST',
    path: '/api/insured-links/{link_id}/resend',
    auth: 'actor',
    tag: 'insured',
    summary:
      'Rotates the link’s token and mails the new URL: the old URL stops working at once; the homeowner’s drafts stay.',
    handler: 'api/insured/resend-insured-link',
    params: linkParams,
    response: invitationResponse,
    errors: [404],
  }),
  revoke: defineRoute({
    name: 'revokeInsuredLink',
    method: 'POST',
    path: '/api/insured-links/{link_id}/revoke',
    auth: 'actor',
    tag: 'insured',
    summary: 'Shuts the link: its next request answers 404. Work already submitted stays. Revoking twice is harmless.',
    handler: 'api/insured/revoke-insured-link',
    params: linkParams,
    response: insuredLinksResponse.shape.links.element,
    errors: [404],
  }),
  wizard: defineRoute({
    name: 'insuredWizardState',
    method: 'GET',
    path: '/api/public/insured/{token}',
    auth: 'none',
    tag: 'insured',
    summary:
      'Public (the token in the path is the credential): the homeowner wizard’s state, including the invited address; records that the link was opened. ' +
      'Unknown, revoked and expired tokens all answer the same 404; this surface never answers 401.',
    handler: 'api/insured/insured-wizard-state',
    params: tokenParams,
    response: wizardStateResponse,
    examples: wizardStateExamples,
    errors: [404, 429],
  }),
  identify: defineRoute({
    name: 'insuredIdentify',
    method: 'POST',
    path: '/api/public/insured/{token}/identify',
    auth: 'none',
    tag: 'insured',
    summary:
      'Public: records the homeowner’s name (shown to the adjuster) and answers the wizard state. Never a gate: nothing else needs it. Same 404 for any bad token.',
    handler: 'api/insured/insured-identify',
    params: tokenParams,
    body: identifyBody,
    response: wizardStateResponse,
    examples: identifyExamples,
    errors: [404, 429],
  }),
  addRoom: defineRoute({
    name: 'insuredAddRoom',
    method: 'POST',
    path: '/api/public/insured/{token}/rooms',
    auth: 'none',
    tag: 'insured',
    summary:
      'Public: adds a room to the homeowner’s draft; a name the draft already has (in any case) answers that room with created: false. Same 404 for any bad token.',
    handler: 'api/insured/insured-add-room',
    params: tokenParams,
    body: insuredRoomBody,
    response: insuredRoomResponse,
    examples: addRoomExamples,
    errors: [404, 429],
  }),
  mailEvents: defineRoute({
    name: 'insuredMailEvents',
    method: 'POST',
    path: '/api/public/insured/mail-events',
    auth: 'none',
    tag: 'insured',
    summary:
      'Delivery, open and click callbacks of the invitation mails from the mail service, signed with MAIL_WEBHOOK_SIGNING_KEY (HMAC-SHA256 of timestamp and token, at most 15 minutes old). ' +
      'A bad or stale signature, or no signing key configured, answers 404 and changes nothing; a signature seen before is accepted without effect.',
    handler: 'api/insured/insured-mail-events',
    body: mailEventBody,
    response: z.object({ recorded: z.boolean(), reason: z.string() }),
    errors: [404],
  }),
};
