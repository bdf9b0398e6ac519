import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/capture/routes';
import { connectCaptureSource } from '../../../lib/capture/service';

export const handler = httpEndpoint(captureRoutes.connect, ({ identity, body }) =>
  connectCaptureSource(identity, body),
);
