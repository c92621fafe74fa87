export { parseWebhookEvent, type WebhookEvent } from './payload';
export {
  createWebhookReceiver,
  type ReceivedDelivery,
  type ReceiverAnswer,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver';
export { SIGNATURE_HEADER, signBody, verifySignature } from './signature';
