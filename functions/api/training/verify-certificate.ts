import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { verifyCertificate } from '../../../lib/training/service';

export const handler = publicEndpoint(trainingRoutes.verify, ({ params }) => verifyCertificate(params.code));
