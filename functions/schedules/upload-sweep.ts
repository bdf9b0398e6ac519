import { sweepStaleUploads } from '../../lib/uploads/sweep';

export const handler = async () => sweepStaleUploads();
