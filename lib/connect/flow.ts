// The authorization code flow with PKCE (docs/connect.md; RFC 6749 §4.1, RFC 7636, RFC 9700): the authorization
// request checked and sent on to the platform's connect page, the player's approval (a grant and a single-use code
// bound to the client, the redirect URI and the challenge), and the token endpoint (code or refresh token in,
// access and rotated refresh token out; a replayed code or refresh token revokes its grant).
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../core/auth.js';
import { settings } from '../core/config.js';
import { errors } from '../core/errors.js';
import { isScope, SCOPES, type Scope } from '../core/scopes.js';
import { requireGame } from '../games/index.js';
import { allowanceSetWrite, MAX_ALLOWANCE_LAMPORTS } from '../rewards/index.js';
import { codeWrite, getCode, useCode } from './codes.js';
import { getGrant } from './grant-reads.js';
import { ACCESS_TOKEN_TTL_SECONDS, CODE_TTL_MS, type Grant, type OAuthClient } from './model.js';
import * as repo from './repository.js';
import {
  codeHash,
  issueAccessToken,
  newCode,
  parseRefreshToken,
  pkceMatches,
  refreshTokenIsGenuine,
  refreshTokenOf,
} from './tokens.js';

/** An error the OAuth way (RFC 6749 §5.2): the token endpoint answers `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'invalid_client' | 'unsupported_grant_type',
    readonly description: string,
  ) {
    super(description);
  }
}

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]; a challenge (S256) is 43 base64url. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The scopes a request asks, space-separated (RFC 6749 §3.3): each known, none twice; else undefined. */
export const parseScopes = (value: string | undefined): Scope[] | undefined => {
  const names = (value ?? '').split(' ').filter(Boolean);
  if (names.length === 0 || !names.every(isScope)) return undefined;
  return [...new Set(names)] as Scope[];
};

/** Why the pair can't be used (an unknown client, a redirect URI it didn't register), or the client. */
const clientFor = async (clientId: string | undefined, redirectUri: string | undefined) => {
  const client = clientId ? await repo.getClient(clientId) : undefined;
  if (!client) return { problem: 'Unknown client_id: the game has no such client registered' } as const;
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return { problem: "redirect_uri is not one of the client's registered redirect URIs" } as const;
  return { client } as const;
};

export interface AuthorizeQuery {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  state?: string | undefined;
  scope?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  response_mode?: string | undefined;
}

export type AuthorizeOutcome = { kind: 'refuse'; message: string } | { kind: 'redirect'; location: string };

const withParams = (base: string, params: Record<string, string | undefined>) => {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
};

/**
 * GET /oauth/authorize: an unknown client or an unregistered redirect URI is refused on the page itself (never
 * redirected to: no open redirect); other errors go back to the registered redirect URI (RFC 6749 §4.1.2.1); a
 * valid request goes on to the platform's connect page with its parameters.
 */
export const authorizeRequest = async (query: AuthorizeQuery): Promise<AuthorizeOutcome> => {
  const found = await clientFor(query.client_id, query.redirect_uri);
  if ('problem' in found) return { kind: 'refuse', message: found.problem ?? '' };
  const back = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: withParams(query.redirect_uri ?? '', {
      error,
      error_description: description,
      state: query.state,
    }),
  });
  if (query.response_type !== 'code')
    return back('unsupported_response_type', 'Only response_type=code (with PKCE) is supported');
  if (query.code_challenge_method !== 'S256' || !CHALLENGE.test(query.code_challenge ?? ''))
    return back(
      'invalid_request',
      'PKCE is required: code_challenge (S256, 43 characters) and code_challenge_method=S256',
    );
  if (!parseScopes(query.scope))
    return back('invalid_scope', `scope: space-separated, of ${Object.keys(SCOPES).join(' ')}`);
  const page = settings().CONNECT_PAGE_URL;
  if (!page) throw new Error('CONNECT_PAGE_URL is not configured: the connect page has no address');
  // The page routes by the URL's fragment (the console's hash router): the request's parameters go after it.
  const params = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return { kind: 'redirect', location: `${page}?${params.toString()}` };
};

const requestProblem = (message: string, path: string) => errors.validation(message, [{ path, message }]);

