/** Request and answer shapes of the homeowner's draft routes (spec: Insured link, public). */
import * as z from 'zod';
import { credentialParam } from '../http/route';
import { uploadInitBody, uploadStatusResponse } from '../uploads/schemas';

const optionalText = (max: number, what: string) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .transform((v) => v || null)
    .nullable()
    .optional()
    .describe(what);

const noteField = optionalText(2000, 'The homeowner’s note on the photo: what it shows. Read by the AI.');

const photoRequest = z.strictObject({
  filename: z.string().trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
  content_type: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  size: z
    .number()
    .int('must be a whole number of bytes')
    .positive('must be at least 1 byte')
    .max(Number.MAX_SAFE_INTEGER)
    .describe('The file’s size in bytes: the upload is limited to it.'),
});

const photoConfirm = z.strictObject({
  file_id: z.uuid().describe('The file of the first call, once its bytes were POSTed to the upload URL.'),
});

export const roomPhotoBody = z.union([photoRequest.extend({ note: noteField }), photoConfirm]);
export const itemPhotoBody = z.union([photoRequest, photoConfirm]);

export const draftFileResponse = z.object({
  id: z.string(),
  kind: z.enum(['photo', 'video', 'audio']),
  room_id: z.string().nullable(),
  item_id: z.string().nullable(),
  filename: z.string(),
  size_bytes: z.number().int(),
  note: z.string().nullable(),
  status: z
    .enum(['pending', 'open', 'completing', 'ready', 'aborted', 'expired'])
    .describe('pending: waiting for its bytes; open, completing: a chunked upload on its way; ready: stored.'),
  submitted: z.boolean().describe('Sent to the adjuster: it can no longer be changed.'),
  created_at: z.string(),
  content_url: z.string().nullable().describe('Full-size bytes (302), once ready.'),
  thumb_url: z.string().nullable().describe('A 640 px copy (302), for photos once ready.'),
});

export const photoUploadResponse = z.union([
  z.object({
    file: draftFileResponse,
    upload: z.object({
      url: z.string(),
      fields: z.record(z.string(), z.string()).describe('Send these as the form fields, then the file as `file`.'),
    }),
    max_bytes: z.number().int(),
    expires_in: z.number().int(),
  }),
  z.object({ file: draftFileResponse }),
]);

/** The homeowner link's token in a public path: the credential, masked wherever a path is written. */
export const linkToken = credentialParam(z.string().max(200));

export const fileParams = z.object({ token: linkToken, file_id: z.uuid() });
export const itemParams = z.object({ token: linkToken, item_id: z.uuid() });
export const roomParams = z.object({ token: linkToken, room_id: z.uuid() });
export const uploadParams = z.object({ token: linkToken, id: z.uuid() });

export const fileNoteBody = z.strictObject({ note: noteField.unwrap().unwrap() });

const itemFields = {
  name: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters').describe('What it is.'),
  quantity: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100_000, 'must be at most 100000')
    .optional(),
  brand: optionalText(200, 'Brand or maker.'),
  model: optionalText(200, 'Model.'),
  age: optionalText(100, 'How old it is, in the homeowner’s words (e.g. "about 5 years").'),
  estimated_price: z
    .number()
    .min(0, 'must be 0 or more')
    .max(100_000_000, 'must be at most 100000000')
    .nullable()
    .optional()
    .describe('What it cost or would cost to replace, in the claim’s currency.'),
  notes: optionalText(2000, 'Anything else the adjuster should know.'),
};

export const draftItemBody = z.strictObject(itemFields);
export type DraftItemFields = z.output<typeof draftItemBody>;

export const draftItemPatchBody = z
  .strictObject({ ...itemFields, name: itemFields.name.optional() })
  .refine((b) => Object.keys(b).length > 0, 'send at least one field to change');

export const draftItemResponse = z.object({
  id: z.string(),
  room_id: z.string(),
  name: z.string(),
  quantity: z.number().int(),
  brand: z.string().nullable(),
  model: z.string().nullable(),
  age: z.string().nullable(),
  estimated_price: z.number().nullable(),
  notes: z.string().nullable(),
  submitted: z.boolean(),
  created_at: z.string(),
  photos: z.array(draftFileResponse),
});

export const deletedResponse = z.object({ id: z.string(), deleted: z.literal(true) });

/** The chunked path's init: the adjuster's body, with the room a draft room of the link. */
export const insuredUploadInitBody = uploadInitBody;

export const submitResponse = z.object({
  submitted_at: z.string(),
  round: z.number().int().describe('How many submits have sent something (this one included).'),
  nothing_new: z.boolean().describe('True when there was nothing new to send: earlier submits already took it all.'),
  processing: z
    .boolean()
    .describe(
      'True while the round is still being handed over (a large draft is handed over in the background, within minutes; a submit meanwhile answers the same round). The counts are then what the round takes as the submit counted it.',
    ),
  photo_jobs: z.number().int().describe('Rooms whose photos now wait for the adjuster to group them.'),
  photos: z.number().int(),
  media_jobs: z.number().int().describe('Videos and voice notes now waiting for the adjuster to confirm them.'),
  items: z.number().int().describe('Typed rows that became inventory items.'),
  pending_files: z.number().int().describe('Files whose bytes never arrived: not sent; finish or remove them.'),
});

/** An upload of the wizard's chunked path: its parts, and the file once completed. */
export const insuredUploadStatusResponse = uploadStatusResponse
  .omit({ job_id: true })
  .extend({ file_id: z.string().nullable() });

export const insuredUploadCompleteResponse = insuredUploadStatusResponse.extend({ file: draftFileResponse });
