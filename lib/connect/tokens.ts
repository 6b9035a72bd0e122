// The credentials a grant issues (docs/connect.md): single-use codes, short-lived access tokens (HS256 JWTs naming
// the player, the game, the scopes and the grant) and rotating refresh tokens whose MAC lets any generation be
// recognised without storing it, so that a replayed one is told from a forged one before it revokes anything.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { derivedKey } from '../adapters/secrets.js';
import { AppError } from '../core/errors.js';
import { GAME_TOKEN_ISSUER, GRANT_TOKEN_AUDIENCE, REFRESH_TOKEN_PREFIX } from '../core/game-tokens.js';
import { isScope, type Scope } from '../core/scopes.js';
import { ACCESS_TOKEN_TTL_SECONDS } from './model.js';

const accessKey = () => new Uint8Array(derivedKey('arcadia connect access token v1'));
const refreshKey = () => derivedKey('arcadia connect refresh token v1');

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** A fresh authorization code: 256 random bits. */
export const newCode = (): string => base64url(randomBytes(32));

/** What a code is stored under: its sha256 (a leaked table holds no redeemable code). */
export const codeHash = (code: string): string => createHash('sha256').update(code).digest('hex');

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))) compared in constant time. */
export const pkceMatches = (verifier: string, challenge: string): boolean => {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
};

export interface AccessClaims {
  arcId: string;
  gameId: string;
  grantId: string;
  clientId: string;
  scopes: Scope[];
}

/** A grant's access token: an HS256 JWT for ACCESS_TOKEN_TTL_SECONDS. */
export const issueAccessToken = (claims: AccessClaims, now: Date): Promise<string> =>
  new SignJWT({
    gid: claims.gameId,
    gnt: claims.grantId,
    cid: claims.clientId,
    scope: claims.scopes.join(' '),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(GAME_TOKEN_ISSUER)
    .setAudience(GRANT_TOKEN_AUDIENCE)
    .setSubject(claims.arcId)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(now.getTime() / 1000) + ACCESS_TOKEN_TTL_SECONDS)
    .sign(accessKey());

const accessSchema = z.object({
  sub: z.uuid(),
  gid: z.uuid(),
  gnt: z.uuid(),
  cid: z.string().check(z.maxLength(64)),
  scope: z.string().check(z.maxLength(256)),
});

const invalidToken = () => new AppError('UNAUTHORIZED', 'Invalid or expired access token');

/** Verify an access token's signature, issuer, audience and expiry (the grant itself is checked by the caller). */
export const verifyAccessToken = async (token: string): Promise<AccessClaims> => {
  try {
    const { payload } = await jwtVerify(token, accessKey(), {
      algorithms: ['HS256'],
      issuer: GAME_TOKEN_ISSUER,
      audience: GRANT_TOKEN_AUDIENCE,
      clockTolerance: 5,
    });
    const claims = accessSchema.parse(payload);
    return {
      arcId: claims.sub,
      gameId: claims.gid,
      grantId: claims.gnt,
      clientId: claims.cid,
      scopes: claims.scope.split(' ').filter(isScope),
    };
  } catch {
    throw invalidToken();
  }
};

const refreshMac = (arcId: string, gameId: string, grantId: string, gen: number) =>
  createHmac('sha256', refreshKey()).update(`${arcId}.${gameId}.${grantId}.${gen}`).digest();

/** The refresh token of a grant's generation `gen`: `art_<arcId>.<gameId>.<gen>.<mac>`. */
export const refreshTokenOf = (arcId: string, gameId: string, grantId: string, gen: number): string =>
  `${REFRESH_TOKEN_PREFIX}${arcId}.${gameId}.${gen}.${base64url(refreshMac(arcId, gameId, grantId, gen))}`;

export interface ParsedRefreshToken {
  arcId: string;
  gameId: string;
  gen: number;
  mac: Buffer;
}

const REFRESH = /^art_([0-9a-f-]{36})\.([0-9a-f-]{36})\.(\d{1,9})\.([A-Za-z0-9_-]{43})$/;

/** The parts of a refresh token, or undefined when it isn't one. */
export const parseRefreshToken = (token: string): ParsedRefreshToken | undefined => {
  const match = REFRESH.exec(token);
  if (!match) return undefined;
  const [, arcId = '', gameId = '', gen = '', mac = ''] = match;
  return { arcId, gameId, gen: Number(gen), mac: Buffer.from(mac, 'base64url') };
};

/** Whether the token was issued for this grant (any generation): a replay, not a forgery, when it is old. */
export const refreshTokenIsGenuine = (token: ParsedRefreshToken, grantId: string): boolean => {
  const expected = refreshMac(token.arcId, token.gameId, grantId, token.gen);
  return expected.length === token.mac.length && timingSafeEqual(expected, token.mac);
};
