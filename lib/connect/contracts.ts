// Connect with Arcadia (docs/connect.md): a game's OAuth clients, the authorization code flow with PKCE, and the
// player's connected games.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, withMeta } from '../core/schemas.js';
import { SCOPE_NAMES } from '../core/scopes.js';
import { ACCESS_TOKEN_TTL_SECONDS, MAX_CLIENTS_PER_GAME, MAX_ORIGINS, MAX_REDIRECT_URIS } from './model.js';

const TAGS = ['Connect'];
const EXAMPLE_GAME = '0b9f1c5e-8d7a-4f43-9a51-3c1e2d4b6a70';
const EXAMPLE_CLIENT = 'arc_5f0c9e2d41b84a7f9c3e1d2b6a7f8e90';
const DEVELOPER = ['hmac', 'bearer'] as const;
const PLAYER = ['bearer'] as const;

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const optionalText = (max: number) => z.optional(z.string().check(z.maxLength(max)));
const gameId = z.uuid();
const clientId = described(text(64), 'The client id (public: a game page holds it)');
const lamports = z.string().check(z.regex(/^(0|[1-9][0-9]{0,15})$/));

const clientSchema = withMeta(
  z.object({
    clientId,
    gameId,
    name: z.string(),
    redirectUris: z.array(z.string()),
    origins: z.array(z.string()),
    createdBy: z.uuid(),
    createdAt: z.string(),
  }),
  {
    id: 'OAuthClient',
    examples: [
      {
        clientId: EXAMPLE_CLIENT,
        gameId: EXAMPLE_GAME,
        name: 'Web game',
        redirectUris: ['https://quest.example/connected'],
        origins: ['https://quest.example'],
        createdBy: '6a1f3c2e-9b8d-4e7f-a1b2-c3d4e5f6a7b8',
        createdAt: '2026-12-02T10:00:00.000Z',
      },
    ],
  },
);

const CLIENT_RULES =
  "A game's OAuth clients are **public** (no secret: a game's page is a browser app, docs/connect.md). Each " +
  `has up to ${MAX_REDIRECT_URIS} exact redirect URIs (https; \`http://localhost\` only where the deployment ` +
  'allows it, the local stack) and up to ' +
  `${MAX_ORIGINS} origins that may receive the popup's result. At most ${MAX_CLIENTS_PER_GAME} clients a game; ` +
  "the game's creator or owner manages them.";

export const listOAuthClientsContract = defineContract({
  operationId: 'listGameClients',
  method: 'GET',
  path: '/games/oauth-clients/{gameId}',
  tags: TAGS,
  summary: "A game's OAuth clients",
  description: CLIENT_RULES,
  auth: DEVELOPER,
  params: z.object({ gameId }),
  response: dataEnvelope(z.array(clientSchema)),
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});

export const createOAuthClientContract = defineContract({
  operationId: 'createGameClient',
  method: 'POST',
  path: '/games/oauth-clients/{gameId}',
  tags: TAGS,
  summary: 'Register an OAuth client for a game',
  description: `${CLIENT_RULES} 409 CONFLICT past the limit.`,
  auth: DEVELOPER,
  params: z.object({ gameId }),
  body: z.object({
    name: described(text(80), 'What the studio calls it (web, staging…)'),
    redirectUris: z.array(text(2000)).check(z.minLength(1), z.maxLength(MAX_REDIRECT_URIS)),
    origins: z.optional(z.array(text(300)).check(z.maxLength(MAX_ORIGINS))),
  }),
  successStatus: 201,
  response: dataEnvelope(clientSchema),
  errors: ['FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  rateLimit: { limit: 30, windowSeconds: 60, key: 'user' },
  example: {
    params: { gameId: EXAMPLE_GAME },
    body: {
      name: 'Web game',
      redirectUris: ['https://quest.example/connected'],
      origins: ['https://quest.example'],
    },
  },
});

export const deleteOAuthClientContract = defineContract({
  operationId: 'deleteGameClient',
  method: 'DELETE',
  path: '/games/oauth-clients/{gameId}/{clientId}',
  tags: TAGS,
  summary: 'Remove an OAuth client',
  description:
    'No new authorization or refresh goes through it from now on; access tokens it already has end within ' +
    `${ACCESS_TOKEN_TTL_SECONDS / 60} minutes. Players' grants to the game stay (they list and revoke them).`,
  auth: DEVELOPER,
  params: z.object({ gameId, clientId }),
  response: dataEnvelope(z.object({ clientId: z.string(), deleted: z.boolean() })),
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, clientId: EXAMPLE_CLIENT } },
});

