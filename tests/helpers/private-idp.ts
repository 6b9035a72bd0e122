// A local identity provider of this test file's own, which the file can stop and start again: the stack's
// provider is shared by every test file running at once, so stopping it would fail theirs. Import this module
// FIRST in the test file: it points the in-process handlers (IDP_API_URL, IDP_ISSUER…: read once, at the first
// settings()) and the helpers (IDP_URL) at this provider before anything reads the settings. Its users are kept
// in a directory of its own, so they survive a restart, as the real provider's do. The file's saves queue their
// imports on a queue of its own too (USER_IMPORT_QUEUE_NAME), so that no other file's worker imports them
// through the shared provider, and this file's worker imports no other file's users.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'arcadia-private-idp-'));
let idp: LocalIdp | undefined = await startLocalIdp({ port: 0, dataDir });
const url = idp.url;
const port = Number(new URL(url).port);

const queueName = `user-imports-test-${randomUUID().slice(0, 8)}`;
const sqs = new SQSClient({});
await sqs.send(new CreateQueueCommand({ QueueName: queueName }));
sqs.destroy();

Object.assign(process.env, {
  IDP_URL: url,
  IDP_API_URL: url,
  IDP_WALLET_API_URL: url,
  IDP_IMPORT_API_URL: `${url}/api`,
  IDP_ISSUER: url,
  IDP_JWKS_URL: `${url}/.well-known/jwks.json`,
  USER_IMPORT_QUEUE_NAME: queueName,
});

/** Stop this provider: its port refuses connections until `startProvider`. */
export const stopProvider = async (): Promise<void> => {
  await idp?.stop();
  idp = undefined;
};

/** Start it again on the same port, with the users it had. */
export const startProvider = async (): Promise<void> => {
  idp ??= await startLocalIdp({ port, dataDir });
};
