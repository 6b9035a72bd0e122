// Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` is `v1,<base64 HMAC-SHA256>` of
// `<webhook-id>.<webhook-timestamp>.<body>` under the secret's bytes (the base64 after `whsec_`); during a rotation's
// grace period one signature per valid secret, space-separated, so a receiver holding either verifies.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 24 random bytes, in the spec's `whsec_<base64>` form. */
export const newSigningSecret = (): string => `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;

const keyOf = (secret: string) => Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');

/** One `v1,` signature of a message. */
export const sign = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;

/** The headers of one delivery attempt, signed with every given secret (newest first). */
export const webhookHeaders = (
  secrets: readonly string[],
  id: string,
  body: string,
  at: Date,
): Record<string, string> => {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
};
