import type { Authenticator } from '../core/auth.js';
import { ensureUserForSubject } from '../user/index.js';
import { bearerTokenOf, idpConfigFromEnv, verifyIdpToken } from './idp-token.js';

/**
 * Identity-provider bearer tokens: verified against the provider's JWKS, then mapped to the Arc
 * user of the token's subject, created on first sight (the provider vouches for it).
 */
export const bearerAuthenticator: Authenticator = async (request) => {
  const { subject } = await verifyIdpToken(bearerTokenOf(request.headers), idpConfigFromEnv());
  const arcId = await ensureUserForSubject(subject);
  return { scheme: 'bearer', userId: arcId, subject };
};
