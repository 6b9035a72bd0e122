// @arcadia/sdk: the server client (typed from openapi.yaml) and the browser play client. WebCrypto and fetch
// only: every export runs in browsers, Node 20+, Deno and workers.

export { type ArcadiaClient, type ArcadiaClientOptions, createArcadiaClient, unwrap } from './client.js';
export {
  CONNECT_STORAGE_KEY,
  type Connection,
  type ConnectOptions,
  type ConnectScope,
  DEFAULT_CONNECT_SCOPES,
} from './connect.js';
export { ArcadiaError, retryAfterSeconds } from './errors.js';
export {
  canonicalQuery,
  canonicalString,
  EMPTY_BODY_SHA256,
  type SignInput,
  sha256Hex,
  signedPath,
  signRequest,
} from './hmac.js';
export type { components, operations, paths } from './openapi.generated.js';
export * from './play.js';
export * from './statements.js';
export { createTransport, type Fetch, type TransportOptions } from './transport.js';
export {
  type HeadersLike,
  type VerifyOptions,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  WebhookVerificationError,
} from './webhooks.js';
