// Identity-provider bearer tokens: ES256 JWTs verified against the provider's JWKS.
import { createRemoteJWKSet, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from 'jose';
import { settings } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { isDid } from '../user/index.js';

export interface IdpConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

export interface VerifiedIdpToken {
  /** `did:<idp>:<id>` */
  subject: string;
  claims: Record<string, unknown>;
}

/** Tokens larger than this are refused before any parsing. */
export const MAX_BEARER_TOKEN_BYTES = 8 * 1024;
const CLOCK_TOLERANCE_SECONDS = 5;
const INVALID_TOKEN_MESSAGE = 'Invalid or expired bearer token';

const unauthorized = (reason: string) =>
  new AppError('UNAUTHORIZED', INVALID_TOKEN_MESSAGE, [{ path: 'authorization', message: reason }]);

// One remote key set per JWKS URL for the life of the container: jose caches the keys and refetches on an
// unknown kid (at most once per cooldown), so a key rotation at the provider needs no redeploy.
const keySets = new Map<string, JWTVerifyGetKey>();

const keySetFor = (jwksUrl: string): JWTVerifyGetKey => {
  let keySet = keySets.get(jwksUrl);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 3000 });
    keySets.set(jwksUrl, keySet);
  }
  return keySet;
};

/** A short, public reason for a rejected token; never jose's full message, never the token. */
const reasonFor = (error: unknown): string => {
  if (error instanceof joseErrors.JWTExpired) return 'token expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'token not yet valid';
    return error.reason === 'missing' ? `${error.claim} claim missing` : `invalid ${error.claim} claim`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'signing algorithm not allowed';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'unknown signing key';
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys) return 'ambiguous signing key';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'signature verification failed';
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid)
    return 'malformed token';
  if (error instanceof joseErrors.JOSENotSupported) return 'unsupported token';
  return 'token could not be verified';
};

/** Verify an identity-provider JWT: ES256 only, iss/aud/exp/nbf checked, key from the remote JWKS (cached per container). */
export const verifyIdpToken = async (token: string, config: IdpConfig): Promise<VerifiedIdpToken> => {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_BEARER_TOKEN_BYTES) {
    throw unauthorized('malformed token');
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keySetFor(config.jwksUrl), {
      algorithms: ['ES256'],
      issuer: config.issuer,
      audience: config.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['sub', 'exp'],
    }));
  } catch (error) {
    const reason = reasonFor(error);
    // An unreachable or broken JWKS is our problem, not the caller's: make it visible in the logs.
    if (
      error instanceof joseErrors.JWKSTimeout ||
      error instanceof joseErrors.JWKSInvalid ||
      reason === 'token could not be verified'
    ) {
      logger.warn('identity-provider token verification failed', {
        jwksUrl: config.jwksUrl,
        errorName: error instanceof Error ? error.name : typeof error,
        errorCode: (error as { code?: unknown })?.code,
      });
    }
    throw unauthorized(reason);
  }
  const subject = payload.sub;
  if (typeof subject !== 'string' || !isDid(subject)) throw unauthorized('subject is not did:<idp>:<id>');
  return { subject, claims: payload };
};

let envConfig: IdpConfig | undefined;

/** The identity-provider settings from IDP_ISSUER, IDP_AUDIENCE and IDP_JWKS_URL, parsed once; throws when missing. */
export const idpConfigFromEnv = (): IdpConfig => {
  envConfig ??= {
    issuer: settings().IDP_ISSUER,
    audience: settings().IDP_AUDIENCE,
    jwksUrl: settings().IDP_JWKS_URL,
  };
  return envConfig;
};

const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, one token, ≤ 8 KB); else 401. */
export const bearerTokenOf = (headers: Record<string, string | undefined> | null | undefined): string => {
  const entry = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization');
  const value = entry?.[1];
  if (!value) throw new AppError('UNAUTHORIZED', 'Missing bearer token');
  if (value.length > MAX_BEARER_TOKEN_BYTES + 16) throw unauthorized('token too large');
  const match = BEARER.exec(value);
  const token = match?.[1];
  if (!token) throw new AppError('UNAUTHORIZED', 'Authorization header must be "Bearer <token>"');
  if (token.length > MAX_BEARER_TOKEN_BYTES) throw unauthorized('token too large');
  return token;
};
