import { headerValue, publicEndpoint, rawBody } from '../../../lib/api/public-endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { handleCaptureEvent } from '../../../lib/imports/capture/webhook-service';

export const handler = publicEndpoint(captureRoutes.webhook, ({ event }) =>
  handleCaptureEvent({
    rawBody: rawBody(event),
    signature: headerValue(event, 'x-capture-signature'),
    deliveryId: headerValue(event, 'x-capture-delivery'),
  }),
);
