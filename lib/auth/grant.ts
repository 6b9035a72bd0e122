import { activeGrantOf, verifyAccessToken } from '../connect/index.js';
import type { Authenticator } from '../core/auth.js';
import { bearerTokenOf } from './idp-token.js';

/**
 * A grant's access token (docs/connect.md): its signature and expiry, then the grant itself, read on every use, so
 * that a revoked or replaced grant stops its tokens at once. Answers the player, the game and the scopes.
 */
export const grantAuthenticator: Authenticator = async (request) => {
  const claims = await verifyAccessToken(bearerTokenOf(request.headers));
  const grant = await activeGrantOf(claims.arcId, claims.gameId, claims.grantId);
  return {
    scheme: 'grant',
    userId: grant.arcId,
    gameId: grant.gameId,
    grantId: grant.grantId,
    scopes: claims.scopes.filter((scope) => grant.scopes.includes(scope)),
  };
};
