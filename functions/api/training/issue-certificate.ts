import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { requestCertificate } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.certificate, ({ identity }) => requestCertificate(identity));
