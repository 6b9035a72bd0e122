// The identity provider's server API (Privy): the transport shared by the user directory and wallet reads
// (lib/user/provider.ts) and the wallet signer (wallet-signer.ts). A faithful adapter rather than the official
// `@privy-io/node` client: that client adds ~390 KB minified to every Lambda bundle that signs or resolves
// users, and it declares @solana/kit 5 where the platform runs 8. The requests and answers are typed with the
// official client's own types (imported as types only, so nothing of it is bundled), and the authorization
// signature follows its `formatRequestForAuthorizationSignature` / `generateAuthorizationSignature` byte for
// byte (a unit test checks it against the client's own functions; docs/wallets.md).
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import * as z from 'zod/mini';
import { canonicalJson } from '../core/canonical-json.js';
import { requireSetting } from '../core/config.js';
import { callTimeoutMs, upstreamBusy, waitOrGiveUp } from '../core/deadline.js';
import { AppError } from '../core/errors.js';
import { readSecretString } from './secret-value.js';

/** The provider's answer to a refused request: `{"error": "<message>", "code"?: "<code>"}`. */
const errorBodySchema = z.object({ error: z.string(), code: z.optional(z.string()) });

/**
 * The provider's documented error codes, by what they mean for the platform: the request's authorization
 * signatures (none valid for this wallet: our signer was removed from it, or the key is not the signer's), a
 * policy denying the transaction, a wallet short of funds, a broadcast that failed, the rate limit.
 */
export const PROVIDER_ERROR_CODES = {
  missing_or_empty_authorization_header: 'signature',
  zero_correct_authorization_signatures: 'signature',
  insufficient_correct_authorization_signatures: 'signature',
  incorrect_quantity_of_authorization_signatures: 'signature',
  no_valid_user_session_keys: 'signature',
  user_session_keys_expired: 'signature',
  policy_violation: 'policy',
  insufficient_funds: 'funds',
  transaction_broadcast_failure: 'broadcast',
  too_many_requests: 'rate_limited',
} as const;
/** What a refusal means: by its documented code, else by its status. */
export type ProviderRefusalKind =
  | (typeof PROVIDER_ERROR_CODES)[keyof typeof PROVIDER_ERROR_CODES]
  | 'credentials'
  | 'not_found'
  | 'unavailable'
  | 'other';

/** A refusal the provider answered: its status and, when it gave one, its error code. */
export class ProviderApiError extends Error {
  override readonly name = 'ProviderApiError';

  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }

  /** What the refusal means (PROVIDER_ERROR_CODES), its code first, else its status. */
  get kind(): ProviderRefusalKind {
    if (this.code !== undefined && Object.hasOwn(PROVIDER_ERROR_CODES, this.code))
      return PROVIDER_ERROR_CODES[this.code as keyof typeof PROVIDER_ERROR_CODES];
    if (this.status === 429) return 'rate_limited';
    if (this.status === 401) return 'credentials';
    if (this.status === 404) return 'not_found';
    if (this.status >= 500) return 'unavailable';
    return 'other';
  }
}

/**
 * A user's path as the official client writes it (its `encodeURIPath`): RFC 3986 path characters, `:` and `@`
 * among them, stay as they are, so `did:privy:…` keeps its colons; everything else is percent-encoded.
 */
export const userPath = (did: string) =>
  `/v1/users/${did.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@]+/g, encodeURIComponent)}`;

/** Where and as whom a request goes; each part defaults to its setting. */
export interface ProviderTarget {
  /** IDP_API_URL; the batch import's is IDP_IMPORT_API_URL (the provider's auth host). */
  base?: string;
  /** IDP_APP_ID */
  appId?: string;
  /** The app secret (default: the credentials secret's `appSecret`). */
  appSecret?: string;
  /** The authorization key (default: the credentials secret's `authorizationKey`). */
  authorizationKey?: string;
  /** Default 5000. */
  timeoutMs?: number;
}

export interface ProviderRequestInit {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Sign the request with the app's authorization key (`privy-authorization-signature`): wallet actions. */
  authorize?: boolean;
  /** Attempts in all when the provider answers 429 (default: IDP_RETRY_ATTEMPTS). */
  attempts?: number;
}

/** How long a signed request stays valid at the provider (the official client's default: 15 minutes). */
const REQUEST_EXPIRY_MS = 15 * 60_000;
/** The provider asks for exponential back-off starting at 1 s on a 429; a Lambda cannot wait much longer. */
const MAX_BACKOFF_MS = 8_000;

/**
 * The app's credentials the provider issues: its secret (Basic auth) and the authorization key (base64 PKCS8
 * P-256, optionally prefixed `wallet-auth:` or `wallet-api:` as the dashboard shows it) that signs wallet requests.
 */
export const idpCredentialsSchema = z.object({
  appSecret: z.string().check(z.minLength(1)),
  authorizationKey: z.string().check(z.minLength(1)),
});
export type IdpCredentials = z.infer<typeof idpCredentialsSchema>;

/**
 * The credentials, from the Secrets Manager secret IDP_CREDENTIALS_SECRET_ID (JSON `{"appSecret",
 * "authorizationKey"}`, put there by the deployer), read once per container. A malformed secret is named, its
 * value never shown.
 */
export const idpCredentials = async (
  secretId: string = requireSetting('IDP_CREDENTIALS_SECRET_ID'),
): Promise<IdpCredentials> => {
  const text = await readSecretString(secretId);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const credentials = idpCredentialsSchema.safeParse(parsed);
  if (!credentials.success)
    throw new Error(
      `The identity provider credentials secret ${secretId} must be JSON {"appSecret": "…", "authorizationKey": "…"}`,
    );
  return credentials.data;
};