export const oauthAuthorizeContract = defineContract({
  operationId: 'oauthAuthorize',
  method: 'GET',
  path: '/oauth/authorize',
  tags: TAGS,
  summary: 'Start connecting a game (authorization endpoint)',
  description:
    'The authorization code flow with PKCE only (RFC 6749 §4.1, RFC 7636): `response_type=code`, ' +
    '`code_challenge_method=S256`. A known client at one of its registered redirect URIs goes on (302) to the ' +
    "platform's connect page, where the player signs in and approves; other errors go back to the redirect URI " +
    'as `error` and `state`. An unknown client or a redirect URI it did not register is refused on an HTML ' +
    'page (400) that redirects nowhere. Neither answer can be framed.',
  auth: [],
  query: z.object({
    response_type: optionalText(32),
    client_id: optionalText(64),
    redirect_uri: optionalText(2000),
    state: optionalText(512),
    scope: optionalText(256),
    code_challenge: optionalText(128),
    code_challenge_method: optionalText(16),
    response_mode: described(
      optionalText(16),
      '`query` (default: the browser goes to the redirect URI) or `web_message` (a popup: the connect page ' +
        "posts `{type: 'authorization_response', response: {code, state}}` to its opener, at the client's " +
        'registered origins only)',
    ),
  }),
  successStatus: 302,
  alsoAnswers: [{ status: 400, description: 'Unknown client or redirect URI: an HTML page says so' }],
  responseMediaType: 'text/html; charset=utf-8',
  response: z.string(),
  errors: [],
  example: {
    query: {
      response_type: 'code',
      client_id: EXAMPLE_CLIENT,
      redirect_uri: 'https://quest.example/connected',
      state: 'af0ifjsldkj',
      scope: 'play read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    },
  },
});

const scopeView = z.object({ scope: z.enum(SCOPE_NAMES), description: z.string() });

export const getConnectRequestContract = defineContract({
  operationId: 'getConnectRequest',
  method: 'GET',
  path: '/oauth/requests',
  tags: TAGS,
  summary: 'What a connect request asks (the connect page reads it)',
  description:
    'The game, its client and the asked scopes in plain words, for the connect page to show before the player ' +
    'approves. 400 for an unknown client, a redirect URI it did not register, or an unknown scope.',
  auth: [],
  query: z.object({ clientId, redirectUri: text(2000), scope: text(256) }),
  response: dataEnvelope(
    z.object({
      client: z.object({ clientId: z.string(), name: z.string(), origins: z.array(z.string()) }),
      game: z.object({
        id: z.uuid(),
        name: z.string(),
        imageUrl: z.nullable(z.string()),
        gameUrl: z.string(),
        domainVerified: described(
          z.boolean(),
          "Whether someone proved the game's domain (games: claim-ownership)",
        ),
      }),
      redirectUri: z.string(),
      scopes: z.array(scopeView),
    }),
  ),
  errors: ['NOT_FOUND'],
  example: {
    query: { clientId: EXAMPLE_CLIENT, redirectUri: 'https://quest.example/connected', scope: 'play read' },
  },
});

export const approveConnectContract = defineContract({
  operationId: 'approveConnect',
  method: 'POST',
  path: '/oauth/consent',
  tags: TAGS,
  summary: 'Approve a connect request (the connect page, with the player’s identity token)',
  description:
    "The player's approval, on the platform's connect page only (the player's identity-provider token; any " +
    "game-scoped token is 403). Creates the player's grant to the client's game with the asked scopes " +
    '(replacing an earlier grant to the game, whose tokens stop working) and its spending limit (the daily ' +
    "allowance of the game's purchases; none by default), and a single-use code, redeemable for 60 s by the " +
    'same client, at the same redirect URI, with the verifier of the challenge. `redirectTo` is the redirect ' +
    'URI with `code` and `state`.',
  auth: PLAYER,
  body: z.object({
    clientId,
    redirectUri: text(2000),
    scope: text(256),
    state: optionalText(512),
    codeChallenge: text(128),
    codeChallengeMethod: z.literal('S256'),
    spendingLimitLamportsPerDay: z.optional(
      z.nullable(described(lamports, 'Lamports a UTC day the game may spend on multipliers; null: nothing')),
    ),
  }),
  response: dataEnvelope(
    z.object({
      code: z.string(),
      state: z.nullable(z.string()),
      redirectTo: z.string(),
      origins: described(
        z.array(z.string()),
        "The client's origins (the popup posts the result to these only)",
      ),
      expiresInSeconds: z.number(),
    }),
  ),
  errors: ['NOT_FOUND'],
  rateLimit: { limit: 30, windowSeconds: 60, key: 'user' },
  example: {
    body: {
      clientId: EXAMPLE_CLIENT,
      redirectUri: 'https://quest.example/connected',
      scope: 'play read multipliers:buy',
      state: 'af0ifjsldkj',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
      spendingLimitLamportsPerDay: '20000000',
    },
  },
});

export const oauthTokenContract = defineContract({
  operationId: 'oauthToken',
  method: 'POST',
  path: '/oauth/token',
  tags: TAGS,
  summary: 'Exchange a code or a refresh token (token endpoint)',
  description:
    'RFC 6749 §4.1.3 and §6, form-encoded, public clients (`client_id`, no secret). `authorization_code`: the ' +
    'code, `redirect_uri`, `client_id` and `code_verifier` (PKCE S256). `refresh_token`: the refresh token and ' +
    `\`client_id\`. Answers an access token for ${ACCESS_TOKEN_TTL_SECONDS} s (a JWT naming the player, the ` +
    'game, the scopes and the grant) and a new refresh token (the old one is spent). A code used twice, or a ' +
    'refresh token used after its successor was issued, revokes the grant. Errors are OAuth errors ' +
    '(`{error, error_description}`, 400), as OAuth clients expect; a malformed form is the usual 400.',
  auth: [],
  body: z.object({
    grant_type: optionalText(64),
    code: optionalText(128),
    redirect_uri: optionalText(2000),
    client_id: optionalText(64),
    code_verifier: optionalText(128),
    refresh_token: optionalText(256),
  }),
  bodyMediaTypes: ['application/x-www-form-urlencoded'],
  alsoAnswers: [{ status: 400, description: 'An OAuth error: `{error, error_description}` (RFC 6749 §5.2)' }],
  response: z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number(),
    refresh_token: z.string(),
    scope: z.string(),
    game_id: z.uuid(),
  }),
  rateLimit: { limit: 60, windowSeconds: 60, key: 'ip' },
  errors: [],
  example: {
    body: {
      grant_type: 'authorization_code',
      code: 'SplxlOBeZQQYbYS6WxSbIA5xRvqNLaJQqWkA1pLmlV8',
      redirect_uri: 'https://quest.example/connected',
      client_id: EXAMPLE_CLIENT,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    },
  },
});

