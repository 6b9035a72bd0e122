// The endpoints of a game: register, change, rotate, test, read the log, redeliver (contracts: ./contracts.ts).
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { UnsafeUrlError } from '../adapters/safe-fetch.js';
import { openSecret, sealSecret } from '../adapters/secrets.js';
import type { AuthContext } from '../core/auth.js';
import { settings } from '../core/config.js';
import type { BodyOf } from '../core/contract.js';
import { AppError, errors } from '../core/errors.js';
import { requireOwnedGame } from '../games/index.js';
import { eventRecord, webhookEvent } from '../outbox/index.js';
import type { createWebhookEndpointContract, updateWebhookEndpointContract } from './contracts.js';
import { ATTEMPT_PREFIX, webhookKeys } from './keys.js';
import {
  type AttemptRecord,
  type EndpointRecord,
  MAX_ENDPOINTS_PER_GAME,
  SECRET_GRACE_HOURS,
} from './model.js';
import type { QueuedDelivery } from './queue.js';
import * as repo from './repository.js';
import { newSigningSecret } from './signing.js';

export interface WebhookDeps {
  /** Refuses (UnsafeUrlError) a URL the delivery's SSRF-safe POST would refuse. */
  checkUrl: (url: string) => Promise<void>;
  /** Production: https only. A local stack (loopback allowed) also takes http. */
  httpsOnly: boolean;
  queue: (deliveries: readonly QueuedDelivery[]) => Promise<void>;
  now?: () => Date;
}

const nowOf = (deps: WebhookDeps) => deps.now?.() ?? new Date();

const refusedUrl = (reason: string) =>
  new AppError('VALIDATION_ERROR', `url refused: ${reason}`, [
    { path: 'url', message: `refused: ${reason}` },
  ]);

const checkEndpointUrl = async (raw: string, deps: WebhookDeps): Promise<void> => {
  if (!URL.canParse(raw)) throw refusedUrl('not a URL');
  const { protocol } = new URL(raw);
  if (protocol !== 'https:' && (deps.httpsOnly || protocol !== 'http:')) throw refusedUrl('must be https');
  try {
    await deps.checkUrl(raw);
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw refusedUrl(error.reason);
    throw error;
  }
};

/** The public shape of an endpoint (never its secrets). */
export const endpointView = (endpoint: EndpointRecord) => ({
  id: endpoint.endpointId,
  gameId: endpoint.gameId,
  url: endpoint.url,
  description: endpoint.description,
  eventTypes: endpoint.eventTypes,
  enabled: endpoint.enabled,
  disabledReason: endpoint.disabledReason,
  consecutiveFailures: endpoint.consecutiveFailures,
  previousSecretExpiresAt: endpoint.previousSecretExpiresAt ?? null,
  createdAt: endpoint.createdAt,
  updatedAt: endpoint.updatedAt,
});

const requireEndpoint = async (gameId: string, endpointId: string) => {
  const endpoint = await repo.getEndpoint(gameId, endpointId);
  if (!endpoint) throw errors.notFound('Webhook endpoint');
  return endpoint;
};

export const createEndpoint = async (
  auth: AuthContext,
  gameId: string,
  body: BodyOf<typeof createWebhookEndpointContract>,
  deps: WebhookDeps,
) => {
  await requireOwnedGame(auth, gameId);
  await checkEndpointUrl(body.url, deps);
  const at = nowOf(deps).toISOString();
  const secret = newSigningSecret();
  const endpoint: EndpointRecord = {
    gameId,
    endpointId: randomUUID(),
    url: body.url,
    description: body.description ?? null,
    eventTypes: [...new Set(body.eventTypes)],
    enabled: true,
    disabledReason: null,
    secret: sealSecret(secret),
    consecutiveFailures: 0,
    createdBy: auth.userId,
    createdAt: at,
    updatedAt: at,
  };
  if (!(await repo.createEndpoint(endpoint)))
    throw new AppError('CONFLICT', `A game has at most ${MAX_ENDPOINTS_PER_GAME} webhook endpoints`);
  return { ...endpointView(endpoint), secret };
};

export const listEndpoints = async (auth: AuthContext, gameId: string) => {
  await requireOwnedGame(auth, gameId);
  const endpoints = await repo.listEndpoints(gameId);
  return endpoints.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(endpointView);
};

/** Read, change and write back, conditional on the version read (409 when it changed meanwhile). */
const change = async (
  gameId: string,
  endpointId: string,
  apply: (endpoint: EndpointRecord) => EndpointRecord | Promise<EndpointRecord>,
): Promise<EndpointRecord> => {
  const endpoint = await requireEndpoint(gameId, endpointId);
  const next = await apply(endpoint);
  if (!(await repo.saveEndpoint(next, endpoint)))
    throw new AppError('CONFLICT', 'The endpoint changed concurrently; retry');
  return next;
};

export const updateEndpoint = async (
  auth: AuthContext,
  gameId: string,
  endpointId: string,
  body: BodyOf<typeof updateWebhookEndpointContract>,
  deps: WebhookDeps,
) => {
  await requireOwnedGame(auth, gameId);
  if (body.url !== undefined) await checkEndpointUrl(body.url, deps);
  const next = await change(gameId, endpointId, (endpoint) => ({
    ...endpoint,
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.eventTypes !== undefined ? { eventTypes: [...new Set(body.eventTypes)] } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.enabled === true ? { enabled: true, disabledReason: null, consecutiveFailures: 0 } : {}),
    ...(body.enabled === false ? { enabled: false, disabledReason: 'manual' as const } : {}),
    updatedAt: nowOf(deps).toISOString(),
  }));
  return endpointView(next);
};

