/**
 * Examples of the homeowner wizard's requests and answers for the API
 * reference (lib/http/openapi.ts shows them beside the schemas): a draft
 * with a room, a photo with its note (the two calls of a photo upload), a
 * typed row, a video on the chunked path and the submit.
 */
import type * as z from 'zod';
import { bodyExample, responseExample } from '../http/route';
import { partUrlsBody, partUrlsResponse, uploadInitResponse } from '../uploads/schemas';
import {
  type draftFileResponse,
  draftItemBody,
  draftItemPatchBody,
  draftItemResponse,
  insuredUploadCompleteResponse,
  insuredUploadInitBody,
  photoUploadResponse,
  roomPhotoBody,
  submitResponse,
} from './draft-schemas';
import { identifyBody, insuredRoomBody, insuredRoomResponse, wizardStateResponse } from './schemas';

/** The link's token as it appears in the homeowner's URL. */
const TOKEN = 'hl_5kR2xW9pQ7mN3vB8dF4t';
const ROOM_ID = '1f3b5d7e-9a2c-4e6b-8d0f-2a4c6e8b0d1f';
const FILE_ID = '4c6e8a0b-2d4f-4a6c-9e1b-3d5f7a9c1e3b';
const PUBLIC = `/api/public/insured/${TOKEN}`;

type DraftFile = z.output<typeof draftFileResponse>;
type DraftItem = z.output<typeof draftItemResponse>;

const pendingPhoto: DraftFile = {
  id: FILE_ID,
  kind: 'photo',
  room_id: ROOM_ID,
  item_id: null,
  filename: 'IMG_2231.HEIC',
  size_bytes: 2_874_112,
  note: 'The TV and the sound bar under it',
  status: 'pending',
  submitted: false,
  created_at: '2025-06-03T09:15:02Z',
  content_url: null,
  thumb_url: null,
};

const readyPhoto: DraftFile = {
  ...pendingPhoto,
  status: 'ready',
  content_url: `${PUBLIC}/files/${FILE_ID}/content`,
  thumb_url: `${PUBLIC}/files/${FILE_ID}/thumb`,
};

const typedRow: DraftItem = {
  id: '7e9c1a3f-5b7d-4f9e-a1c3-5e7a9c1e3f5b',
  room_id: ROOM_ID,
  name: 'Espresso machine',
  quantity: 1,
  brand: 'Breville',
  model: 'Barista Express',
  age: 'about 3 years',
  estimated_price: 699,
  notes: 'Bought at the department store; receipt in my email',
  submitted: false,
  created_at: '2025-06-03T09:21:40Z',
  photos: [],
};

const wizardState = (insuredName: string | null): z.output<typeof wizardStateResponse> => ({
  claim: { claim_number: 'CLM-2025-004817', insured_name: 'Dana Whitfield' },
  insured_email: 'dana.whitfield@example.com',
  insured_name: insuredName,
  expires_at: '2025-06-17T09:00:00Z',
  submitted_at: null,
  submit_processing: false,
  rooms: [
    {
      id: ROOM_ID,
      name: 'Kitchen',
      created_at: '2025-06-03T09:14:10Z',
      files: [readyPhoto],
      items: [typedRow],
    },
  ],
  usage: {
    bytes_used: 2_874_112,
    bytes_limit: 2_147_483_648,
    files: 1,
    files_limit: 500,
    items: 1,
    items_limit: 300,
    photo_max_bytes: 26_214_400,
    media_max_bytes: 1_073_741_824,
  },
});

export const wizardStateExamples = {
  response: {
    draft: responseExample(
      wizardStateResponse,
      'A draft with a kitchen, one photo and one typed row',
      wizardState(null),
    ),
  },
};

export const identifyExamples = {
  body: { name: bodyExample(identifyBody, 'The homeowner gives their name', { name: 'Dana Whitfield' }) },
  response: {
    identified: responseExample(wizardStateResponse, 'The wizard state, with the name', wizardState('Dana Whitfield')),
  },
};

export const addRoomExamples = {
  body: { kitchen: bodyExample(insuredRoomBody, 'A room of the home', { name: 'Kitchen' }) },
  response: {
    created: responseExample(insuredRoomResponse, 'The new room', {
      id: ROOM_ID,
      name: 'Kitchen',
      created_at: '2025-06-03T09:14:10Z',
      created: true,
    }),
  },
};

