import * as z from 'zod/mini';
import { capOrDefault, type PlayCapName } from './caps.js';

/**
 * The platforms a game can be on. Here, not in contracts.ts, so that the functions that only read games (every
 * other domain) do not build all the games contracts' schemas at import.
 */
export const PLATFORMS = ['WEB', 'DESKTOP', 'MOBILE', 'CONSOLE'] as const;

/** Summary of a game's coin, written by the launcher. */
export const coinSummarySchema = z.object({
  /** The coin's mint address (`gtokenAddress` on the wire). */
  coinMint: z.string(),
  gameCoinSymbol: z.nullable(z.string()),
  emissionDays: z.int(),
  status: z.string(),
  emissionStartAt: z.nullable(z.string()),
  emissionEndAt: z.nullable(z.string()),
});
export type CoinSummary = z.infer<typeof coinSummarySchema>;

/**
 * A play cap as stored: a number, or (games registered before caps had defaults) null or absent, read as the
 * default, so that every game is bounded.
 */
const storedCap = (name: PlayCapName) =>
  z.pipe(
    z.optional(z.nullable(z.number())),
    z.transform((value) => capOrDefault(name, value)),
  );

/** A game as stored (index attributes are derived on write and stripped on read). */
export const gameRecordSchema = z.object({
  id: z.uuid(),
  version: z.int(),
  name: z.string(),
  description: z.string(),
  gameUrl: z.string(),
  platform: z.enum(PLATFORMS),
  isHTMLGame: z.boolean(),
  iframable: z.boolean(),
  imageKey: z.nullable(z.string()),
  imageUrl: z.nullable(z.string()),
  coverImageKey: z.nullable(z.string()),
  coverImageUrl: z.nullable(z.string()),
  twitter: z.nullable(z.string()),
  discord: z.nullable(z.string()),
  telegram: z.nullable(z.string()),
  maxScorePerSession: storedCap('maxScorePerSession'),
  maxSessionsPerDay: storedCap('maxSessionsPerDay'),
  maxCumulativePointsPerDay: storedCap('maxCumulativePointsPerDay'),
  maxPointsPerSecond: storedCap('maxPointsPerSecond'),
  maxBurstPoints: storedCap('maxBurstPoints'),
  hidden: z.boolean(),
  requestedOrgRewardsSplit: z.record(z.string(), z.number()),
  jwksUrl: z.nullable(z.string()),
  creatorId: z.uuid(),
  ownerId: z.nullable(z.uuid()),
  ownershipVerified: z.boolean(),
  totalRewardsAllocatedUsd: z.number(),
  estimatedDailyRewardsUsd: z.number(),
  totalRewardsPoolValueUsd: z.number(),
  /**
   * Revision of the three figures above, written only by the figures sync (saveGameFigures). Apart from `version`:
   * anybody can make a purchase refresh the figures, and that must not make the game's guarded writes (launches,
   * edits) conflict.
   */
  figuresVersion: z.optional(z.int()),
  airdropTokenAddress: z.nullable(z.string()),
  coin: z.nullable(coinSummarySchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type GameRecord = z.infer<typeof gameRecordSchema>;

/**
 * The user holding a game's domain rights: its owner (the last user who proved the game's domain with the
 * verification tag) or, until someone has, its creator. The rights are the split's fallback, setting the split,
 * gameUrl's origin and the airdrop token, and the launch of the next coin during the grace period.
 */
export const controllerOf = (game: Pick<GameRecord, 'creatorId' | 'ownerId'>): string =>
  game.ownerId ?? game.creatorId;

/**
 * The split in force: as requested once ownership of the current origin is verified, else all to the game's
 * controller (the owner once someone proved the domain, else the creator).
 */
export const effectiveSplit = (
  game: Pick<GameRecord, 'ownershipVerified' | 'requestedOrgRewardsSplit' | 'creatorId' | 'ownerId'>,
) =>
  game.ownershipVerified && Object.keys(game.requestedOrgRewardsSplit).length > 0
    ? game.requestedOrgRewardsSplit
    : { [controllerOf(game)]: 10_000 };

/** Whether two game URLs share scheme, host and port: what a verification tag proves control of. */
export const sameOrigin = (a: string, b: string) => {
  try {
    const origin = new URL(a).origin;
    return origin !== 'null' && origin === new URL(b).origin;
  } catch {
    return false;
  }
};
