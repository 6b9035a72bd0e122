// Proving ownership of a game's domain: the verification meta tag fetched from the game page (SSRF-safe). Its own
// module, so that only claimGameOwnership bundles the URL fetching and HTML parsing.
import { isConditionFailure, type TransactItem } from '../adapters/dynamodb.js';
import { CrossOriginRedirectError, type SafeFetchResult, UnsafeUrlError } from '../adapters/safe-fetch.js';
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { outboxItem } from '../outbox/index.js';
import { apiKeyOf } from '../user/index.js';
import { bump } from './changes.js';
import { controllerOf, type GameRecord, sameOrigin } from './model.js';
import { requireGame, toView } from './read.js';
import * as repo from './repository.js';
import { hasVerificationTag } from './verification-tag.js';

/** What a change of control does beyond the game (the webhooks domain's part): writes for the same transaction. */
export interface ControlChange {
  writes: TransactItem[];
  /** The endpoints those writes disable (the previous controller's), named in the event. */
  disabledEndpointIds: string[];
}

export interface OwnershipDeps {
  /** GETs the page; redirects must stay on its origin (htmlPageFetcher). */
  fetchPage: (url: string) => Promise<SafeFetchResult>;
  /** The writes that take the game's webhook endpoints from a previous controller (lib/webhooks). */
  controlChange?: (gameId: string, newControllerId: string, at: Date) => Promise<ControlChange>;
  now?: () => Date;
}

/** A proof served by another origin than the game's (a redirect away from it) proves nothing about the game. */
const otherOrigin = (proved: string, servedBy: string) =>
  errors.forbidden(
    `The page at ${proved} redirected to another origin (${new URL(servedBy).origin}): the verification tag ` +
      "must be served by the game's own origin",
  );

const fetchFailure = (reason: string) =>
  new AppError('VALIDATION_ERROR', `gameUrl could not be fetched for verification: ${reason}`, [
    { path: 'gameUrl', message: reason },
  ]);

/** Writes of a game read again when a concurrent change got in between the proof and its record. */
const MAX_ATTEMPTS = 4;

/**
 * The game once `arcId` has proved its origin: the verified owner. Another user's proof takes the ownership
 * from the previous owner, and the requested split, which was the previous controller's choice, is dropped:
 * the effective split is all to the new owner until they request one.
 */
const provedBy = (game: GameRecord, arcId: string, now?: () => Date): GameRecord => ({
  ...game,
  ownerId: arcId,
  ownershipVerified: true,
  ...(arcId === controllerOf(game) ? {} : { requestedOrgRewardsSplit: {} }),
  ...bump(game, now),
});

/**
 * Verify the caller's meta tag on the game page, served by the game's own origin (a redirect to another origin
 * proves nothing: 403); on success the caller becomes the verified owner, whoever created the game or owned it
 * before (the last valid proof wins, so a change of control is undone by the previous controller's proof). A change
 * of control is an `ownership.verified` event naming the previous owner and controller, and disables the previous
 * controller's webhook endpoints. The write is conditional on the version read and is retried on the game as it is
 * now, as long as its gameUrl is still on the origin the page proved.
 */
export const claimOwnership = async (auth: AuthContext, id: string, deps: OwnershipDeps) => {
  // A bearer caller proves it with the API key of its user, as an HMAC caller does with the key it signs with.
  const apiKey = await apiKeyOf(auth);
  if (!apiKey)
    throw errors.forbidden('Ownership is proved with your API key: call GET /user/me first to create it');
  let game = await requireGame(id);
  const proved = game.gameUrl;
  let page: SafeFetchResult;
  try {
    page = await deps.fetchPage(proved);
  } catch (error) {
    if (error instanceof CrossOriginRedirectError) throw otherOrigin(proved, error.location);
    throw fetchFailure(error instanceof UnsafeUrlError ? error.reason : 'the page did not answer');
  }
  // The fetcher keeps redirects on the origin; checked again here, whatever fetcher was given.
  if (!sameOrigin(page.finalUrl, proved)) throw otherOrigin(proved, page.finalUrl);
  if (page.status >= 400) throw fetchFailure(`the page answered HTTP ${page.status}`);
  if (!hasVerificationTag(page.body.toString('utf8'), apiKey)) {
    throw errors.forbidden(
      `No <meta name="arcadia-verification" content="<your API key>"> found in the <head> of ${proved}`,
    );
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!sameOrigin(game.gameUrl, proved))
      throw new AppError(
        'CONFLICT',
        'The game moved to another origin while its page was verified; claim again',
      );
    const next = provedBy(game, auth.userId, deps.now);
    const previousControllerId = controllerOf(game);
    // A change of control takes the game's webhook endpoints from the previous controller, in the same transaction.
    const change =
      previousControllerId !== auth.userId && deps.controlChange
        ? await deps.controlChange(game.id, auth.userId, new Date(next.updatedAt))
        : { writes: [], disabledEndpointIds: [] };
    try {
      await repo.saveGame(next, game, [
        ...change.writes,
        outboxItem('ownership.verified', game.id, {
          ownerId: auth.userId,
          gameUrl: next.gameUrl,
          previousOwnerId: game.ownerId,
          previousControllerId,
          disabledEndpointIds: change.disabledEndpointIds,
        }),
      ]);
      return toView(next);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      game = await requireGame(id);
    }
  }
  throw new AppError('CONFLICT', 'The game changed concurrently; retry');
};
