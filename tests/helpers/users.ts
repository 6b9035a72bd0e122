import { randomUUID } from 'node:crypto';
import { loadSecretsKey } from '../../lib/adapters/secrets.js';
import { formatAuthorization, sha256Hex, signRequest } from '../../lib/core/hmac-signing.js';
import { ensureUserForSubject, profileWithFirstKey } from '../../lib/user/service.js';

export interface Developer {
  arcId: string;
  subject: string;
  apiKey: string;
  secretKey: string;
}

/** A fresh developer with an API key, made through the same service the dashboard call uses. */
export const createDeveloper = async (name = `dev-${randomUUID().slice(0, 8)}`): Promise<Developer> => {
  // The new API secret is sealed as GET /user/me's function seals it: with the key read from Secrets Manager (the
  // benches call this outside any function; the tests have it read already, tests/setup-env.ts).
  await loadSecretsKey();
  const subject = `did:local:${name}`;
  const arcId = await ensureUserForSubject(subject);
  const me = await profileWithFirstKey({ scheme: 'bearer', userId: arcId, subject });
  if (!me.secretKey || !me.user.apiKey) throw new Error('expected a new API key');
  return { arcId, subject, apiKey: me.user.apiKey, secretKey: me.secretKey };
};

/** HMAC headers for a request, signed now (or at `timestamp`). */
export const hmacHeaders = (
  dev: Pick<Developer, 'apiKey' | 'secretKey'>,
  method: string,
  path: string,
  options: { timestamp?: number; body?: string; commas?: boolean } = {},
): Record<string, string> => {
  const timestamp = options.timestamp ?? Date.now();
  const bodySha256 = options.body === undefined ? undefined : sha256Hex(options.body);
  const signature = signRequest({
    secretKey: dev.secretKey,
    method,
    path,
    timestamp,
    ...(bodySha256 ? { bodySha256 } : {}),
  });
  const value = options.commas
    ? `HMAC-SHA256 apiKey=${dev.apiKey}, signature=${signature}, timestamp=${timestamp}`
    : formatAuthorization(dev.apiKey, signature, timestamp);
  return {
    authorization: value,
    'x-auth-provider': 'hmac',
    ...(bodySha256 ? { 'x-content-sha256': bodySha256 } : {}),
  };
};

/** A unique documentation-range IP per test, so rate-limit budgets never collide between tests. */
export const uniqueIp = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}-${randomUUID().slice(0, 4)}`;
