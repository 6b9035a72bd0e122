import type { WebhookEventType } from '../outbox/index.js';

/** Attempts, retries included, before a delivery is given up (the retry schedule's length + 1). */
export const maxAttempts = (schedule: readonly number[]) => schedule.length + 1;
/** Endpoints a game may have. */
export const MAX_ENDPOINTS_PER_GAME = 10;
/** Consecutive failed attempts (over all its deliveries) after which an endpoint is disabled. */
export const DISABLE_AFTER_FAILURES = 20;
/** How long the previous signing secret still signs after a rotation. */
export const SECRET_GRACE_HOURS = 24;
/** Bytes of an endpoint's response that are read (and kept, 200 at most, in the log); the rest is dropped. */
export const RESPONSE_CAP_BYTES = 4096;

/** manual: by its studio; failing: after a run of failures; control_changed: its creator lost control of the game. */
export type DisabledReason = 'manual' | 'failing' | 'control_changed';

export interface EndpointRecord {
  gameId: string;
  endpointId: string;
  url: string;
  description: string | null;
  eventTypes: WebhookEventType[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  /** The signing secret, sealed (lib/adapters/secrets.ts). */
  secret: string;
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  consecutiveFailures: number;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  endpointId: string;
  gameId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  claimUntil?: string;
  nextAttemptAt?: string | null;
  lastError?: string | null;
  lastStatusCode?: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface AttemptRecord {
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  at: string;
  /** The endpoint's HTTP status; null when it did not answer (timeout, refused, network). */
  statusCode: number | null;
  ok: boolean;
  latencyMs: number;
  error: string | null;
  /** When the next attempt is due; null when none follows (delivered, or given up). */
  nextRetryAt: string | null;
  responseBody: string | null;
}

/** One queue message: make attempt `attempt` of the delivery of `eventId` to the endpoint, not before `notBefore`. */
export interface DeliveryMessage {
  gameId: string;
  endpointId: string;
  eventId: string;
  attempt: number;
  notBefore?: string;
}
