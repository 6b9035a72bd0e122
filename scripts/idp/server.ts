// Local identity provider for development and tests: issues real ES256 tokens and serves its JWKS,
// so the service verifies local tokens exactly as it verifies the production provider's.
//
//   GET  /.well-known/jwks.json              public signing key
//   GET  /.well-known/openid-configuration   issuer, jwks_uri, token_endpoint
//   POST /token  {"name": "alice"} | {"subject": "did:local:alice"} [, "expiresInSeconds": n]
//                [, "delegation": true|false] [, "embeddedWallet": false]
//             → {"token", "subject", "expiresAt", "walletAddress", "walletId", "delegated"}
//
// and, as the production provider (Privy) does, its server API for users and embedded wallets (wallets.ts) under
// the same contract: every `/v1/` call needs the `privy-app-id` header and HTTP Basic app-id:app-secret (401
// otherwise); a wallet RPC also needs a `privy-authorization-signature` (P-256 over the canonical request, see
// lib/user/provider.ts) by a key quorum the wallet carries among its `additional_signers` (401 without a valid
// one, 401 when the signing quorum is not on the wallet), and an unexpired `privy-request-expiry`; user creation
// is rate-limited per app (240 a minute unless configured; 429 with Retry-After). Errors are
// `{"error": "<message>", "code": "<code>"}`, with the provider's documented codes (no signature of a quorum
// that may sign for the wallet: 401 zero_correct_authorization_signatures; a policy: 403 policy_violation).
// The batch import is served where the provider documents it, on its auth host's API (`/api/v1/users/batch`,
// IDP_IMPORT_API_URL = <this server>/api), and not beside the wallet API (`/v1/users/batch` is a 404 there).
//
// and its client API for email sign-in (client-auth.ts: `/api/v1/passwordless/…`, `/api/v1/sessions`), which the
// console reaches through the provider's official browser client.
//
// Local-only endpoints a developer or a test uses in place of the provider's dashboard and client SDK:
//   GET  /local/users/{did}                 → {"subject", "walletAddress", "walletId", "delegated"}
//   PUT  /local/users/{did}/delegation      {"delegated": false} removes the app's signer, true adds it
//   GET  /local/wallets/{address}           → {"id", "address", "subject", "delegated", "signRequests", "signed"}
//   GET  /local/wallets                     → {"addresses": [...]} every embedded wallet it holds
//   GET  /local/passwordless/{email}        → {"email", "code", "expiresAt"}: the inbox of the email sign-in
//   PUT  /local/limits/user-creation        {"count", "windowMs"}: the creation rate limit from now on
//   GET  /local/limits/user-creation        → {"count", "windowMs", "created", "refused", "peak"}: users created,
//                                           creations refused 429, the most created in one window
//   PUT  /local/faults                      {"mode": "down" | "hang" | "limited" | null, "retryAfter"?: s}:
//                                           the provider API refuses every connection, never answers, or
//                                           answers 429 with that Retry-After, until set back to null
//
// Standalone: `tsx scripts/idp/server.ts --port 8090 --data .data/dev`

import { createPublicKey, type KeyObject, randomUUID, verify } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
} from 'jose';
import * as z from 'zod/mini';
import { signaturePayload } from '../../lib/adapters/privy-api.js';
import { isDid } from '../../lib/user/index.js';
import { closeServer, listen } from '../stack/http-server.js';
import { runStandIn } from '../stack/process.js';
import { createClientAuth } from './client-auth.js';
import { sendJson } from './http.js';
import {
  BatchCreateUsersRequest,
  CreateUserRequest,
  createWalletStore,
  LOCAL_APP_ID,
  LOCAL_APP_SECRET,
  LOCAL_AUTHORIZATION_PUBLIC_KEY,
  LOCAL_SIGNER_ID,
  LOOKUPS,
  ProviderError,
  RpcRequest,
  type WalletStore,
} from './wallets.js';

export interface LocalIdp {
  /** Base URL, e.g. `http://127.0.0.1:8090`. */
  url: string;
  /** `iss` of every token: the base URL. */
  issuer: string;
  /** `aud` of every token. */
  audience: string;
  jwksUrl: string;
  /** Sign a token for a local user name (→ `did:local:<name>`) or a did. `claims` are merged last and may override any standard claim. */
  issueToken(
    subjectOrName: string,
    opts?: { expiresInSeconds?: number; claims?: Record<string, unknown> },
  ): Promise<string>;
  stop(): Promise<void>;
}

