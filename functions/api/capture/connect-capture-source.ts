import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { connectCaptureSource } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.connect, ({ identity, body }) =>
  connectCaptureSource(identity, body),
);
