// The tokens Arcadia gives a game to act for one player in one game (docs/connect.md): play session tokens and a
// grant's access and refresh tokens. The HTTP layer tells them apart from the player's own identity token before
// verifying anything, so that a route they may not call answers 403 INSUFFICIENT_SCOPE instead of trying them as
// an identity token; the domains that issue them verify them.
import { decodeJwt } from 'jose';

export const GAME_TOKEN_ISSUER = 'arcadia';
/** `aud` of a play session token (lib/play/protocol/token.ts). */
export const SESSION_TOKEN_AUDIENCE = 'arcadia-play';
/** `aud` of a grant's access token (lib/connect/tokens.ts). */
export const GRANT_TOKEN_AUDIENCE = 'arcadia-connect';
/** A grant's refresh token starts with this: good at POST /oauth/token only. */
export const REFRESH_TOKEN_PREFIX = 'art_';

export type BearerKind = 'session' | 'grant' | 'refresh' | 'other';

/** What kind of bearer token this is, by its unverified claims (a forgery is still refused by its verifier). */
export const bearerKind = (token: string): BearerKind => {
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) return 'refresh';
  let claims: { iss?: unknown; aud?: unknown };
  try {
    claims = decodeJwt(token);
  } catch {
    return 'other';
  }
  if (claims.iss !== GAME_TOKEN_ISSUER) return 'other';
  if (claims.aud === SESSION_TOKEN_AUDIENCE) return 'session';
  if (claims.aud === GRANT_TOKEN_AUDIENCE) return 'grant';
  return 'other';
};