/** What the connect page shows before the player approves: the game, the client, the scopes in plain words. */
export const connectRequest = async (query: { clientId: string; redirectUri: string; scope: string }) => {
  const found = await clientFor(query.clientId, query.redirectUri);
  if ('problem' in found) throw requestProblem(found.problem ?? '', 'redirectUri');
  const scopes = parseScopes(query.scope);
  if (!scopes) throw requestProblem(`scope: space-separated, of ${Object.keys(SCOPES).join(' ')}`, 'scope');
  const game = await requireGame(found.client.gameId);
  return {
    client: { clientId: found.client.clientId, name: found.client.name, origins: found.client.origins },
    game: {
      id: game.id,
      name: game.name,
      imageUrl: game.imageUrl,
      gameUrl: game.gameUrl,
      domainVerified: game.ownershipVerified,
    },
    redirectUri: query.redirectUri,
    scopes: scopes.map((scope) => ({ scope, description: SCOPES[scope] })),
  };
};

export interface ApproveInput {
  clientId: string;
  redirectUri: string;
  scope: string;
  state?: string | undefined;
  codeChallenge: string;
  codeChallengeMethod: 'S256';
  /** Lamports a UTC day the game may spend; null (the default) lets it spend nothing. */
  spendingLimitLamportsPerDay?: string | null | undefined;
}

/**
 * POST /oauth/consent (the player's identity token, on the connect page): a new grant to the client's game with
 * the approved scopes, replacing any earlier one (whose tokens stop working), the spending limit as the game's
 * daily allowance, and a single-use code for 60 s; answers where to send the browser.
 */
export const approveConnect = async (auth: AuthContext, input: ApproveInput, now: Date) => {
  const found = await clientFor(input.clientId, input.redirectUri);
  if ('problem' in found) throw requestProblem(found.problem ?? '', 'redirectUri');
  const scopes = parseScopes(input.scope);
  if (!scopes) throw requestProblem('scope: space-separated known scopes', 'scope');
  if (!CHALLENGE.test(input.codeChallenge))
    throw requestProblem('codeChallenge: 43 base64url characters (S256)', 'codeChallenge');
  const limit = input.spendingLimitLamportsPerDay ?? null;
  if (limit !== null && BigInt(limit) > MAX_ALLOWANCE_LAMPORTS)
    throw requestProblem(`at most ${MAX_ALLOWANCE_LAMPORTS} lamports a day`, 'spendingLimitLamportsPerDay');
  const client: OAuthClient = found.client;
  await requireGame(client.gameId);
  const at = now.toISOString();
  const grant: Grant = {
    arcId: auth.userId,
    gameId: client.gameId,
    grantId: randomUUID(),
    clientId: client.clientId,
    scopes,
    status: 'active',
    refreshGen: 0,
    createdAt: at,
    updatedAt: at,
  };
  const code = newCode();
  // Without the buying scope the game can't spend, whatever the limit: no allowance is kept for it.
  const lamportsPerDay = scopes.includes('multipliers:buy') && limit !== null ? Number(limit) : null;
  await repo.putGrantWithCode(
    grant,
    codeWrite(codeHash(code), {
      clientId: client.clientId,
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      arcId: grant.arcId,
      gameId: grant.gameId,
      grantId: grant.grantId,
      scopes,
      expiresAtMs: now.getTime() + CODE_TTL_MS,
    }),
    allowanceSetWrite(grant.arcId, grant.gameId, lamportsPerDay, at),
  );
  return {
    code,
    state: input.state ?? null,
    redirectTo: withParams(input.redirectUri, { code, state: input.state }),
    origins: client.origins,
    expiresInSeconds: CODE_TTL_MS / 1000,
  };
};

/** Revoke a grant and the spending limit it set (the player's choice, or a detected replay). */
export const revoke = (
  grant: Pick<Grant, 'arcId' | 'gameId' | 'grantId'>,
  reason: NonNullable<Grant['revokedReason']>,
  now: Date,
) =>
  repo.revokeGrant(
    grant,
    reason,
    now.toISOString(),
    allowanceSetWrite(grant.arcId, grant.gameId, null, now.toISOString()),
  );

