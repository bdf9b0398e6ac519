import * as z from 'zod';

/** The probe queue's message (lib/uploads/service.ts sends it when an upload completes). */
export const probeMessage = z.object({ job_id: z.uuid() });
