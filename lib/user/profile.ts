import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { getApiKeyRecord, setStrictSigning } from './repository.js';
import { profileWithFirstKey, requireUser } from './service.js';
import { loadWallet } from './wallet.js';

/** GET /user/me as the API shows it; the embedded wallet as the identity provider has it now. */
export const getMe = async (auth: AuthContext) => {
  // The wallet first: its read may write (the mirrored address), and a failure after the first API key's secret
  // was issued would lose the only answer that shows it.
  const wallet = await loadWallet(auth.userId, { fresh: true });
  const { user, secretKey } = await profileWithFirstKey(auth);
  // A key created by this call is not strict yet; otherwise its record says (one GetItem).
  const strictSigning =
    !secretKey && user.apiKey ? ((await getApiKeyRecord(user.apiKey))?.strictSigning ?? false) : false;
  return {
    arcId: user.arcId,
    subject: user.subject ?? null,
    apiKey: user.apiKey ?? null,
    identifiers: user.identifiers,
    walletAddress: wallet?.address ?? null,
    walletDelegated: wallet?.delegated ?? false,
    strictSigning,
    createdAt: user.createdAt,
    ...(secretKey ? { secretKey } : {}),
  };
};

/**
 * PATCH /user/me: the caller's settings, with its identity-provider token only (so that a leaked secret cannot
 * turn strict signing off). Answers the profile as GET /user/me does.
 */
export const updateMe = async (auth: AuthContext, input: { strictSigning: boolean }) => {
  const user = await requireUser(auth.userId);
  if (!user.apiKey)
    throw new AppError('NOT_FOUND', 'No API key yet: call GET /user/me with your identity token first');
  await setStrictSigning(user.apiKey, user.arcId, input.strictSigning, new Date().toISOString());
  return getMe(auth);
};

/** GET /user/me/stats: every counter, 0 when nothing happened yet. */
export const getMyStats = async (auth: AuthContext) => {
  const user = await requireUser(auth.userId);
  return {
    gamesRegistered: user.stats.gamesRegistered ?? 0,
    pointsSaved: user.stats.pointsSaved ?? 0,
    gameCoinsLaunched: user.stats.gameCoinsLaunched ?? 0,
  };
};
