// The webhook endpoints of a game (docs/webhooks.md): for the game's controller only, by HMAC or bearer token.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, queryBoolean, withMeta } from '../core/schemas.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../outbox/index.js';
import { DISABLE_AFTER_FAILURES, MAX_ENDPOINTS_PER_GAME, SECRET_GRACE_HOURS } from './model.js';

/** Developer operations: the game's controller, by HMAC (servers) or bearer token (the console). */
const DEVELOPER = ['hmac', 'bearer'] as const;
const AUTH_ERRORS = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE'] as const;
const TAGS = ['Webhooks'];
const EXAMPLE_GAME = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
const EXAMPLE_ENDPOINT = '0b6c2f0e-9d7a-4f43-8a39-5d0c0a1e7b21';

const eventTypes = described(
  z
    .array(z.enum(SUBSCRIBABLE_EVENT_TYPES))
    .check(z.minLength(1), z.maxLength(SUBSCRIBABLE_EVENT_TYPES.length)),
  'Event types the endpoint receives',
);
const url = described(
  z.string().check(z.minLength(1), z.maxLength(2048)),
  'Where events are POSTed: https, on a public address (a local stack also takes http://localhost)',
);
const description = z.string().check(z.maxLength(200));

const endpointSchema = withMeta(
  z.object({
    id: z.string(),
    gameId: z.string(),
    url: z.string(),
    description: z.nullable(z.string()),
    eventTypes: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: described(
      z.nullable(z.enum(['manual', 'failing', 'control_changed'])),
      `Why it is disabled: by its studio, after ${DISABLE_AFTER_FAILURES} failed attempts in a row, or because ` +
        'the user who registered it lost control of the game (another user proved its domain)',
    ),
    consecutiveFailures: z.int(),
    previousSecretExpiresAt: described(
      z.nullable(z.string()),
      'Until when the secret before the last rotation still signs (alongside the new one)',
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  { id: 'WebhookEndpoint' },
);
const withSecret = z.object({
  ...endpointSchema.shape,
  secret: described(z.string(), 'The signing secret (whsec_…): shown in this response only, store it now'),
});

const gameParams = z.object({ gameId: z.uuid() });
const endpointParams = z.object({ gameId: z.uuid(), endpointId: z.uuid() });
const eventParams = z.object({
  gameId: z.uuid(),
  endpointId: z.uuid(),
  eventId: z.string().check(z.regex(/^evt_[0-9a-z]{9}[0-9a-f]{16}$/)),
});

const OWNER_ONLY =
  'Only the game’s controller: its verified owner, or its creator while nobody has proved the domain (403 otherwise; 404 for an unknown game or endpoint).';

export const createWebhookEndpointContract = defineContract({
  operationId: 'createWebhookEndpoint',
  method: 'POST',
  path: '/webhooks/{gameId}/endpoints',
  tags: TAGS,
  summary: 'Register a webhook endpoint',
  description:
    `Events of the game of the types listed are POSTed to \`url\`, signed per Standard Webhooks (docs/webhooks.md). ` +
    `The answer holds the signing secret, once. The URL must be https on a public address (private, loopback and ` +
    `link-local targets are refused, 400), and at most ${MAX_ENDPOINTS_PER_GAME} endpoints per game (409 beyond). ` +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: gameParams,
  body: z.object({ url, eventTypes, description: z.optional(description) }),
  response: dataEnvelope(withSecret),
  successStatus: 201,
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  example: {
    params: { gameId: EXAMPLE_GAME },
    body: { url: 'https://studio.example/arcadia/webhooks', eventTypes: ['settlement.completed'] },
  },
});

export const listWebhookEndpointsContract = defineContract({
  operationId: 'listWebhookEndpoints',
  method: 'GET',
  path: '/webhooks/{gameId}/endpoints',
  tags: TAGS,
  summary: 'List the webhook endpoints of a game',
  description: `Oldest first; secrets are never shown again. ${OWNER_ONLY}`,
  auth: DEVELOPER,
  params: gameParams,
  response: z.object({ data: z.array(endpointSchema) }),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});

export const updateWebhookEndpointContract = defineContract({
  operationId: 'updateWebhookEndpoint',
  method: 'PATCH',
  path: '/webhooks/{gameId}/endpoints/{endpointId}',
  tags: TAGS,
  summary: 'Change, disable or enable a webhook endpoint',
  description:
    '`enabled: false` stops deliveries (attempts due meanwhile are given up, and can be redelivered); `enabled: ' +
    'true` enables it again, also after it was disabled for failing, and resets its run of failures. Events that ' +
    `happen while it is disabled are not queued for it. ${OWNER_ONLY}`,
  auth: DEVELOPER,
  params: endpointParams,
  body: z
    .object({
      url: z.optional(url),
      eventTypes: z.optional(eventTypes),
      description: z.optional(z.nullable(description)),
      enabled: z.optional(z.boolean()),
    })
    .check(z.refine((body) => Object.keys(body).length > 0, 'send at least one field')),
  response: dataEnvelope(endpointSchema),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  example: { params: { gameId: EXAMPLE_GAME, endpointId: EXAMPLE_ENDPOINT }, body: { enabled: false } },
});

export const deleteWebhookEndpointContract = defineContract({
  operationId: 'deleteWebhookEndpoint',
  method: 'DELETE',
  path: '/webhooks/{gameId}/endpoints/{endpointId}',
  tags: TAGS,
  summary: 'Delete a webhook endpoint',
  description: `Attempts still queued for it are given up. ${OWNER_ONLY}`,
  auth: DEVELOPER,
  params: endpointParams,
  response: dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) })),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, endpointId: EXAMPLE_ENDPOINT } },
});

