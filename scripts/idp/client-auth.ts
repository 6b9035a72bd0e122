// The provider's client API for email sign-in, as its official browser client (`@privy-io/js-sdk-core`) calls it,
// so the console signs in locally through the same client and calls it does against the provider:
//
//   GET  /api/v1/apps/{appId}                 the app's public config (login methods)
//   POST /api/v1/analytics_events             accepted and dropped
//   POST /api/v1/passwordless/init            {"email"} → sends a one-time code (locally: to the inbox below)
//   POST /api/v1/passwordless/authenticate    {"email", "code", "mode"?} → {user, token, refresh_token, …}
//   POST /api/v1/sessions                     {"refresh_token"} → new tokens (the refresh token rotates)
//   POST /api/v1/sessions/logout              {"refresh_token"} → the session ends
//
// Every call needs the `privy-app-id` header of the app (401 `missing_or_invalid_privy_app_id`); a browser's
// Origin must be one the app allows (403 `allowlist_rejected`; preflights answered for allowed origins only), and
// an allowed origin's calls are answered for a credentialed request (its origin echoed, credentials allowed).
// Errors are the provider's `{"error": "<message>", "code": "<code>"}`.
//
// Local-only: GET /local/passwordless/{email} → {"email", "code", "expiresAt"}: the inbox a developer or a test
// reads in place of an email. The address `<name>@local` signs in as `did:local:<name>`, the user
// `npm run token -- <name>` makes; any other address is a user of its own, created with an embedded wallet at its
// first sign-in and found by the server API's email lookup afterwards.
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { sendJson } from './http.js';
import { ProviderError, type WalletStore } from './wallets.js';

/** How long a code may be used, and how many wrong codes burn it (the provider's own limits are not published). */
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_ATTEMPTS = 5;
/** Codes sent to one address in a minute. */
export const CODES_PER_MINUTE = 5;
/** The headers the official client sends on every request (a preflight asks for them). */
const CLIENT_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'privy-app-id',
  'privy-ca-id',
  'privy-client',
  'privy-client-id',
  'privy-retry-attempt',
];

const Email = z
  .string()
  .check(z.maxLength(254), z.regex(/^[^\s@]{1,64}@[^\s@]{1,190}$/, 'must be an email address'));
const InitRequest = z.object({ email: Email, token: z.optional(z.string()) });
const AuthenticateRequest = z.object({
  email: Email,
  code: z.string().check(z.maxLength(32)),
  mode: z.optional(z.enum(['login-or-sign-up', 'no-signup'])),
});
const RefreshRequest = z.object({ refresh_token: z.string().check(z.minLength(1), z.maxLength(256)) });

/** `<name>@local` → `did:local:<name>`. */
const LOCAL_ADDRESS = /^([a-z0-9_-]{1,64})@local$/;

/** Loopback pages on any port: the console and the demo under `npm run dev` and in the tests. */
export const isLoopbackOrigin = (origin: string) => {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
};

export interface ClientAuthOptions {
  appId: string;
  wallets: WalletStore;
  /** A signed access token for the subject, with its expiry (seconds since the epoch). */
  signToken(subject: string): Promise<{ token: string; exp: number }>;
  /** A request's JSON body parsed with `schema`; refused as the provider refuses it (400 invalid_data, 413). */
  readJson<T extends z.core.$ZodType>(req: IncomingMessage, schema: T): Promise<z.output<T>>;
  /** The origins the app allows; default loopback pages only. */
  allowsOrigin?: (origin: string) => boolean;
}

interface PendingCode {
  code: string;
  expiresAt: number;
  wrong: number;
}

const sameCode = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

