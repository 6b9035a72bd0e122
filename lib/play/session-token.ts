import { jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { derivedKey } from '../adapters/secrets.js';
import { AppError } from '../core/errors.js';

const ISSUER = 'arcadia';
const AUDIENCE = 'arcadia-play';

// The signing key is derived from the secrets key, so deployments configure one secret, not two.
const signingKey = () => new Uint8Array(derivedKey('arcadia play session token v1'));

export interface SessionClaims {
  arcId: string;
  sessionId: string;
  gameId: string;
}

/** A short-lived service-signed JWT (HS256) naming one play session. */
export const issueSessionToken = async (claims: SessionClaims, expiresAt: Date): Promise<string> =>
  new SignJWT({ sid: claims.sessionId, gid: claims.gameId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.arcId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(signingKey());

const claimsSchema = z.object({ sub: z.uuid(), sid: z.uuid(), gid: z.uuid() });

/** Verify a session token (HS256 only, issuer, audience, expiry); any failure is a 401. */
export const verifySessionToken = async (token: string): Promise<SessionClaims> => {
  try {
    const { payload } = await jwtVerify(token, signingKey(), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    const claims = claimsSchema.parse(payload);
    return { arcId: claims.sub, sessionId: claims.sid, gameId: claims.gid };
  } catch {
    throw new AppError('UNAUTHORIZED', 'Invalid or expired session token');
  }
};
