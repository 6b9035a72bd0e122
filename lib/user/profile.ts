import type { AuthContext } from '../core/auth.js';
import { profileWithFirstKey, requireUser } from './service.js';
import { loadWallet } from './wallet.js';

/** GET /user/me as the API shows it; the embedded wallet as the identity provider has it now. */
export const getMe = async (auth: AuthContext) => {
  // The wallet first: its read may write (the mirrored address), and a failure after the first API key's secret
  // was issued would lose the only answer that shows it.
  const wallet = await loadWallet(auth.userId, { fresh: true });
  const { user, secretKey } = await profileWithFirstKey(auth);
  return {
    arcId: user.arcId,
    subject: user.subject ?? null,
    apiKey: user.apiKey ?? null,
    identifiers: user.identifiers,
    walletAddress: wallet?.address ?? null,
    walletDelegated: wallet?.delegated ?? false,
    createdAt: user.createdAt,
    ...(secretKey ? { secretKey } : {}),
  };
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
