import { headerValue, httpEndpoint, rawBody } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/capture/routes';
import { handleCaptureEvent } from '../../../lib/capture/webhook-service';

export const handler = httpEndpoint(captureRoutes.webhook, ({ event }) =>
  handleCaptureEvent({
    rawBody: rawBody(event),
    signature: headerValue(event, 'x-capture-signature'),
    deliveryId: headerValue(event, 'x-capture-delivery'),
  }),
);