export const rotateWebhookSecretContract = defineContract({
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhooks/{gameId}/endpoints/{endpointId}/rotate-secret',
  tags: TAGS,
  summary: 'Rotate the signing secret of a webhook endpoint',
  description:
    `A new secret, shown once in the answer. For ${SECRET_GRACE_HOURS} hours deliveries carry two signatures, ` +
    'one per secret (`webhook-signature: v1,<new> v1,<old>`), so a receiver still holding the old secret keeps ' +
    'verifying while it switches; a second rotation within that time drops the oldest secret at once. ' +
    'With `?expireOldNow=true` the old secret stops signing at once (a leaked secret): only the new one signs. ' +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: endpointParams,
  query: z.object({
    expireOldNow: described(
      z._default(queryBoolean, false),
      `End the old secret now instead of after ${SECRET_GRACE_HOURS} hours (a leaked secret)`,
    ),
  }),
  response: dataEnvelope(withSecret),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  example: { params: { gameId: EXAMPLE_GAME, endpointId: EXAMPLE_ENDPOINT } },
});

export const sendWebhookTestContract = defineContract({
  operationId: 'sendWebhookTest',
  method: 'POST',
  path: '/webhooks/{gameId}/endpoints/{endpointId}/test',
  tags: TAGS,
  summary: 'Send a test event to a webhook endpoint',
  description:
    'Queues a `webhook.test` event to this endpoint only, delivered and retried like any event (see its attempts ' +
    `in the delivery log). 409 when the endpoint is disabled. ${OWNER_ONLY}`,
  auth: DEVELOPER,
  params: endpointParams,
  response: dataEnvelope(z.object({ eventId: z.string() })),
  successStatus: 202,
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  example: { params: { gameId: EXAMPLE_GAME, endpointId: EXAMPLE_ENDPOINT } },
});

const attemptSchema = withMeta(
  z.object({
    eventId: z.string(),
    eventType: z.string(),
    attempt: described(z.int(), '1 for the first attempt'),
    at: z.string(),
    statusCode: described(z.nullable(z.int()), 'The endpoint’s HTTP status; null when it did not answer'),
    ok: z.boolean(),
    latencyMs: z.int(),
    error: z.nullable(z.string()),
    nextRetryAt: described(z.nullable(z.string()), 'When the next attempt is due; null when none follows'),
    responseBody: described(z.nullable(z.string()), 'The first 200 bytes of the answer'),
  }),
  { id: 'WebhookAttempt' },
);

export const listWebhookAttemptsContract = defineContract({
  operationId: 'listWebhookAttempts',
  method: 'GET',
  path: '/webhooks/{gameId}/endpoints/{endpointId}/attempts',
  tags: TAGS,
  summary: 'The delivery log of a webhook endpoint',
  description:
    'Its delivery attempts, newest event first (an event’s attempts last first), kept 30 days; cursor pagination ' +
    `(\`meta.nextCursor\`). ${OWNER_ONLY}`,
  auth: DEVELOPER,
  params: endpointParams,
  query: z.object({
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
    cursor: described(z.optional(z.string().check(z.maxLength(512))), 'Opaque cursor from the previous page'),
  }),
  response: z.object({
    data: z.array(attemptSchema),
    meta: z.object({ limit: z.int(), nextCursor: z.nullable(z.string()) }),
  }),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, endpointId: EXAMPLE_ENDPOINT }, query: { limit: '20' } },
});

export const redeliverWebhookEventContract = defineContract({
  operationId: 'redeliverWebhookEvent',
  method: 'POST',
  path: '/webhooks/{gameId}/endpoints/{endpointId}/events/{eventId}/redeliver',
  tags: TAGS,
  summary: 'Deliver one event to a webhook endpoint again',
  description:
    'One more attempt of an event of the game (kept 30 days), with the same `webhook-id`; also an event the ' +
    'endpoint never got (it was disabled, or not subscribed then). It is attempt n + 1 of the delivery, retried ' +
    'on what is left of the schedule (none once 8 attempts were made). 409 while an attempt of it is due or ' +
    'running, or the endpoint is disabled. ' +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: eventParams,
  response: dataEnvelope(z.object({ eventId: z.string(), attempt: z.int() })),
  successStatus: 202,
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  example: {
    params: { gameId: EXAMPLE_GAME, endpointId: EXAMPLE_ENDPOINT, eventId: 'evt_0mhxk2v3a9f1c2d3e4f5a6b7c' },
  },
});