export const createClientAuth = (options: ClientAuthOptions) => {
  const { readJson } = options;
  const allowsOrigin = options.allowsOrigin ?? isLoopbackOrigin;
  const codes = new Map<string, PendingCode>();
  const sent = new Map<string, number[]>();
  /** refresh token → subject; a refresh token is used once. */
  const sessions = new Map<string, string>();

  /** The subject an address signs in as: its local name's, the user holding it, or a new user. */
  const subjectOf = (email: string, mayCreate: boolean): { subject: string; isNew: boolean } => {
    const local = LOCAL_ADDRESS.exec(email)?.[1];
    if (local) return { subject: `did:local:${local}`, isNew: false };
    try {
      return { subject: options.wallets.lookup(`email:${email}`).id, isNew: false };
    } catch (error) {
      if (!(error instanceof ProviderError) || error.status !== 404) throw error;
    }
    if (!mayCreate) throw new ProviderError(403, 'user_does_not_exist', 'No user has this email');
    const user = options.wallets.createUser({
      linked_accounts: [{ type: 'email', address: email }],
      wallets: [{ chain_type: 'solana' }],
    });
    return { subject: user.id, isNew: true };
  };

  /** What authenticate and refresh answer: the official client's `AuthenticatedUser`. */
  const authenticated = async (subject: string, isNew: boolean) => {
    options.wallets.signIn(subject, {});
    const user = options.wallets.find(subject);
    if (!user) throw new ProviderError(404, 'not_found', 'User not found');
    const { token } = await options.signToken(subject);
    const refresh = randomBytes(32).toString('base64url');
    sessions.set(refresh, subject);
    return {
      user: options.wallets.view(user),
      token,
      privy_access_token: null,
      refresh_token: refresh,
      session_update_action: 'set',
      is_new_user: isNew,
    };
  };

  const routes: Array<{
    method: string;
    pattern: RegExp;
    handle: (req: IncomingMessage, res: ServerResponse, param: string) => Promise<unknown> | unknown;
  }> = [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/apps\/([^/]+)$/,
      handle: (_req, res, id) => {
        if (id !== options.appId) throw new ProviderError(404, 'not_found', 'App not found');
        return sendJson(res, 200, {
          id: options.appId,
          name: 'Arcadia (local identity provider)',
          logo_url: null,
          email_auth: true,
          sms_auth: false,
          wallet_auth: false,
          passkey_auth: false,
          google_oauth: false,
          embedded_wallet_config: { create_on_login: 'off' },
        });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/analytics_events$/,
      handle: async (req, res) => {
        await readJson(req, z.object({ event_name: z.string().check(z.maxLength(128)) }));
        return sendJson(res, 200, {});
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/passwordless\/init$/,
      handle: async (req, res) => {
        const email = (await readJson(req, InitRequest)).email.toLowerCase();
        const now = Date.now();
        const recent = (sent.get(email) ?? []).filter((at) => now - at < 60_000);
        if (recent.length >= CODES_PER_MINUTE)
          throw Object.assign(new ProviderError(429, 'too_many_requests', 'Too many codes sent'), {
            retryAfter: Math.ceil(((recent[0] ?? now) + 60_000 - now) / 1000),
          });
        sent.set(email, [...recent, now]);
        codes.set(email, {
          code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
          expiresAt: now + CODE_TTL_MS,
          wrong: 0,
        });
        return sendJson(res, 200, { success: true });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/passwordless\/authenticate$/,
      handle: async (req, res) => {
        const body = await readJson(req, AuthenticateRequest);
        const email = body.email.toLowerCase();
        const pending = codes.get(email);
        if (!pending || pending.expiresAt <= Date.now())
          throw new ProviderError(401, 'invalid_credentials', 'Invalid email and code combination');
        if (!sameCode(body.code, pending.code)) {
          pending.wrong += 1;
          if (pending.wrong >= CODE_ATTEMPTS) codes.delete(email);
          throw new ProviderError(401, 'invalid_credentials', 'Invalid email and code combination');
        }
        codes.delete(email);
        const { subject, isNew } = subjectOf(email, body.mode !== 'no-signup');
        return sendJson(res, 200, await authenticated(subject, isNew));
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/sessions$/,
      handle: async (req, res) => {
        const { refresh_token } = await readJson(req, RefreshRequest);
        const subject = sessions.get(refresh_token);
        if (!subject) throw new ProviderError(401, 'invalid_refresh_token', 'Invalid or used refresh token');
        sessions.delete(refresh_token);
        return sendJson(res, 200, await authenticated(subject, false));
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/sessions\/logout$/,
      handle: async (req, res) => {
        sessions.delete((await readJson(req, RefreshRequest)).refresh_token);
        return sendJson(res, 200, {});
      },
    },
  ];

  return {
    /** Answers a request under /api/v1/ (preflights included); throws ProviderError for a refusal. */
    async handle(req: IncomingMessage, res: ServerResponse, path: string) {
      const origin = req.headers.origin;
      if (origin !== undefined && !allowsOrigin(origin))
        throw new ProviderError(403, 'allowlist_rejected', `Origin ${origin} is not allowed for this app`);
      // As the provider answers an allowed origin: that origin (never `*`) and credentials allowed, since its
      // client sends every call with `credentials: 'include'` (a browser refuses the answer, and a preflight,
      // without Access-Control-Allow-Credentials: true); the answer varies with the Origin either way.
      const cors: Record<string, string> = origin
        ? {
            'access-control-allow-origin': origin,
            'access-control-allow-credentials': 'true',
            vary: 'Origin',
          }
        : { vary: 'Origin' };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          ...cors,
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': CLIENT_HEADERS.join(', '),
          'access-control-max-age': '600',
        });
        return void res.end();
      }
      for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
      if (req.headers['privy-app-id'] !== options.appId)
        throw new ProviderError(
          401,
          'missing_or_invalid_privy_app_id',
          'Missing or invalid privy-app-id header',
        );
      for (const route of routes) {
        const match = route.pattern.exec(path);
        if (match && route.method === req.method)
          return route.handle(req, res, decodeURIComponent(match[1] ?? ''));
      }
      throw new ProviderError(404, 'not_found', `No route ${req.method} ${path}`);
    },
    /** The inbox: the code last sent to an address and not yet used, if any. */
    inbox(email: string) {
      const pending = codes.get(email.toLowerCase());
      if (!pending || pending.expiresAt <= Date.now()) return undefined;
      return {
        email: email.toLowerCase(),
        code: pending.code,
        expiresAt: new Date(pending.expiresAt).toISOString(),
      };
    },
  };
};
