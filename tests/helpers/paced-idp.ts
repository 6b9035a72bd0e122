// A local identity provider for the import's pace (tests/integration/user-import-pace.test.ts), as
// private-idp.ts does for its file: imported FIRST, it points the in-process handlers at a provider of the file's
// own, with an app of its own (the pace is the app's, so no other file's imports share it) and a short window
// (20 creations per 10 s, the provider and the pace alike, so the test takes seconds, not minutes), and at an
// import queue of its own with its dead-letter queue (maxReceiveCount as serverless.yml sets it).
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';

/** The provider's limit in this file: creations per window. */
export const PACED_LIMIT = { count: 20, windowMs: 10_000 };
const appId = `arcadia-paced-${randomUUID().slice(0, 8)}`;
export const pacedIdp: LocalIdp = await startLocalIdp({ port: 0, appId, userCreationLimit: PACED_LIMIT });
const url = pacedIdp.url;

const sqs = new SQSClient({});
const name = `user-imports-paced-${randomUUID().slice(0, 8)}`;
const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl ?? '';
const dlqArn =
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] })))
    .Attributes?.QueueArn ?? '';
await sqs.send(
  new CreateQueueCommand({
    QueueName: name,
    Attributes: {
      // As serverless.yml sets it: a worker holds its received messages while it waits for the pace.
      VisibilityTimeout: '720',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }),
    },
  }),
);
sqs.destroy();

/** The file's import queue and its dead-letter queue. */
export const pacedQueues = { name, dlqUrl };

Object.assign(process.env, {
  IDP_URL: url,
  IDP_API_URL: url,
  IDP_WALLET_API_URL: url,
  IDP_IMPORT_API_URL: `${url}/api`,
  IDP_ISSUER: url,
  IDP_JWKS_URL: `${url}/.well-known/jwks.json`,
  IDP_APP_ID: appId,
  IDP_USER_CREATIONS_PER_MINUTE: String(PACED_LIMIT.count),
  IDP_USER_CREATION_WINDOW_SECONDS: String(PACED_LIMIT.windowMs / 1000),
  USER_IMPORT_QUEUE_NAME: name,
});
