// The secrets key (lib/adapters/secrets.ts: API and webhook secrets, session-token keys) against the local stack: it
// lives in the Secrets Manager stand-in, put there by the stack scripts as a deployer puts it, and a function reads
// it once per container, before its handler runs, through the same wrappers as deployed. Each "container" here is
// the function's module graph loaded anew (vi.resetModules), its Secrets Manager calls counted by a proxy in front
// of the stand-in.
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { apiBaseUrl, type Handler, invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders, uniqueIp } from '../helpers/users.js';

const STAND_IN = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER ?? '';
const STACK_SECRET = process.env.SECRETS_KEY_SECRET_ID ?? '';

/** GetSecretValue calls that reached the stand-in through the proxy, by SecretId. */
const reads: string[] = [];
const readsOf = (secretId: string) => reads.filter((id) => id === secretId).length;

/** Forwards every request to the stand-in, noting the secret each GetSecretValue asks for. */
const startCountingProxy = async (): Promise<{ server: Server; url: string }> => {
  const target = new URL(STAND_IN);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue')
        reads.push(String((JSON.parse(body.toString('utf8')) as { SecretId?: unknown }).SecretId));
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
};

const secrets = new SecretsManagerClient({});
let proxy: { server: Server; url: string };
let developer: Developer;

beforeAll(async () => {
  proxy = await startCountingProxy();
  // The fresh containers' clients are created at their first read, so they send through the proxy; this file's
  // own key was read before (tests/setup-env.ts).
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = proxy.url;
  developer = await createDeveloper();
});
afterAll(async () => {
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = STAND_IN;
  process.env.SECRETS_KEY_SECRET_ID = STACK_SECRET;
  secrets.destroy();
  await new Promise((resolve) => proxy.server.close(resolve));
});

/** A new container of GET /user/me/stats (HMAC: it opens the developer's API secret with the key). */
const statsContainer = async (): Promise<Handler> => {
  vi.resetModules();
  return (await import('../../functions/user/get-my-stats.js')).handler as Handler;
};

const stats = (handler: Handler) =>
  invoke(handler, {
    method: 'GET',
    path: '/user/me/stats',
    headers: hmacHeaders(developer, 'GET', '/user/me/stats'),
    sourceIp: uniqueIp(),
  });

/** A new secret holding `value` (or none: a stage whose key was never put), for one container to read. */
const newSecret = async (value?: string): Promise<string> => {
  const created = await secrets.send(
    new CreateSecretCommand({
      Name: `test-secrets-key-${randomUUID()}`,
      ...(value === undefined ? {} : { SecretString: value }),
    }),
  );
  return created.ARN ?? '';
};

const stackKey = async () =>
  (await secrets.send(new GetSecretValueCommand({ SecretId: STACK_SECRET }))).SecretString ?? '';

describe('the secrets key in Secrets Manager', () => {
  it('is read once per container, before the handler runs, and opens the API secrets sealed under it', async () => {
    expect(STACK_SECRET).toMatch(/^arn:aws:secretsmanager:.*:secret:arcadia-[a-z0-9-]+-secrets-key-/);
    // No key in the functions' shared environment nor in the stack's: the stack puts it in the secret only.
    expect(Object.keys({ ...inject('functionEnv'), ...inject('stackEnv') })).not.toContain(
      'SECRETS_ENCRYPTION_KEY',
    );
    const handler = await statsContainer();
    const before = readsOf(STACK_SECRET);
    for (let i = 0; i < 3; i++) expect((await stats(handler)).status).toBe(200);
    expect(readsOf(STACK_SECRET) - before).toBe(1);

    // A second container reads it again, once.
    const another = await statsContainer();
    expect((await stats(another)).status).toBe(200);
    expect((await stats(another)).status).toBe(200);
    expect(readsOf(STACK_SECRET) - before).toBe(2);
  });

  it('keeps what it read when the secret changes; a new container reads the new value', async () => {
    const secretId = await newSecret(await stackKey());
    process.env.SECRETS_KEY_SECRET_ID = secretId;
    try {
      const running = await statsContainer();
      expect((await stats(running)).status).toBe(200);
      await secrets.send(
        new PutSecretValueCommand({
          SecretId: secretId,
          SecretString: Buffer.alloc(32, 9).toString('base64'),
        }),
      );
      // Still the key it read: the developer's secret still opens, and nothing is read again.
      expect((await stats(running)).status).toBe(200);
      expect(readsOf(secretId)).toBe(1);
      // A new container reads the new key, under which the stored secret no longer opens.
      const next = await statsContainer();
      expect((await stats(next)).status).toBeGreaterThanOrEqual(400);
      expect(readsOf(secretId)).toBe(2);
    } finally {
      process.env.SECRETS_KEY_SECRET_ID = STACK_SECRET;
    }
  });

  it('fails closed on a stage whose key was never put, and reads again once it is', async () => {
    const secretId = await newSecret();
    process.env.SECRETS_KEY_SECRET_ID = secretId;
    try {
      const handler = await statsContainer();
      const refused = await stats(handler);
      expect(refused.status).toBe(500);
      expect(refused.text).not.toContain(secretId);
      await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: await stackKey() }));
      // The failed read is not kept: the next invocation of the same container reads it, then never again.
      expect((await stats(handler)).status).toBe(200);
      expect((await stats(handler)).status).toBe(200);
      expect(readsOf(secretId)).toBe(2);
    } finally {
      process.env.SECRETS_KEY_SECRET_ID = STACK_SECRET;
    }
  });

  it('names a secret that holds no 32-byte key, never showing its value', async () => {
    const secretId = await newSecret('not-a-key-sekrit');
    process.env.SECRETS_KEY_SECRET_ID = secretId;
    try {
      vi.resetModules();
      const { loadSecretsKey, sealSecret } = await import('../../lib/adapters/secrets.js');
      const error = await loadSecretsKey().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(`The secret ${secretId} must hold 32 bytes, base64-encoded`);
      expect((error as Error).message).not.toContain('sekrit');
      // Nothing is sealed meanwhile under no key.
      expect(() => sealSecret('x')).toThrow(/not loaded/);
    } finally {
      process.env.SECRETS_KEY_SECRET_ID = STACK_SECRET;
    }
  });

  it('is read by a queue consumer that opens secrets (the webhook worker) before its batch, once', async () => {
    vi.resetModules();
    const worker = (await import('../../functions/webhooks/deliver-webhooks.js')).handler;
    const before = readsOf(STACK_SECRET);
    expect(await worker({ Records: [] } as unknown as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect(await worker({ Records: [] } as unknown as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect(readsOf(STACK_SECRET) - before).toBe(1);
    // Which functions may read it at all is the bundles' (tests/contract/package.test.ts): in-process, without
    // esbuild's tree shaking, a module graph holds more than the function's bundle does.
  });

  it('reaches the functions serverless offline runs, through their own SECRETS_KEY_SECRET_ID', async () => {
    const response = await fetch(`${apiBaseUrl()}/user/me/stats`, {
      headers: hmacHeaders(developer, 'GET', '/user/me/stats'),
    });
    expect(response.status).toBe(200);
  });
});
