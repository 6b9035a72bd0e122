// Fault injection on the DynamoDB client of lib (the shared dynamo() instance) against the local stack:
// throttling on a write path is retried by the SDK and then succeeds, persistent throttling becomes a clean
// 500, a cancelled transaction (ConditionalCheckFailed) becomes a 409, and a poison SQS message is reported
// alone in batchItemFailures while the rest of the batch succeeds.
//
// Two injection points, both only for the fault being tested and both undone after each test:
// - the client's request handler (the HTTP layer below the SDK's retry middleware), so that the SDK's own
//   retry strategy (maxAttempts 4 in lib/adapters/dynamodb.ts) sees a real DynamoDB error response. A
//   aws-sdk-client-mock stub replaces `send` itself, above the middleware stack, so it cannot show retries;
// - aws-sdk-client-mock on the shared DocumentClient for the transaction cancellation, with every other
//   command passed through to the local stack.
import { Readable } from 'node:stream';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as toggleHandler } from '../../functions/games/toggle-game-visibility.js';
import { handler as buildSnapshotsHandler } from '../../functions/snapshots/build-snapshots.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { getGame } from '../../lib/games/repository.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

interface RequestHandlerLike {
  handle(request: { headers: Record<string, string> }, options?: unknown): Promise<{ response: unknown }>;
}

const config = dynamo().config as unknown as { requestHandler: RequestHandlerLike };
const realHandler = config.requestHandler;

/** Answers the next `times` requests for `target` (e.g. TransactWriteItems) with a DynamoDB error. */
const injectHttpError = (target: string, errorType: string, times: number) => {
  const counter = { injected: 0, calls: 0 };
  // Everything but `handle` is the real handler's (through the prototype chain).
  config.requestHandler = Object.assign(Object.create(realHandler) as RequestHandlerLike, {
    handle: async (request: { headers: Record<string, string> }, options?: unknown) => {
      const amzTarget = request.headers['x-amz-target'] ?? request.headers['X-Amz-Target'] ?? '';
      if (amzTarget.endsWith(`.${target}`)) {
        counter.calls++;
        if (counter.injected < times) {
          counter.injected++;
          const body = JSON.stringify({
            __type: `com.amazonaws.dynamodb.v20120810#${errorType}`,
            message: 'Rate of requests exceeds the allowed throughput (injected)',
          });
          return {
            response: {
              statusCode: 400,
              reason: 'Bad Request',
              headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected' },
              body: Readable.from([Buffer.from(body)]),
            },
          };
        }
      }
      return realHandler.handle(request, options);
    },
  });
  return counter;
};

const toggle = (dev: Developer, id: string) =>
  invoke<{ data: { hidden: boolean }; error?: { code: string; message: string; details: unknown } }>(
    toggleHandler,
    {
      method: 'POST',
      path: `/games/toggle-visibility/${id}`,
      pathParameters: { id },
      headers: hmacHeaders(dev, 'POST', `/games/toggle-visibility/${id}`),
    },
  );

let dev: Developer;

beforeAll(async () => {
  dev = await createDeveloper();
});

afterEach(() => {
  config.requestHandler = realHandler;
});

describe('DynamoDB throttling on a write path (toggle-visibility)', () => {
  for (const errorType of ['ProvisionedThroughputExceededException', 'ThrottlingException']) {
    it(`${errorType} three times: retried by the SDK, then succeeds`, async () => {
      const game = await registerGame(dev);
      const counter = injectHttpError('TransactWriteItems', errorType, 3);
      const res = await toggle(dev, game.id);
      expect(res.status, res.text).toBe(200);
      expect(counter).toEqual({ injected: 3, calls: 4 });
      expect((await getGame(game.id))?.hidden).toBe(!game.hidden);
    }, 20_000);
  }

  it('persistent throttling: 500 INTERNAL_ERROR without internals, no state change', async () => {
    const game = await registerGame(dev);
    const counter = injectHttpError('TransactWriteItems', 'ThrottlingException', 100);
    const res = await toggle(dev, game.id);
    expect(counter.calls).toBe(4); // maxAttempts
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'Internal server error' });
    expect(res.text).not.toMatch(/Throttl|injected|Rate of requests|\bat \w|\.ts\b|\.js:\d|stack/i);
    config.requestHandler = realHandler;
    expect((await getGame(game.id))?.hidden).toBe(game.hidden);
  }, 20_000);
});

describe('cancelled transaction', () => {
  it('TransactionCanceledException (ConditionalCheckFailed) on a games update answers 409 CONFLICT', async () => {
    const game = await registerGame(dev);
    const client = dynamo();
    const passThrough = client.send.bind(client) as (command: unknown) => Promise<unknown>;
    const mock = mockClient(client);
    try {
      const cancelled = new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
        $metadata: {},
        CancellationReasons: [{ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }],
      });
      // Only the transaction fails; authentication, rate limiting and the game read reach the local stack.
      mock.send.callsFake(
        (command: unknown) =>
          (command instanceof TransactWriteCommand
            ? Promise.reject(cancelled)
            : passThrough(command)) as Promise<never>,
      );
      const res = await toggle(dev, game.id);
      expect(res.status, res.text).toBe(409);
      expect(res.body.error?.code).toBe('CONFLICT');
      expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(1);
    } finally {
      mock.restore();
    }
    expect((await getGame(game.id))?.hidden).toBe(game.hidden);
  });
});

describe('SQS snapshot consumer', () => {
  it('reports a poison message in batchItemFailures while the rest of the batch succeeds', async () => {
    const record = (messageId: string, body: string) =>
      ({ messageId, body, receiptHandle: messageId, attributes: {}, messageAttributes: {} }) as never;
    // Valid messages for mints without a launched coin: the builder finds nothing to snapshot and succeeds.
    const event = {
      Records: [
        record('ok-1', JSON.stringify({ coinMint: '11111111111111111111111111111111' })),
        record('poison', '{"coinMint": '),
        record('ok-2', JSON.stringify({ coinMint: 'So11111111111111111111111111111111111111112' })),
        record('wrong-shape', JSON.stringify({ mint: 42 })),
      ],
    } as SQSEvent;
    const result = await buildSnapshotsHandler(event);
    expect(result.batchItemFailures).toEqual([
      { itemIdentifier: 'poison' },
      { itemIdentifier: 'wrong-shape' },
    ]);
  });
});
