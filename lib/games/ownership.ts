// Proving ownership of a game's domain: the verification meta tag fetched from the game page (SSRF-safe). Its own
// module, so that only claimGameOwnership bundles the URL fetching and HTML parsing.
import { type SafeFetchResult, UnsafeUrlError } from '../adapters/safe-fetch.js';
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { bump, saveChange } from './changes.js';
import { requireOwnedGame, toView } from './read.js';
import { hasVerificationTag } from './verification-tag.js';

export interface OwnershipDeps {
  fetchPage: (url: string) => Promise<SafeFetchResult>;
  now?: () => Date;
}

const fetchFailure = (reason: string) =>
  new AppError('VALIDATION_ERROR', `gameUrl could not be fetched for verification: ${reason}`, [
    { path: 'gameUrl', message: reason },
  ]);

/** Verify the caller's meta tag on the game page; on success the caller becomes the verified owner. */
export const claimOwnership = async (auth: AuthContext, id: string, deps: OwnershipDeps) => {
  const game = await requireOwnedGame(auth, id);
  if (!auth.apiKey)
    throw errors.forbidden('Ownership is proved with your API key: sign this request with HMAC');
  let page: SafeFetchResult;
  try {
    page = await deps.fetchPage(game.gameUrl);
  } catch (error) {
    throw fetchFailure(error instanceof UnsafeUrlError ? error.reason : 'the page did not answer');
  }
  if (page.status >= 400) throw fetchFailure(`the page answered HTTP ${page.status}`);
  if (!hasVerificationTag(page.body.toString('utf8'), auth.apiKey)) {
    throw errors.forbidden(
      `No <meta name="arcadia-verification" content="<your API key>"> found in the <head> of ${game.gameUrl}`,
    );
  }
  const next = { ...game, ownerId: auth.userId, ownershipVerified: true, ...bump(game, deps.now) };
  await saveChange(next, game);
  return toView(next);
};
