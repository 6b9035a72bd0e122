// Reads and access guards of games, shared by many functions. Kept apart from ./service.ts so that functions
// which only read a game do not bundle the image and URL-fetching libraries that create and update need.

import type { AuthContext } from '../core/auth.js';
import { errors } from '../core/errors.js';
import type { CoinMetadata, GameView } from './contracts.js';
import { type CoinSummary, controllerOf, effectiveSplit, type GameRecord } from './model.js';
import * as repo from './repository.js';

/** The wire shape of a game's coin: the API names the coin mint `gtokenAddress` (docs/architecture.md, "Names"). */
const coinView = ({ coinMint, ...coin }: CoinSummary) => ({ gtokenAddress: coinMint, ...coin });

/** The public shape of a game. */
export const toView = (game: GameRecord, includeTokens = false): GameView => ({
  id: game.id,
  name: game.name,
  description: game.description,
  gameUrl: game.gameUrl,
  platform: game.platform,
  isHTMLGame: game.isHTMLGame,
  iframable: game.iframable,
  imageUrl: game.imageUrl,
  coverImageUrl: game.coverImageUrl,
  twitter: game.twitter,
  discord: game.discord,
  telegram: game.telegram,
  maxScorePerSession: game.maxScorePerSession,
  maxSessionsPerDay: game.maxSessionsPerDay,
  maxCumulativePointsPerDay: game.maxCumulativePointsPerDay,
  maxPointsPerSecond: game.maxPointsPerSecond,
  maxBurstPoints: game.maxBurstPoints,
  hidden: game.hidden,
  orgRewardsSplit: effectiveSplit(game),
  requestedOrgRewardsSplit: game.requestedOrgRewardsSplit,
  jwksUrl: game.jwksUrl,
  creatorId: game.creatorId,
  ownerId: game.ownerId,
  ownershipVerified: game.ownershipVerified,
  totalRewardsAllocatedUsd: game.totalRewardsAllocatedUsd,
  estimatedDailyRewardsUsd: game.estimatedDailyRewardsUsd,
  totalRewardsPoolValueUsd: game.totalRewardsPoolValueUsd,
  createdAt: game.createdAt,
  updatedAt: game.updatedAt,
  ...(includeTokens
    ? {
        tokens: { gameCoin: game.coin && coinView(game.coin), airdropTokenAddress: game.airdropTokenAddress },
      }
    : {}),
});

/** The game, or 404. */
export const requireGame = async (id: string): Promise<GameRecord> => {
  const game = await repo.getGame(id);
  if (!game) throw errors.notFound('Game');
  return game;
};

/** Whether a user is the game's creator or owner: who may edit its listing (details, caps, visibility). */
export const isCreatorOrOwner = (game: Pick<GameRecord, 'creatorId' | 'ownerId'>, arcId: string) =>
  game.creatorId === arcId || game.ownerId === arcId;

/**
 * Whether a user holds the game's domain rights (`controllerOf`): the owner once someone proved the domain,
 * else the creator. A creator whose listing someone else proved keeps managing it, without these rights.
 */
export const isController = (game: Pick<GameRecord, 'creatorId' | 'ownerId'>, arcId: string) =>
  controllerOf(game) === arcId;

/**
 * The game, if the caller is its controller (404 / 403 otherwise): the guard of everything that runs the game
 * (/play/dev, webhooks, tournaments, connect clients, pool history). Once someone proved the domain, the creator
 * is no longer its controller: the points saved decide what players are paid, and the events tell the game's
 * business, so they follow the domain as the money does.
 */
export const requireOwnedGame = async (auth: AuthContext, id: string): Promise<GameRecord> => {
  const game = await requireGame(id);
  if (!isController(game, auth.userId))
    throw errors.forbidden(
      game.creatorId === auth.userId
        ? "Only the game's verified owner may do this: the owner proved the game's domain"
        : 'Only the game creator or owner may do this',
    );
  return game;
};

/**
 * The game, if the caller is its creator or owner (404 / 403 otherwise): the guard of the listing's edits (details,
 * images, caps, visibility), which a creator keeps after someone else proved the domain.
 */
export const requireListedGame = async (auth: AuthContext, id: string): Promise<GameRecord> => {
  const game = await requireGame(id);
  if (!isCreatorOrOwner(game, auth.userId))
    throw errors.forbidden('Only the game creator or owner may do this');
  return game;
};

/** The game coin's off-chain metadata, as wallets read it (the mint's `uri` points here). */
export const coinMetadata = (game: GameRecord): CoinMetadata => ({
  name: game.name,
  ...(game.coin?.gameCoinSymbol ? { symbol: game.coin.gameCoinSymbol } : {}),
  description: game.description,
  ...(game.imageUrl ? { image: game.imageUrl } : {}),
  external_url: game.gameUrl,
});
