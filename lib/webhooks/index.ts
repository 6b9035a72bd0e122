// Public surface of the webhooks domain: endpoints, the outbox relay and the delivery worker.
import type { Contract } from '../core/contract.js';
import {
  createWebhookEndpointContract,
  deleteWebhookEndpointContract,
  listWebhookAttemptsContract,
  listWebhookEndpointsContract,
  redeliverWebhookEventContract,
  rotateWebhookSecretContract,
  sendWebhookTestContract,
  updateWebhookEndpointContract,
} from './contracts.js';

export {
  createWebhookEndpointContract,
  deleteWebhookEndpointContract,
  listWebhookAttemptsContract,
  listWebhookEndpointsContract,
  redeliverWebhookEventContract,
  rotateWebhookSecretContract,
  sendWebhookTestContract,
  updateWebhookEndpointContract,
} from './contracts.js';
export { controlChangeWrites } from './control.js';
export {
  type DeliverDeps,
  deliverOnce,
  type PostResult,
  processDeliveryBatch,
  retryDelaySeconds,
} from './deliver.js';
export {
  DISABLE_AFTER_FAILURES,
  MAX_ENDPOINTS_PER_GAME,
  maxAttempts,
  RESPONSE_CAP_BYTES,
  SECRET_GRACE_HOURS,
} from './model.js';
export { queueDeliveries } from './queue.js';
export { RELAY_CLAIM_SECONDS, type RelayDeps, relayEvent, relayPending } from './relay.js';
export {
  createEndpoint,
  deleteEndpoint,
  listAttempts,
  listEndpoints,
  openEndpointSecret,
  redeliver,
  rotateSecret,
  sendTest,
  updateEndpoint,
  type WebhookDeps,
} from './service.js';
export { deliverDeps, webhookDeps } from './wiring.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  createWebhookEndpointContract,
  listWebhookEndpointsContract,
  updateWebhookEndpointContract,
  deleteWebhookEndpointContract,
  rotateWebhookSecretContract,
  sendWebhookTestContract,
  listWebhookAttemptsContract,
  redeliverWebhookEventContract,
];
