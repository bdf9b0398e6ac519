import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { verifyCertificate } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.verify, ({ params }) => verifyCertificate(params.code));
