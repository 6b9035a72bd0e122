// Public surface of the outbox: the events a change records, in its own transaction, for webhook delivery.
export {
  EVENT_DATA,
  EVENT_SUMMARIES,
  type EventData,
  eventSchema,
  SUBSCRIBABLE_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
} from './events.js';
export {
  EVENT_RETENTION_DAYS,
  eventKey,
  eventRecord,
  newEventId,
  OUTBOX_SHARDS,
  outboxItem,
  webhookEvent,
} from './outbox.js';
export { pendingEventIds, type RelayMessage, webhookQueueUrl } from './relay-now.js';
