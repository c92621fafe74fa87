export {
  createWebhookAdmin,
  isFailedDelivery,
  type NewProjectWebhook,
  type Webhook,
  type WebhookAdmin,
  type WebhookChanges,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
} from './webhook-admin';
