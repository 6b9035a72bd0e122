import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailureItem, dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import type { RateLimiter } from '../core/auth.js';
import { settings } from '../core/config.js';
import { AppError } from '../core/errors.js';

interface Window {
  count: number;
  windowStart: number;
}

const tooMany = (limit: number, resetSeconds: number) =>
  new AppError('RATE_LIMITED', 'Rate limit exceeded, retry later', [], {
    'retry-after': String(resetSeconds),
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(resetSeconds),
  });

/**
 * A fixed window per key, anchored at its first request, kept in one DynamoDB item. Every spend is a single
 * conditional UpdateItem, so concurrent Lambdas never admit more than `limit` requests per window:
 * 1. increment if the window is current and below the limit;
 * 2. otherwise, if the window has expired (or never existed), start a new one with count 1;
 * 3. otherwise the budget is spent: 429 with Retry-After.
 */
export const makeRateLimiter =
  (clock: () => number = Date.now): RateLimiter =>
  async (spec, key) => {
    const now = clock();
    const windowMs = spec.windowSeconds * 1000;
    const Key = { pk: `RL#${spec.name}#${key}` };
    const TableName = settings().EPHEMERAL_TABLE;
    const expiresAt = Math.ceil((now + windowMs) / 1000) + 60;
    const result = (w: Window) => ({
      limit: spec.limit,
      remaining: Math.max(0, spec.limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((w.windowStart + windowMs - now) / 1000)),
    });
    try {
      const out = await dynamo().send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'ADD #c :one',
          ConditionExpression: 'windowStart > :cutoff AND #c < :limit',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':cutoff': now - windowMs, ':limit': spec.limit },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return result(out.Attributes as Window);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = conditionFailureItem(error) as Window | undefined;
      if (old && old.windowStart > now - windowMs) {
        throw tooMany(spec.limit, result(old).resetSeconds);
      }
    }
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'SET #c = :one, windowStart = :now, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(windowStart) OR windowStart <= :cutoff',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':cutoff': now - windowMs, ':exp': expiresAt },
        }),
      );
      return result({ count: 1, windowStart: now });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another request opened the new window first: spend from it.
    }
    const out = await dynamo()
      .send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'ADD #c :one',
          ConditionExpression: '#c < :limit',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':limit': spec.limit },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
        const old = (conditionFailureItem(error) as Window | undefined) ?? {
          count: spec.limit,
          windowStart: now,
        };
        throw tooMany(spec.limit, result(old).resetSeconds);
      });
    return result(out.Attributes as Window);
  };