export interface LocalIdpOptions {
  /** 0 binds a free port; read it back from `url`. */
  port: number;
  host?: string;
  /** When given, the key pair and the users are kept in `<dataDir>` so tokens and wallets survive restarts. */
  dataDir?: string;
  /** The app credentials the provider API accepts (Basic auth); default LOCAL_APP_ID / LOCAL_APP_SECRET. */
  appId?: string;
  appSecret?: string;
  /** Key quorums: id → base64 SPKI P-256 public key; default the local app's signer (LOCAL_SIGNER_ID). */
  signers?: Record<string, string>;
  /** Programs the policy on the app's signer allows (docs/wallets.md); absent: no policy. */
  signerPolicyPrograms?: readonly string[];
  /** User creations allowed per app in each window (default 240 a minute, as the provider publishes). */
  userCreationLimit?: { count: number; windowMs: number };
}

export const LOCAL_IDP_AUDIENCE = 'arcadia-local';
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const MAX_TOKEN_TTL_SECONDS = 7 * 24 * 3600;
const MAX_REQUEST_BYTES = 16 * 1024;
const KEY_FILE = 'idp-key.json';

const LocalName = z.string().check(z.regex(/^[a-z0-9_-]{1,64}$/, 'must be 1 to 64 of a-z, 0-9, _ and -'));
const Subject = z.string().check(z.refine(isDid, 'must be did:<idp>:<id>'));

const TokenRequest = z
  .strictObject({
    name: z.optional(LocalName),
    subject: z.optional(Subject),
    expiresInSeconds: z.optional(z.int().check(z.gte(1), z.lte(MAX_TOKEN_TTL_SECONDS))),
    /** Grant (true) or revoke (false) delegated signing for the user's embedded wallet; absent: unchanged. */
    delegation: z.optional(z.boolean()),
    /** false: a user signing in for the first time gets no embedded wallet. */
    embeddedWallet: z.optional(z.boolean()),
  })
  .check(
    z.refine((body) => (body.name === undefined) !== (body.subject === undefined), {
      message: 'give exactly one of name or subject',
    }),
  );

const StoredKey = z.object({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  x: z.string().check(z.minLength(1)),
  y: z.string().check(z.minLength(1)),
  d: z.string().check(z.minLength(1)),
  kid: z.string().check(z.minLength(1)),
  alg: z.literal('ES256'),
});
type StoredKey = z.infer<typeof StoredKey>;

interface SigningKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  kid: string;
}

/** The subject a local user name stands for. */
export const localSubjectOf = (name: string): string => `did:local:${name}`;

const subjectFor = (subjectOrName: string): string => {
  if (LocalName.safeParse(subjectOrName).success) return localSubjectOf(subjectOrName);
  if (isDid(subjectOrName)) return subjectOrName;
  throw new Error(`Not a local user name or did: ${JSON.stringify(subjectOrName)}`);
};

const generateStoredKey = async (): Promise<StoredKey> => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return StoredKey.parse({ ...jwk, kid, alg: 'ES256' });
};

/** Load the persisted key of dataDir, or create (and persist) one. A corrupt key file is an error, not silently replaced. */
const loadSigningKey = async (dataDir?: string): Promise<SigningKey> => {
  let stored: StoredKey;
  if (dataDir) {
    const file = join(dataDir, KEY_FILE);
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text === undefined) {
      stored = await generateStoredKey();
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    } else {
      const parsed = StoredKey.safeParse(JSON.parse(text));
      if (!parsed.success)
        throw new Error(`${file} is not an ES256 private JWK; delete it to generate a new key`);
      stored = parsed.data;
    }
  } else {
    stored = await generateStoredKey();
  }
  const { d: _private, ...publicPart } = stored;
  const privateKey = await importJWK(stored, 'ES256');
  if (privateKey instanceof Uint8Array) throw new Error('expected an asymmetric key');
  return { privateKey, kid: stored.kid, publicJwk: { ...publicPart, use: 'sig' } };
};

const sendError = (
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  details: { path: string; message: string }[] = [],
  headers: Record<string, string> = {},
) => sendJson(res, status, { error: { code, message, details, requestId: randomUUID() } }, headers);

