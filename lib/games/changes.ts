// Writing a change to an existing game: the optimistic-concurrency save and version bump every change uses, and
// the visibility toggle, which needs nothing else (its function bundles no image, URL-fetching or identity code).
import { isConditionFailure } from '../adapters/dynamodb.js';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import type { GameRecord } from './model.js';
import { requireListedGame, toView } from './read.js';
import * as repo from './repository.js';

/** Save `next` over `previous` (conditional on its version): 409 when the game changed concurrently. */
export const saveChange = async (next: GameRecord, previous: GameRecord) => {
  try {
    await repo.saveGame(next, previous);
  } catch (error) {
    if (isConditionFailure(error)) throw new AppError('CONFLICT', 'The game changed concurrently; retry');
    throw error;
  }
};

/** The version and timestamp of the next revision of `game`. */
export const bump = (game: GameRecord, now?: () => Date) => ({
  version: game.version + 1,
  updatedAt: (now?.() ?? new Date()).toISOString(),
});

/** Flip a game between visible and hidden; listings follow at once (sparse index attribute + counter). */
export const toggleVisibility = async (auth: AuthContext, id: string, now?: () => Date) => {
  const game = await requireListedGame(auth, id);
  const next = { ...game, hidden: !game.hidden, ...bump(game, now) };
  await saveChange(next, game);
  return toView(next);
};