const connectionSchema = withMeta(
  z.object({
    gameId,
    gameName: z.nullable(z.string()),
    imageUrl: z.nullable(z.string()),
    clientId: z.string(),
    grantId: z.uuid(),
    scopes: z.array(scopeView),
    spendingLimitLamportsPerDay: z.nullable(lamports),
    connectedAt: z.string(),
  }),
  {
    id: 'Connection',
    examples: [
      {
        gameId: EXAMPLE_GAME,
        gameName: 'Quickstart Quest',
        imageUrl: 'https://images.example/games/quest.png',
        clientId: EXAMPLE_CLIENT,
        grantId: '9d2f7a1c-3b4e-4c5d-8e6f-7a8b9c0d1e2f',
        scopes: [{ scope: 'play', description: 'Play: open sessions and save your points in this game' }],
        spendingLimitLamportsPerDay: '20000000',
        connectedAt: '2026-12-02T10:00:00.000Z',
      },
    ],
  },
);

export const listConnectionsContract = defineContract({
  operationId: 'listConnections',
  method: 'GET',
  path: '/user/connections',
  tags: TAGS,
  summary: 'Games I connected',
  description:
    "The player's active grants (the player's own identity token only): each game, what it may do, and its " +
    'daily spending limit.',
  auth: PLAYER,
  response: dataEnvelope(z.array(connectionSchema)),
  errors: [],
});

export const revokeConnectionContract = defineContract({
  operationId: 'revokeConnection',
  method: 'DELETE',
  path: '/user/connections/{gameId}',
  tags: TAGS,
  summary: 'Disconnect a game',
  description:
    'Revokes the grant (and its spending limit): its refresh token stops working at once, and so do its access ' +
    'tokens (every use reads the grant). Play sessions it already opened may keep saving points until they end ' +
    '(at most 2 h) but can buy nothing. 404 when the game is not connected.',
  auth: PLAYER,
  params: z.object({ gameId }),
  response: dataEnvelope(z.object({ gameId: z.uuid(), revoked: z.boolean() })),
  errors: ['NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});