export interface TokenForm {
  grant_type?: string | undefined;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  client_id?: string | undefined;
  code_verifier?: string | undefined;
  refresh_token?: string | undefined;
}

const tokensFor = async (grant: Grant, gen: number, now: Date) => ({
  access_token: await issueAccessToken(
    {
      arcId: grant.arcId,
      gameId: grant.gameId,
      grantId: grant.grantId,
      clientId: grant.clientId,
      scopes: grant.scopes,
    },
    now,
  ),
  token_type: 'Bearer' as const,
  expires_in: ACCESS_TOKEN_TTL_SECONDS,
  refresh_token: refreshTokenOf(grant.arcId, grant.gameId, grant.grantId, gen),
  scope: grant.scopes.join(' '),
  game_id: grant.gameId,
});

const invalidGrant = (why: string) => new OAuthError('invalid_grant', why);

/** grant_type=authorization_code: the code, by the client it was issued to, at its redirect URI, with the verifier. */
const redeemCode = async (form: TokenForm, now: Date) => {
  if (!form.code || !form.client_id || !form.redirect_uri || !form.code_verifier)
    throw new OAuthError('invalid_request', 'code, client_id, redirect_uri and code_verifier are required');
  if (!VERIFIER.test(form.code_verifier))
    throw new OAuthError('invalid_request', 'code_verifier: 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
  const hash = codeHash(form.code);
  const record = await getCode(hash);
  if (!record) throw invalidGrant('Unknown or expired code');
  // A code is bound to its client, its redirect URI and its challenge: none of these spends it.
  if (record.clientId !== form.client_id) throw invalidGrant('The code was issued to another client');
  if (record.redirectUri !== form.redirect_uri)
    throw invalidGrant('redirect_uri differs from the authorization request');
  if (!pkceMatches(form.code_verifier, record.codeChallenge))
    throw invalidGrant('code_verifier does not match the challenge');
  if (!(await useCode(hash, now.getTime()))) {
    // RFC 9700 §4.2.4 / RFC 6749 §4.1.2: a code used twice revokes what it issued.
    await revoke(record, 'code_replay', now);
    throw invalidGrant('The code was already used: the grant it issued is revoked');
  }
  if (now.getTime() > record.expiresAtMs) throw invalidGrant('The code expired');
  const grant = await getGrant(record.arcId, record.gameId);
  if (!grant || grant.grantId !== record.grantId || grant.status !== 'active')
    throw invalidGrant('The grant of this code was revoked or replaced');
  return tokensFor(grant, grant.refreshGen, now);
};

/** grant_type=refresh_token: the current refresh token rotates; an older one is a replay and revokes the grant. */
const refresh = async (form: TokenForm, now: Date) => {
  if (!form.refresh_token || !form.client_id)
    throw new OAuthError('invalid_request', 'refresh_token and client_id are required');
  const parsed = parseRefreshToken(form.refresh_token);
  if (!parsed) throw invalidGrant('Not a refresh token');
  const grant = await getGrant(parsed.arcId, parsed.gameId);
  if (!grant || !refreshTokenIsGenuine(parsed, grant.grantId))
    throw invalidGrant('Unknown refresh token, or its grant was replaced');
  if (grant.status !== 'active') throw invalidGrant('The grant was revoked');
  if (grant.clientId !== form.client_id) throw invalidGrant('The refresh token was issued to another client');
  if (!(await repo.getClient(grant.clientId)))
    throw new OAuthError('invalid_client', 'The client was removed');
  const rotated =
    parsed.gen === grant.refreshGen && (await repo.rotateRefresh(grant, parsed.gen, now.toISOString()));
  if (!rotated) {
    // RFC 9700 §4.14.2: a refresh token used after its successor was issued revokes the grant.
    await revoke(grant, 'refresh_replay', now);
    throw invalidGrant('The refresh token was already used: the grant is revoked');
  }
  return tokensFor(grant, parsed.gen + 1, now);
};

/** POST /oauth/token. */
export const exchangeToken = (form: TokenForm, now: Date) => {
  if (form.grant_type === 'authorization_code') return redeemCode(form, now);
  if (form.grant_type === 'refresh_token') return refresh(form, now);
  throw new OAuthError('unsupported_grant_type', 'grant_type: authorization_code or refresh_token');
};
