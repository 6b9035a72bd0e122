import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import * as z from 'zod/mini';
import { safeFetch } from '../adapters/safe-fetch.js';
import type { Authenticator } from '../core/auth.js';
import { settings } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { getGame } from '../games/index.js';
import { verifySessionToken } from '../play/index.js';
import { ensureUserForSubject, gameSubjectPrefix } from '../user/index.js';
import { bearerTokenOf, idpConfigFromEnv, verifyIdpToken } from './idp-token.js';

/** Session-token callers (the client SDK after GET /play/session-token). */
export const sessionAuthenticator: Authenticator = async (request) => {
  const claims = await verifySessionToken(bearerTokenOf(request.headers));
  return {
    scheme: 'session',
    userId: claims.arcId,
    sessionId: claims.sessionId,
    gameId: claims.gameId,
    scopes: claims.scopes,
    ...(claims.grantId ? { grantId: claims.grantId } : {}),
  };
};

const JWKS_TTL_MS = 10 * 60 * 1000;
const jwksCache = new Map<string, { keys: ReturnType<typeof createLocalJWKSet>; at: number }>();
const allowLoopback = () => settings().SAFE_FETCH_ALLOW_LOOPBACK === 'true';

/** The game's JWKS, fetched SSRF-safely (public addresses, 1 MB, 5 s) and cached for ten minutes. */
const gameKeys = async (jwksUrl: string) => {
  const hit = jwksCache.get(jwksUrl);
  if (hit && Date.now() - hit.at < JWKS_TTL_MS) return hit.keys;
  const res = await safeFetch(jwksUrl, {
    allowLoopback: allowLoopback(),
    accept: 'application/json',
    maxBytes: 256 * 1024,
  });
  if (res.status !== 200 || res.truncated) throw new Error(`JWKS answered ${res.status}`);
  const keys = createLocalJWKSet(JSON.parse(res.body.toString('utf8')) as JSONWebKeySet);
  jwksCache.set(jwksUrl, { keys, at: Date.now() });
  return keys;
};

/** The subject under which a game's own players are known: `did:game<gameId hex>:<sub>`. */
export const gamePlayerSubject = (gameId: string, sub: string) => `${gameSubjectPrefix(gameId)}${sub}`;

const invalid = () => new AppError('UNAUTHORIZED', 'Invalid or expired player token');

/**
 * GET /play/session-token: the player proves who they are with a platform identity token, or with a token of
 * the game's own auth verified against the game's jwksUrl (RS256, ES256 or EdDSA; `aud` must be the game id).
 */
export const playerAuthenticator: Authenticator = async (request) => {
  const token = bearerTokenOf(request.headers);
  const config = idpConfigFromEnv();
  let issuer: unknown;
  try {
    issuer = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).iss;
  } catch {
    throw invalid();
  }
  if (issuer === config.issuer) {
    const { subject } = await verifyIdpToken(token, config);
    return { scheme: 'bearer', userId: await ensureUserForSubject(subject), subject };
  }
  const gameId = z.uuid().safeParse(request.query.gameId);
  if (!gameId.success) throw invalid();
  const game = await getGame(gameId.data);
  if (!game?.jwksUrl) throw invalid();
  let sub: string;
  try {
    const { payload } = await jwtVerify(token, await gameKeys(game.jwksUrl), {
      algorithms: ['RS256', 'ES256', 'EdDSA'],
      audience: game.id,
      clockTolerance: 5,
      requiredClaims: ['sub', 'exp'],
    });
    sub = z
      .string()
      .check(z.regex(/^[A-Za-z0-9._:-]{1,128}$/))
      .parse(payload.sub);
  } catch {
    throw invalid();
  }
  const subject = gamePlayerSubject(game.id, sub);
  return { scheme: 'bearer', userId: await ensureUserForSubject(subject), subject, gameId: game.id };
};