export const deleteEndpoint = async (auth: AuthContext, gameId: string, endpointId: string) => {
  await requireOwnedGame(auth, gameId);
  if (!(await repo.deleteEndpoint(gameId, endpointId))) throw errors.notFound('Webhook endpoint');
  return { id: endpointId, deleted: true as const };
};

/**
 * A new signing secret; the old one keeps signing for SECRET_GRACE_HOURS, or, with `expireOldNow` (a leaked
 * secret), stops at once: the endpoint is written without it, so the next attempt carries the new signature only.
 */
export const rotateSecret = async (
  auth: AuthContext,
  gameId: string,
  endpointId: string,
  options: { expireOldNow?: boolean | undefined },
  deps: Pick<WebhookDeps, 'now'>,
) => {
  await requireOwnedGame(auth, gameId);
  const now = deps.now?.() ?? new Date();
  const secret = newSigningSecret();
  const next = await change(gameId, endpointId, (endpoint) => {
    const { previousSecret: _secret, previousSecretExpiresAt: _expires, ...rest } = endpoint;
    return {
      ...rest,
      secret: sealSecret(secret),
      ...(options.expireOldNow
        ? {}
        : {
            previousSecret: endpoint.secret,
            previousSecretExpiresAt: new Date(now.getTime() + SECRET_GRACE_HOURS * 3_600_000).toISOString(),
          }),
      updatedAt: now.toISOString(),
    };
  });
  return { ...endpointView(next), secret };
};

/** The event and its one delivery, recorded together, then the first attempt queued. */
const deliverDirectly = async (
  endpoint: EndpointRecord,
  event: ReturnType<typeof webhookEvent>,
  deps: Pick<WebhookDeps, 'queue'>,
) => {
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: settings().WEBHOOKS_TABLE, Item: eventRecord(event, false) } },
        {
          Put: {
            TableName: settings().WEBHOOKS_TABLE,
            Item: {
              ...webhookKeys.delivery(endpoint.endpointId, event.id),
              endpointId: endpoint.endpointId,
              gameId: endpoint.gameId,
              eventId: event.id,
              eventType: event.type,
              status: 'pending',
              attempts: 0,
              nextAttemptAt: event.timestamp,
              createdAt: event.timestamp,
              updatedAt: event.timestamp,
            },
          },
        },
      ],
    }),
  );
  await deps.queue([
    {
      message: { gameId: endpoint.gameId, endpointId: endpoint.endpointId, eventId: event.id, attempt: 1 },
      delaySeconds: 0,
    },
  ]);
};

const requireEnabled = (endpoint: EndpointRecord) => {
  if (!endpoint.enabled) throw new AppError('CONFLICT', 'The endpoint is disabled: enable it first');
};

export const sendTest = async (auth: AuthContext, gameId: string, endpointId: string, deps: WebhookDeps) => {
  await requireOwnedGame(auth, gameId);
  const endpoint = await requireEndpoint(gameId, endpointId);
  requireEnabled(endpoint);
  const event = webhookEvent(
    'webhook.test',
    gameId,
    { endpointId, message: 'A test event from Arcadia' },
    nowOf(deps),
  );
  await deliverDirectly(endpoint, event, deps);
  return { eventId: event.id };
};

export const redeliver = async (
  auth: AuthContext,
  params: { gameId: string; endpointId: string; eventId: string },
  deps: WebhookDeps,
) => {
  const { gameId, endpointId, eventId } = params;
  await requireOwnedGame(auth, gameId);
  const [endpoint, event] = await Promise.all([requireEndpoint(gameId, endpointId), repo.getEvent(eventId)]);
  if (!event || event.gameId !== gameId) throw errors.notFound('Event');
  requireEnabled(endpoint);
  const at = nowOf(deps).toISOString();
  const created = await repo.putDelivery(
    repo.pendingDelivery({ endpointId, gameId, eventId, eventType: event.type }, at),
  );
  const attempt = created ? 1 : (await repo.restartDelivery(endpointId, eventId, at)).firstAttempt;
  if (attempt === 0)
    throw new AppError('CONFLICT', 'An attempt of this event is due or running; wait for it');
  await deps.queue([{ message: { gameId, endpointId, eventId, attempt }, delaySeconds: 0 }]);
  return { eventId, attempt };
};

const attemptView = (record: AttemptRecord) => ({
  eventId: record.eventId,
  eventType: record.eventType,
  attempt: record.attempt,
  at: record.at,
  statusCode: record.statusCode,
  ok: record.ok,
  latencyMs: record.latencyMs,
  error: record.error,
  nextRetryAt: record.nextRetryAt,
  responseBody: record.responseBody,
});

const invalidCursor = () =>
  new AppError('VALIDATION_ERROR', 'Invalid cursor', [
    { path: 'cursor', message: 'not a cursor from this API' },
  ]);

export const listAttempts = async (
  auth: AuthContext,
  gameId: string,
  endpointId: string,
  query: { limit: number; cursor?: string | undefined },
) => {
  await requireOwnedGame(auth, gameId);
  await requireEndpoint(gameId, endpointId);
  const after = query.cursor ? Buffer.from(query.cursor, 'base64url').toString('utf8') : undefined;
  if (after !== undefined && !/^ATTEMPT#evt_[0-9a-z]{9}[0-9a-f]{16}#\d{4}$/.test(after))
    throw invalidCursor();
  const page = await repo.listAttempts(endpointId, query.limit, after);
  return {
    data: page.items.map(attemptView),
    meta: {
      limit: query.limit,
      nextCursor: page.last?.startsWith(ATTEMPT_PREFIX) ? Buffer.from(page.last).toString('base64url') : null,
    },
  };
};

/** Opens a sealed secret (tests and scripts that read an endpoint's secret as the worker does). */
export const openEndpointSecret = (sealed: string) => openSecret(sealed).toString('utf8');
