// Webhook receivers for tests (http servers on 127.0.0.1 that record what arrives and answer as told) and the
// delivery worker run in-process on the stack's webhook queue (the poller `npm run dev` runs, scripts/stack).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { handler as createEndpointHandler } from '../../functions/webhooks/create-webhook-endpoint.js';
import { handler as deliverWebhooks } from '../../functions/webhooks/deliver-webhooks.js';
import { settings } from '../../lib/core/config.js';
import { createSqsPoller, type SqsPoller } from '../../scripts/stack/sqs-poller.js';
import { invoke } from './http.js';
import { type Developer, hmacHeaders } from './users.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with the n-th request (0-based): answer a status, or never answer. */
export type Behaviour = (n: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  close: () => Promise<void>;
}

export const startReceiver = async (behaviour: Behaviour = () => 200): Promise<Receiver> => {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Receiver = { url: '', received, behaviour, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const n = received.length;
      received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const answer = receiver.behaviour(n);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://localhost:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    for (const response of hanging) response.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
};

/** Wait until `check` holds (polling), or fail after `ms`. */
export const waitFor = async (check: () => boolean, ms = 15_000, what = 'condition'): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * The delivery worker consuming the stack's webhook queue, in-process, until stopped. Stack test files run one at a
 * time and each starts its worker before the events it waits for, so a message sent before the worker started
 * belongs to a file that has finished: it is acknowledged without delivery. Otherwise a file would first work
 * through every earlier file's backlog (hundreds of messages in a full run) before reaching its own.
 */
export const startDeliveryWorker = async (): Promise<SqsPoller> => {
  // A little slack: the queue stand-in stamps messages with the same machine's clock.
  const since = Date.now() - 2_000;
  const client = new SQSClient({ useQueueUrlAsEndpoint: false });
  const queueUrl =
    (await client.send(new GetQueueUrlCommand({ QueueName: settings().WEBHOOK_QUEUE_NAME }))).QueueUrl ?? '';
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const poller = createSqsPoller({
    client,
    queueUrl,
    queueArn: Attributes?.QueueArn ?? '',
    region: process.env.AWS_REGION ?? 'us-east-1',
    batchSize: 10,
    reportBatchItemFailures: true,
    waitTimeSeconds: 1,
    invoke: (event) =>
      deliverWebhooks({
        ...event,
        Records: event.Records.filter((r) => Number(r.attributes.SentTimestamp) >= since),
      }),
  });
  poller.start();
  return poller;
};

/** A delivered payload, as the `standardwebhooks` library verified it. */
export interface VerifiedPayload {
  id: string;
  type: string;
  version: number;
  timestamp: string;
  gameId: string;
  data: Record<string, unknown>;
}

/** A receiver, and an endpoint of the game at it subscribed to `eventTypes` (registered by `dev`): its secret. */
export const subscribeReceiver = async (
  dev: Developer,
  gameId: string,
  eventTypes: string[],
): Promise<{ receiver: Receiver; secret: string; endpointId: string }> => {
  const receiver = await startReceiver();
  const path = `/webhooks/${gameId}/endpoints`;
  const res = await invoke<{ data: { id: string; secret: string } }>(createEndpointHandler, {
    method: 'POST',
    path,
    pathParameters: { gameId },
    headers: hmacHeaders(dev, 'POST', path),
    body: { url: receiver.url, eventTypes },
  });
  if (res.status !== 201) {
    await receiver.close();
    throw new Error(`endpoint not registered: ${res.status} ${res.text}`);
  }
  return { receiver, secret: res.body.data.secret, endpointId: res.body.data.id };
};

/** Every delivery the receiver got, verified by the `standardwebhooks` library (throws on a bad signature). */
export const verifiedPayloads = (receiver: Receiver, secret: string): VerifiedPayload[] =>
  receiver.received.map(
    (d) =>
      new Webhook(secret).verify(d.body, {
        'webhook-id': String(d.headers['webhook-id']),
        'webhook-timestamp': String(d.headers['webhook-timestamp']),
        'webhook-signature': String(d.headers['webhook-signature']),
      }) as VerifiedPayload,
  );
