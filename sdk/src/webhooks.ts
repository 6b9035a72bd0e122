// Verifying a webhook delivery (Standard Webhooks, https://www.standardwebhooks.com) on WebCrypto: the
// `webhook-signature` header holds `v1,<base64 HMAC-SHA256>` signatures of `<webhook-id>.<webhook-timestamp>.<body>`
// under the endpoint's secret (`whsec_<base64>`); any one valid signature suffices (two are sent during a secret
// rotation), and a timestamp more than 5 minutes away is refused (replays).
import type { components } from './openapi.generated.js';

type Schemas = components['schemas'];

/** Every event payload a webhook endpoint receives, discriminated by `type`. */
export type WebhookEvent = Schemas[Extract<keyof Schemas, `WebhookEvent_${string}`>];
export type WebhookEventType = WebhookEvent['type'];
/** The payload of one event type. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

/** A delivery that does not verify: wrong secret, tampered body, missing header, or a stale timestamp. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Seconds a delivery's timestamp may be away from the receiver's clock. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

const base64ToBytes = (value: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(value);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
};

const header = (headers: HeadersLike, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/** A fetch `Headers`, or a plain record (Node's `request.headers`, Express, …). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The receiver's clock (tests). */
  now?: () => Date;
}

/**
 * Verify a delivery and return its typed payload; throws WebhookVerificationError otherwise. `payload` is the raw
 * request body exactly as received (verify before parsing: re-serialized JSON does not verify).
 */
export const verifyWebhook = async (
  payload: string | Uint8Array,
  headers: HeadersLike,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> => {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook headers');
  const seconds = Number(timestamp);
  const now = (options.now?.() ?? new Date()).getTime() / 1000;
  if (!Number.isInteger(seconds) || Math.abs(now - seconds) > WEBHOOK_TOLERANCE_SECONDS)
    throw new WebhookVerificationError('Timestamp too far from now');
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const key = await crypto.subtle.importKey(
    'raw',
    base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = base64ToBytes(signature);
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify('HMAC', key, bytes, signed)) return JSON.parse(body) as WebhookEvent;
  }
  throw new WebhookVerificationError('No valid signature');
};
