import * as z from 'zod';
import { PLATFORMS } from './contracts.js';

/** Summary of a game's coin, written by the launcher. */
export const coinSummarySchema = z.object({
  gtokenAddress: z.string(),
  gameCoinSymbol: z.string().nullable(),
  emissionDays: z.number().int(),
  status: z.string(),
  emissionStartAt: z.string().nullable(),
  emissionEndAt: z.string().nullable(),
});
export type CoinSummary = z.infer<typeof coinSummarySchema>;

/** A game as stored (index attributes are derived on write and stripped on read). */
export const gameRecordSchema = z.object({
  id: z.uuid(),
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  gameUrl: z.string(),
  platform: z.enum(PLATFORMS),
  isHTMLGame: z.boolean(),
  iframable: z.boolean(),
  imageKey: z.string().nullable(),
  imageUrl: z.string().nullable(),
  coverImageKey: z.string().nullable(),
  coverImageUrl: z.string().nullable(),
  twitter: z.string().nullable(),
  discord: z.string().nullable(),
  telegram: z.string().nullable(),
  maxScorePerSession: z.number().nullable(),
  maxSessionsPerDay: z.number().nullable(),
  maxCumulativePointsPerDay: z.number().nullable(),
  hidden: z.boolean(),
  requestedOrgRewardsSplit: z.record(z.string(), z.number()),
  jwksUrl: z.string().nullable(),
  creatorId: z.uuid(),
  ownerId: z.uuid().nullable(),
  ownershipVerified: z.boolean(),
  totalRewardsAllocatedUsd: z.number(),
  estimatedDailyRewardsUsd: z.number(),
  totalRewardsPoolValueUsd: z.number(),
  airdropTokenAddress: z.string().nullable(),
  coin: coinSummarySchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type GameRecord = z.infer<typeof gameRecordSchema>;

/** The split in force (SPEC §4.3 rules 6–7): as requested once ownership is verified, else all to the creator. */
export const effectiveSplit = (
  game: Pick<GameRecord, 'ownershipVerified' | 'requestedOrgRewardsSplit' | 'creatorId'>,
) =>
  game.ownershipVerified && Object.keys(game.requestedOrgRewardsSplit).length > 0
    ? game.requestedOrgRewardsSplit
    : { [game.creatorId]: 10_000 };
