import { jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { derivedKey } from '../../adapters/secrets.js';
import { AppError } from '../../core/errors.js';
import { SESSION_TOKEN_AUDIENCE as AUDIENCE, GAME_TOKEN_ISSUER as ISSUER } from '../../core/game-tokens.js';
import { isScope, PLATFORM_SESSION_SCOPES, type Scope } from '../../core/scopes.js';

// The signing key is derived from the secrets key, so deployments configure one secret, not two.
const signingKey = () => new Uint8Array(derivedKey('arcadia play session token v1'));

export interface SessionClaims {
  arcId: string;
  sessionId: string;
  gameId: string;
  /** What the session may do: the scopes of the token that opened it (docs/connect.md). */
  scopes: readonly Scope[];
  /** The player's grant, when a grant's access token opened the session. */
  grantId?: string;
}

/** A short-lived service-signed JWT (HS256) naming one play session, its scopes and its grant. */
export const issueSessionToken = async (
  claims: Omit<SessionClaims, 'scopes'> & { scopes?: readonly Scope[] },
  expiresAt: Date,
): Promise<string> =>
  new SignJWT({
    sid: claims.sessionId,
    gid: claims.gameId,
    scp: [...(claims.scopes ?? PLATFORM_SESSION_SCOPES)],
    ...(claims.grantId ? { gnt: claims.grantId } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.arcId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(signingKey());

const claimsSchema = z.object({
  sub: z.uuid(),
  sid: z.uuid(),
  gid: z.uuid(),
  scp: z.optional(z.array(z.string()).check(z.maxLength(16))),
  gnt: z.optional(z.uuid()),
});

/** Verify a session token (HS256 only, issuer, audience, expiry); any failure is a 401. */
export const verifySessionToken = async (token: string): Promise<SessionClaims> => {
  try {
    const { payload } = await jwtVerify(token, signingKey(), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    const claims = claimsSchema.parse(payload);
    return {
      arcId: claims.sub,
      sessionId: claims.sid,
      gameId: claims.gid,
      // Tokens issued before scopes existed were opened with the player's identity token.
      scopes: claims.scp ? claims.scp.filter(isScope) : PLATFORM_SESSION_SCOPES,
      ...(claims.gnt ? { grantId: claims.gnt } : {}),
    };
  } catch {
    throw new AppError('UNAUTHORIZED', 'Invalid or expired session token');
  }
};