export const addRoomFileExamples = {
  body: {
    start: bodyExample(roomPhotoBody, 'First call: the photo’s name, type and size, with the homeowner’s note', {
      filename: 'IMG_2231.HEIC',
      content_type: 'image/heic',
      size: 2_874_112,
      note: 'The TV and the sound bar under it',
    }),
    confirm: bodyExample(roomPhotoBody, 'Second call, once the photo was POSTed to the upload URL', {
      file_id: FILE_ID,
    }),
  },
  response: {
    upload: responseExample(photoUploadResponse, 'First call: POST `fields`, then the file as `file`, to `url`', {
      file: pendingPhoto,
      upload: {
        url: 'https://media-bucket.s3.us-east-1.amazonaws.com/',
        fields: {
          key: `teams/team-7/claims/5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e/insured/${FILE_ID}`,
          'Content-Type': 'image/heic',
          Policy: 'eyJleHBpcmF0aW9uIjoi…',
          'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
          'X-Amz-Credential': 'AKIA…/20250603/us-east-1/s3/aws4_request',
          'X-Amz-Date': '20250603T091502Z',
          'X-Amz-Signature': 'b71e…',
        },
      },
      max_bytes: 2_874_112,
      expires_in: 3600,
    }),
    ready: responseExample(photoUploadResponse, 'Second call: the photo is stored', { file: readyPhoto }),
  },
};

export const addItemExamples = {
  body: {
    row: bodyExample(draftItemBody, 'A row the homeowner types', {
      name: 'Espresso machine',
      quantity: 1,
      brand: 'Breville',
      model: 'Barista Express',
      age: 'about 3 years',
      estimated_price: 699,
      notes: 'Bought at the department store; receipt in my email',
    }),
    nameOnly: bodyExample(draftItemBody, 'Only the name is required', { name: 'Bookshelf' }),
  },
  response: { row: responseExample(draftItemResponse, 'The row as stored', typedRow) },
};

export const editItemExamples = {
  body: {
    price: bodyExample(draftItemPatchBody, 'Change the price and clear the brand (null clears a field)', {
      estimated_price: 649.99,
      brand: null,
    }),
  },
  response: {
    row: responseExample(draftItemResponse, 'The row after the change', {
      ...typedRow,
      estimated_price: 649.99,
      brand: null,
    }),
  },
};

export const insuredUploadInitExamples = {
  body: {
    video: bodyExample(insuredUploadInitBody, 'A video of a draft room (180 MiB)', {
      kind: 'video',
      filename: 'kitchen.mov',
      room_id: ROOM_ID,
      total_size: 180 * 1024 * 1024,
    }),
  },
  response: {
    opened: responseExample(uploadInitResponse, 'Opened: 12 parts of 16 MiB', {
      upload_id: '9b1d3f5a-7c9e-4b2d-8f4a-6c8e0a2c4e6a',
      chunk_size: 16 * 1024 * 1024,
      part_count: 12,
      received: [],
    }),
  },
};

const UPLOAD_ID = '9b1d3f5a-7c9e-4b2d-8f4a-6c8e0a2c4e6a';
const VIDEO_ID = '2e4a6c8e-0b2d-4f6a-8c1e-3a5c7e9b1d3f';
const MIB = 1024 * 1024;
const VIDEO_BYTES = 180 * MIB;
const partUrl = (index: number) =>
  `https://media-bucket.s3.us-east-1.amazonaws.com/teams/team-7/claims/5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e/insured/${VIDEO_ID}?partNumber=${index + 1}&uploadId=2~kQ…&X-Amz-Signature=9c4e…`;

export const insuredUploadPartUrlsExamples = {
  body: {
    firstParts: bodyExample(partUrlsBody, 'URLs for the first three parts of the video', { parts: [0, 1, 2] }),
  },
  response: {
    urls: responseExample(partUrlsResponse, 'PUT each part’s bytes to its URL, exactly its size', {
      urls: [0, 1, 2].map((index) => ({
        index,
        url: partUrl(index),
        size: 16 * MIB,
        expires_at: '2025-06-03T10:15:02Z',
      })),
    }),
  },
};

export const insuredUploadCompleteExamples = {
  response: {
    ready: responseExample(insuredUploadCompleteResponse, 'All 12 parts arrived: the video is a file of its room', {
      upload_id: UPLOAD_ID,
      status: 'completed',
      chunk_size: 16 * MIB,
      part_count: 12,
      received: Array.from({ length: 12 }, (_, i) => i),
      file_id: VIDEO_ID,
      file: {
        ...pendingPhoto,
        id: VIDEO_ID,
        kind: 'video',
        filename: 'kitchen.mov',
        size_bytes: VIDEO_BYTES,
        note: null,
        status: 'ready',
        content_url: `${PUBLIC}/files/${VIDEO_ID}/content`,
      },
    }),
  },
};

export const submitExamples = {
  response: {
    submitted: responseExample(submitResponse, 'One room of photos, a video and a typed row handed to the adjuster', {
      submitted_at: '2025-06-03T10:02:11Z',
      round: 1,
      nothing_new: false,
      processing: false,
      photo_jobs: 1,
      photos: 1,
      media_jobs: 1,
      items: 1,
      pending_files: 0,
    }),
    processing: responseExample(submitResponse, 'A large draft, handed over in the background', {
      submitted_at: '2025-06-03T10:02:11Z',
      round: 2,
      nothing_new: false,
      processing: true,
      photo_jobs: 10,
      photos: 1500,
      media_jobs: 0,
      items: 5000,
      pending_files: 0,
    }),
  },
};