let authorizationKey: { raw: string; key: KeyObject } | undefined;
/** The authorization key, parsed once per container. */
const appAuthorizationKey = (raw: string): KeyObject => {
  if (authorizationKey?.raw !== raw)
    authorizationKey = {
      raw,
      key: createPrivateKey({
        key: Buffer.from(raw.replace(/^wallet-(auth|api):/, ''), 'base64'),
        format: 'der',
        type: 'pkcs8',
      }),
    };
  return authorizationKey.key;
};

/** What the provider signs over: the official client's WalletApiRequestSignatureInput. */
export interface SignatureInput {
  version: 1;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  body: unknown;
  headers: { 'privy-app-id': string; 'privy-idempotency-key'?: string; 'privy-request-expiry'?: string };
}

/** The canonical JSON bytes of a request (RFC 8785; an empty object body is signed as ""). */
export const signaturePayload = (input: SignatureInput): Buffer => {
  const body =
    typeof input.body === 'object' && input.body !== null && Object.keys(input.body).length === 0
      ? ''
      : input.body;
  const text = canonicalJson({ ...input, body });
  if (!text) throw new Error('Cannot canonicalize the request for its authorization signature');
  return Buffer.from(text, 'utf8');
};

/** P-256 ECDSA over sha256 of the canonical request, DER, base64: the `privy-authorization-signature` value. */
export const authorizationSignature = (input: SignatureInput, key: KeyObject) =>
  sign('sha256', signaturePayload(input), key).toString('base64');

const PROVIDER = 'The identity provider';

/** Full jitter over an exponential step from IDP_RETRY_BASE_MS, or the provider's Retry-After when longer. */
const backoffMs = (attempt: number, retryAfter: string | null) => {
  const base = requireSetting('IDP_RETRY_BASE_MS');
  const step = Math.min(MAX_BACKOFF_MS, base * 2 ** attempt);
  const told = Number(retryAfter) * 1000;
  return Math.max(Number.isFinite(told) ? told : 0, step / 2 + Math.random() * (step / 2));
};

/** The refusal in an answer that is not ok. */
export const providerError = async (response: Response, what: string): Promise<ProviderApiError> => {
  const parsed = errorBodySchema.safeParse(await response.json().catch(() => null));
  return new ProviderApiError(
    response.status,
    parsed.success ? parsed.data.code : undefined,
    `Identity provider ${what} failed with ${response.status}${parsed.success ? `: ${parsed.data.error}` : ''}`,
  );
};

const headersFor = async (
  url: URL,
  method: string,
  body: unknown,
  authorize: boolean,
  target: ProviderTarget,
): Promise<Record<string, string>> => {
  const appId = target.appId ?? requireSetting('IDP_APP_ID');
  const appSecret = target.appSecret ?? (await idpCredentials()).appSecret;
  const basic = Buffer.from(`${appId}:${appSecret}`).toString('base64');
  const headers: Record<string, string> = {
    authorization: `Basic ${basic}`,
    'privy-app-id': appId,
    'content-type': 'application/json',
  };
  if (!authorize) return headers;
  const expiry = String(Date.now() + REQUEST_EXPIRY_MS);
  headers['privy-request-expiry'] = expiry;
  headers['privy-authorization-signature'] = authorizationSignature(
    {
      version: 1,
      method: method as SignatureInput['method'],
      // The official client signs `${baseURL}/v1/...`: no trailing slash, no query.
      url: url.toString().replace(/\/$/, ''),
      body,
      headers: { 'privy-app-id': appId, 'privy-request-expiry': expiry },
    },
    appAuthorizationKey(target.authorizationKey ?? (await idpCredentials()).authorizationKey),
  );
  return headers;
};

/**
 * A request to `{base}{path}` with the app's Basic credentials, the `privy-app-id` header and a 5 s timeout,
 * signed with the app's authorization key when `authorize`. A 429 is retried with jittered exponential back-off (the provider publishes 240 user creations a minute per app and asks for back-off from
 * 1 s); still limited after the last attempt, it is a 429 RATE_LIMITED to the caller, never a 500.
 */
export const providerRequest = async (
  fetchImpl: typeof fetch,
  path: string,
  init: ProviderRequestInit = {},
  target: ProviderTarget = {},
): Promise<Response> => {
  const base = target.base ?? requireSetting('IDP_API_URL');
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const url = new URL(path.replace(/^\//, ''), base.replace(/\/?$/, '/'));
  const attempts = init.attempts ?? requireSetting('IDP_RETRY_ATTEMPTS');
  for (let attempt = 0; ; attempt++) {
    const response = await fetchImpl(url, {
      method,
      // Signed per attempt: each carries its own expiry.
      headers: await headersFor(url, method, init.body, init.authorize === true, target),
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      // No longer than the invocation has left.
      signal: AbortSignal.timeout(callTimeoutMs(target.timeoutMs ?? 5000, PROVIDER)),
    });
    if (response.status !== 429) return response;
    if (attempt + 1 >= attempts)
      throw new AppError(
        'RATE_LIMITED',
        'The identity provider is rate-limiting this app: retry in a minute',
        [],
        { 'Retry-After': '60' },
      );
    await response.body?.cancel();
    // A wait longer than a retry is worth, or than the invocation can afford, is answered at once: 503 with the
    // provider's own wait as Retry-After (a queue worker puts the message back for that long).
    const wait = backoffMs(attempt, response.headers.get('retry-after'));
    if (wait > MAX_BACKOFF_MS) throw upstreamBusy(PROVIDER, wait);
    await waitOrGiveUp(wait, PROVIDER);
  }
};
