import { randomBytes, randomUUID } from 'node:crypto';
import { isConditionFailure } from '../adapters/dynamodb.js';
import { sealSecret } from '../adapters/secrets.js';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import type { User } from './model.js';
import { createUser, getIdentifierOwners, getUser, issueApiKey, replaceSecret } from './repository.js';

const now = () => new Date().toISOString();

/** A new secret key: 32 random bytes, base64url, with a recognisable prefix for secret scanners. */
export const newSecretKey = (): string => `arc_sk_${randomBytes(32).toString('base64url')}`;

/**
 * Arc ID of the user behind an identity-provider subject, creating the user on first sight. Its embedded wallet
 * is the provider's (wallet.ts): nothing of it is stored here.
 */
export const ensureUserForSubject = async (subject: string): Promise<string> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = (await getIdentifierOwners([subject])).get(subject);
    if (existing) return existing;
    const arcId = randomUUID();
    try {
      await createUser({ arcId, subject, identifiers: [subject], now: now() });
      return arcId;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error('Could not settle the user of a subject');
};

/** The caller's user record; 401 if it vanished. */
export const requireUser = async (arcId: string): Promise<User> => {
  const user = await getUser(arcId);
  if (!user) throw new AppError('UNAUTHORIZED', 'Unknown user');
  return user;
};

/** The caller's API key (what a verification meta tag carries), whichever scheme the request came with. */
export const apiKeyOf = async (auth: AuthContext): Promise<string | undefined> =>
  auth.apiKey ?? (await requireUser(auth.userId)).apiKey;

export interface Me {
  user: User;
  /** Present only when this call created the API key: the secret is shown once. */
  secretKey?: string;
}

/**
 * The caller's profile. The first call with an identity-provider token is what the dashboard does: it creates
 * the API key and returns its secret, once.
 */
export const profileWithFirstKey = async (auth: AuthContext): Promise<Me> => {
  const user = await requireUser(auth.userId);
  if (user.apiKey || auth.scheme !== 'bearer') return { user };
  const apiKey = randomUUID();
  const secretKey = newSecretKey();
  try {
    await issueApiKey(user.arcId, apiKey, sealSecret(secretKey), now());
  } catch (error) {
    // A concurrent first call issued the key: its caller got the secret; this one sees the key only.
    if (isConditionFailure(error)) return { user: await requireUser(auth.userId) };
    throw error;
  }
  return { user: { ...user, apiKey }, secretKey };
};

/** Replace the caller's secret key; the old one stops working immediately. */
export const resetSecret = async (auth: AuthContext): Promise<{ apiKey: string; secretKey: string }> => {
  const user = await requireUser(auth.userId);
  if (!user.apiKey)
    throw new AppError('NOT_FOUND', 'No API key yet: call GET /user/me with your identity token first');
  const secretKey = newSecretKey();
  await replaceSecret(user.apiKey, user.arcId, sealSecret(secretKey), now());
  return { apiKey: user.apiKey, secretKey };
};