/** A refusal in the provider's shape: `{"error": "<message>", "code": "<code>"}` (a 429 with Retry-After). */
const sendProviderError = (res: ServerResponse, error: ProviderError & { retryAfter?: number }) =>
  sendJson(
    res,
    error.status,
    { error: error.message, code: error.code },
    error.retryAfter === undefined ? {} : { 'retry-after': String(error.retryAfter) },
  );

class RequestTooLarge extends Error {}

/** The batch import, on the auth host's API as the provider documents it (not beside the wallet API). */
const IMPORT_PATH = '/api/v1/users/batch';
/** The provider's server API: the app's credentials, the faults and the rate limit apply. */
const isProviderApi = (path: string) => path.startsWith('/v1/') || path === IMPORT_PATH;

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new RequestTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/** Start the local identity provider; resolves once it listens. */
export const startLocalIdp = async (opts: LocalIdpOptions): Promise<LocalIdp> => {
  const host = opts.host ?? '127.0.0.1';
  const key = await loadSigningKey(opts.dataDir);
  const wallets: WalletStore = createWalletStore(
    opts.dataDir,
    Object.keys(opts.signers ?? {})[0] ?? LOCAL_SIGNER_ID,
    opts.signerPolicyPrograms,
  );
  // Filled in once the port is known (port 0 binds a free one).
  let url = '';

  const signToken = async (subjectOrName: string, tokenOpts: Parameters<LocalIdp['issueToken']>[1] = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + (tokenOpts.expiresInSeconds ?? DEFAULT_TOKEN_TTL_SECONDS);
    const payload = {
      iss: url,
      aud: LOCAL_IDP_AUDIENCE,
      sub: subjectFor(subjectOrName),
      iat: now,
      nbf: now,
      exp,
      jti: randomUUID(),
      ...tokenOpts.claims,
    };
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
    return { token, exp };
  };
  const issueToken: LocalIdp['issueToken'] = async (subjectOrName, tokenOpts) =>
    (await signToken(subjectOrName, tokenOpts)).token;

  /** A provider API body as JSON; refused as the provider refuses it (400 invalid_data, 413). */
  const providerBody = async (req: IncomingMessage): Promise<unknown> => {
    try {
      return JSON.parse(await readBody(req));
    } catch (error) {
      if (error instanceof RequestTooLarge)
        throw new ProviderError(413, 'payload_too_large', `Request body exceeds ${MAX_REQUEST_BYTES} bytes`);
      throw new ProviderError(400, 'invalid_data', 'Request body must be JSON');
    }
  };
  const providerJson = async <T extends z.core.$ZodType>(req: IncomingMessage, schema: T) => {
    const parsed = z.safeParse(schema, await providerBody(req));
    if (!parsed.success)
      throw new ProviderError(
        400,
        'invalid_data',
        parsed.error.issues
          .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
          .join('; '),
      );
    return parsed.data;
  };

  /** The JSON body parsed with `schema`, or undefined after answering 400/413. */
  const readJson = async <T extends z.core.$ZodType>(
    req: IncomingMessage,
    res: ServerResponse,
    schema: T,
    what: string,
  ): Promise<z.output<T> | undefined> => {
    let json: unknown;
    try {
      json = JSON.parse(await readBody(req));
    } catch (error) {
      if (error instanceof RequestTooLarge) {
        sendError(res, 413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_REQUEST_BYTES} bytes`);
        return undefined;
      }
      sendError(res, 400, 'VALIDATION_ERROR', 'Request body must be JSON');
      return undefined;
    }
    const parsed = z.safeParse(schema, json);
    if (parsed.success) return parsed.data;
    const details = parsed.error.issues.map((issue) => ({
      path: issue.path.length ? issue.path.map(String).join('.') : '(root)',
      message: issue.message,
    }));
    sendError(res, 400, 'VALIDATION_ERROR', `Invalid ${what}`, details);
    return undefined;
  };

  const handleToken = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req, res, TokenRequest, 'token request');
    if (!body) return;
    const { name, subject, expiresInSeconds, delegation, embeddedWallet } = body;
    const sub = subject ?? localSubjectOf(name ?? '');
    const wallet = wallets.signIn(sub, { delegation, embeddedWallet });
    const { token, exp } = await signToken(sub, expiresInSeconds ? { expiresInSeconds } : {});
    return sendJson(res, 200, {
      token,
      subject: sub,
      expiresAt: new Date(exp * 1000).toISOString(),
      ...wallet,
    });
  };

  const appId = opts.appId ?? LOCAL_APP_ID;
  const appAuthorization = `Basic ${Buffer.from(`${appId}:${opts.appSecret ?? LOCAL_APP_SECRET}`).toString('base64')}`;
  const quorums = new Map<string, KeyObject>(
    Object.entries(opts.signers ?? { [LOCAL_SIGNER_ID]: LOCAL_AUTHORIZATION_PUBLIC_KEY }).map(
      ([id, spki]) => [
        id,
        createPublicKey({ key: Buffer.from(spki, 'base64'), format: 'der', type: 'spki' }),
      ],
    ),
  );
  let creationLimit = opts.userCreationLimit ?? { count: 240, windowMs: 60_000 };
  let creations: number[] = [];
  const creationStats = { created: 0, refused: 0, peak: 0 };
  /** A sliding window per app, as the provider limits user creation: `count` users (a batch counts each). */
  const admitCreation = (count = 1) => {
    const now = Date.now();
    creations = creations.filter((at) => now - at < creationLimit.windowMs);
    if (creations.length + count > creationLimit.count) {
      creationStats.refused += count;
      // When enough of the oldest creations have left the window to make room for these.
      const freeing = creations[creations.length + count - creationLimit.count - 1] ?? now;
      const retryAfter = Math.max(1, Math.ceil((freeing + creationLimit.windowMs - now) / 1000));
      throw Object.assign(new ProviderError(429, 'too_many_requests', 'Too many requests'), { retryAfter });
    }
    for (let i = 0; i < count; i++) creations.push(now);
    creationStats.created += count;
    creationStats.peak = Math.max(creationStats.peak, creations.length);
  };
  /**
   * The fault switch (PUT /local/faults): `down` closes every provider API connection unanswered (a provider
   * that is down), `hang` leaves it unanswered (one that times out), `limited` answers each with 429 and a
   * Retry-After of `retryAfter` seconds (a provider rate-limiting the app); the token and JWKS endpoints keep
   * working.
   */
  let fault: 'down' | 'hang' | 'limited' | null = null;
  /** Seconds a `limited` provider asks callers to wait (its 429s' Retry-After). */
  let limitedFor = 60;
  const hanging = new Set<ServerResponse>();

  /**
   * The key quorums whose keys signed this request (`privy-authorization-signature`, comma-separated): each
   * signature is checked over the canonical {version, method, url, body, headers} the official client signs,
   * with the URL as the client addressed this server. None valid: 401.
   */
  const authorizationSigners = (req: IncomingMessage, path: string, body: unknown): string[] => {
    const header = req.headers['privy-authorization-signature'];
    const expiry = req.headers['privy-request-expiry'];
    if (typeof header !== 'string' || header.length === 0)
      throw new ProviderError(
        401,
        'missing_or_empty_authorization_header',
        'Missing privy-authorization-signature header or no signatures provided',
      );
    if (typeof expiry === 'string' && !(Number(expiry) > Date.now()))
      throw new ProviderError(401, 'request_expired', 'The request expired (privy-request-expiry)');
    const payload = signaturePayload({
      version: 1,
      method: (req.method ?? 'POST') as 'POST',
      url: `http://${req.headers.host ?? ''}${path}`,
      body,
      headers: {
        'privy-app-id': appId,
        ...(typeof expiry === 'string' ? { 'privy-request-expiry': expiry } : {}),
      },
    });
    const signatures = header.split(',').map((sig) => Buffer.from(sig.trim(), 'base64'));
    const signers = [...quorums].flatMap(([id, key]) =>
      signatures.some((sig) => verify('sha256', payload, key, sig)) ? [id] : [],
    );
    if (signers.length === 0)
      throw new ProviderError(
        401,
        'zero_correct_authorization_signatures',
        'No valid authorization signatures were provided',
      );
    return signers;
  };

  const clientAuth = createClientAuth({
    appId,
    wallets,
    signToken: (subject) => signToken(subject),
    readJson: providerJson,
  });

  type Handler = (req: IncomingMessage, res: ServerResponse, id: string, path: string) => unknown;
  const userView = (id: string) => {
    const user = wallets.find(id);
    if (!user) throw new ProviderError(404, 'not_found', 'User not found');
    return user;
  };
  /** The provider's server API (wallets.ts; `/v1/` needs the app's credentials) and the local-only endpoints. */
  const providerRoutes: Array<{ method: string; pattern: RegExp; handle: Handler }> = [
    {
      method: 'POST',
      pattern: /^\/v1\/users$/,
      handle: async (req, res) => {
        admitCreation();
        return sendJson(res, 200, wallets.createUser(await providerJson(req, CreateUserRequest)));
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/users\/batch$/,
      handle: async (req, res) => {
        const { users } = await providerJson(req, BatchCreateUsersRequest);
        admitCreation(users.length);
        return sendJson(res, 200, { results: wallets.createUsers(users) });
      },
    },
    ...Object.entries(LOOKUPS).map(([path, lookup]) => ({
      method: 'POST',
      pattern: new RegExp(`^${path.replaceAll('/', '\\/')}$`),
      handle: async (req: IncomingMessage, res: ServerResponse) =>
        sendJson(res, 200, wallets.lookup(lookup.key((await providerJson(req, lookup.schema)) as never))),
    })),
    {
      method: 'GET',
      pattern: /^\/v1\/users\/([^/]+)$/,
      handle: (_req, res, id) => sendJson(res, 200, wallets.view(userView(id))),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/wallets\/([^/]+)$/,
      handle: (_req, res, id) => sendJson(res, 200, wallets.walletRecord(id)),
    },
    {
      method: 'POST',
      pattern: /^\/v1\/wallets\/([^/]+)\/rpc$/,
      handle: async (req, res, walletId, path) => {
        const raw = await providerBody(req);
        const signers = authorizationSigners(req, path, raw);
        const parsed = z.safeParse(RpcRequest, raw);
        if (!parsed.success) throw new ProviderError(400, 'invalid_data', 'Invalid wallet RPC request');
        const signed = await wallets.signTransaction(walletId, parsed.data.params.transaction, signers);
        return sendJson(res, 200, {
          method: 'signTransaction',
          data: { signed_transaction: signed, encoding: 'base64' },
        });
      },
    },
    {
      method: 'GET',
      pattern: /^\/local\/users\/([^/]+)$/,
      handle: (_req, res, id) => {
        const user = userView(id);
        return sendJson(res, 200, {
          subject: user.id,
          walletAddress: user.wallet?.address ?? null,
          walletId: user.wallet?.id ?? null,
          delegated: user.wallet?.signers.includes(LOCAL_SIGNER_ID) ?? false,
        });
      },
    },
    {
      method: 'PUT',
      pattern: /^\/local\/users\/([^/]+)\/delegation$/,
      handle: async (req, res, id) => {
        const body = await readJson(req, res, z.object({ delegated: z.boolean() }), 'delegation');
        return body && sendJson(res, 200, wallets.setDelegation(id, body.delegated));
      },
    },
    {
      method: 'GET',
      pattern: /^\/local\/passwordless\/([^/]+)$/,
      handle: (_req, res, email) => {
        const sent = clientAuth.inbox(email);
        return sent ? sendJson(res, 200, sent) : sendError(res, 404, 'NOT_FOUND', `No code for ${email}`);
      },
    },
    {
      method: 'GET',
      pattern: /^\/local\/limits\/user-creation$/,
      handle: (_req, res) => sendJson(res, 200, { ...creationLimit, ...creationStats }),
    },
    {
      method: 'PUT',
      pattern: /^\/local\/limits\/user-creation$/,
      handle: async (req, res) => {
        const body = await readJson(
          req,
          res,
          z.object({ count: z.int().check(z.gte(1)), windowMs: z.int().check(z.gte(1)) }),
          'limit',
        );
        if (!body) return;
        creationLimit = body;
        return sendJson(res, 200, creationLimit);
      },
    },
    {
      method: 'PUT',
      pattern: /^\/local\/faults$/,
      handle: async (req, res) => {
        const body = await readJson(
          req,
          res,
          z.object({
            mode: z.nullable(z.enum(['down', 'hang', 'limited'])),
            retryAfter: z.optional(z.int().check(z.positive(), z.maximum(3600))),
          }),
          'fault',
        );
        if (!body) return;
        fault = body.mode;
        limitedFor = body.retryAfter ?? 60;
        // Connections left hanging are closed once the provider is back, as a restart would.
        if (fault === null) for (const held of hanging) held.destroy();
        hanging.clear();
        return sendJson(res, 200, { mode: fault });
      },
    },
    {
      method: 'GET',
      pattern: /^\/local\/wallets$/,
      handle: (_req, res) => sendJson(res, 200, { addresses: wallets.addresses() }),
    },
    {
      method: 'GET',
      pattern: /^\/local\/wallets\/([^/]+)$/,
      handle: (_req, res, address) => {
        const wallet = wallets.wallet(address);
        return wallet ? sendJson(res, 200, wallet) : sendError(res, 404, 'NOT_FOUND', `No wallet ${address}`);
      },
    },
  ];

  /** The provider's refusal of the app's credentials, or undefined when they are right. */
  const credentialProblem = (req: IncomingMessage): string | undefined => {
    if (req.headers['privy-app-id'] !== appId) return 'Missing or invalid privy-app-id header';
    if (req.headers.authorization !== appAuthorization) return 'Invalid app ID or app secret';
    return undefined;
  };

  const handleProvider = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const method = req.method ?? 'GET';
    if (isProviderApi(path)) {
      const problem = credentialProblem(req);
      if (problem) return sendProviderError(res, new ProviderError(401, 'invalid_app_credentials', problem));
    }
    for (const route of providerRoutes) {
      const match = route.pattern.exec(path);
      if (match && route.method === method)
        return route.handle(req, res, decodeURIComponent(match[1] ?? ''), path);
    }
    return sendError(res, 404, 'NOT_FOUND', `No route ${method} ${path}`);
  };

  const routes: Record<
    string,
    Partial<Record<string, (req: IncomingMessage, res: ServerResponse) => unknown>>
  > = {
    '/.well-known/jwks.json': {
      GET: (_req, res) => sendJson(res, 200, { keys: [key.publicJwk] }, { 'cache-control': 'max-age=60' }),
    },
    '/.well-known/openid-configuration': {
      GET: (_req, res) =>
        sendJson(res, 200, {
          issuer: url,
          jwks_uri: `${url}/.well-known/jwks.json`,
          token_endpoint: `${url}/token`,
          id_token_signing_alg_values_supported: ['ES256'],
          subject_types_supported: ['public'],
          response_types_supported: ['token'],
        }),
    },
    '/token': { POST: handleToken },
  };

  const failed = (res: ServerResponse) => (error: unknown) => {
    if (error instanceof ProviderError && !res.headersSent) return sendProviderError(res, error);
    console.error('local idp: request failed', error);
    if (!res.headersSent) sendError(res, 500, 'INTERNAL_ERROR', 'Internal server error');
    else res.destroy();
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (isProviderApi(path) && fault === 'down') return void req.socket.destroy();
    if (isProviderApi(path) && fault === 'hang') return void hanging.add(res);
    if (isProviderApi(path) && fault === 'limited')
      return void sendProviderError(
        res,
        Object.assign(new ProviderError(429, 'too_many_requests', 'Too many requests'), {
          retryAfter: limitedFor,
        }),
      );
    if (isProviderApi(path) || path.startsWith('/local/')) {
      Promise.resolve(handleProvider(req, res, path)).catch(failed(res));
      return;
    }
    if (path.startsWith('/api/v1/')) {
      Promise.resolve(clientAuth.handle(req, res, path)).catch(failed(res));
      return;
    }
    const methods = routes[path];
    const route = methods?.[req.method ?? 'GET'];
    if (!methods) return sendError(res, 404, 'NOT_FOUND', `No route ${path}`);
    if (!route) {
      return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`, [], {
        allow: Object.keys(methods).join(', '),
      });
    }
    Promise.resolve(route(req, res)).catch(failed(res));
  });

  const port = await listen(server, opts.port, host);
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    issuer: url,
    audience: LOCAL_IDP_AUDIENCE,
    jwksUrl: `${url}/.well-known/jwks.json`,
    issueToken,
    stop: () => {
      for (const held of hanging) held.destroy();
      return closeServer(server);
    },
  };
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.IDP_PORT ?? '8090' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number`);
  const idp = await startLocalIdp({
    port,
    host: values.host,
    ...(values.data ? { dataDir: values.data } : {}),
  });
  console.log(`local identity provider on ${idp.url} (issuer ${idp.issuer}, audience ${idp.audience})`);
  return idp;
};

runStandIn(import.meta.url, main);
