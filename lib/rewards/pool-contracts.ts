// GET /rewards/game-rewards-pool/{gameId}: its contract, with the distribution rule of the pool.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described } from '../core/schemas.js';
import { EXAMPLE_GAME, gameId, lamports, TAGS, tier, usd } from './contracts.js';
import { DISTRIBUTION } from './model.js';

const DISTRIBUTION_RULE =
  `Distribution rule: each UTC day 1/${DISTRIBUTION.payoutHorizonDays} of the undistributed pool is paid out — ` +
  `${DISTRIBUTION.creatorShareBps / 100} % to the game's creators, split per the game's effective ` +
  'orgRewardsSplit (all to the creator until ownership is verified), and ' +
  `${DISTRIBUTION.playerShareBps / 100} % to the top 10 players of that day's leaderboard, by rank: ` +
  `${DISTRIBUTION.playerShareByRankBps.map((b) => `${b / 100} %`).join(', ')} of the player part.`;

export const getGameRewardsPoolContract = defineContract({
  operationId: 'getGameRewardsPool',
  method: 'GET',
  path: '/rewards/game-rewards-pool/{gameId}',
  tags: TAGS,
  summary: 'Game rewards pool information',
  description:
    "A game's rewards pool: its **custodial** vault (a keypair the platform holds; null until the first " +
    'multiplier purchase creates it), the balance read on chain now (lamports and USD at the configured SOL ' +
    'price), what purchases paid in, the last 20 inflows (newest first), and the listing figures of the game: ' +
    'totalRewardsPoolValueUsd = (inflows − allocations) valued at the SOL price of the latest purchase, ' +
    `estimatedDailyRewardsUsd = that ÷ ${DISTRIBUTION.payoutHorizonDays}, totalRewardsAllocatedUsd = what ` +
    `distributions allocated. ${DISTRIBUTION_RULE} Public.`,
  auth: [],
  params: z.object({ gameId }),
  response: dataEnvelope(
    z.object({
      gameId: z.uuid(),
      custodial: z.literal(true),
      vaultAddress: z.nullable(z.string()),
      balanceLamports: lamports,
      balanceUsd: usd,
      solUsdPrice: z.number(),
      priceSource: z.string(),
      totalInflowLamports: lamports,
      totalAllocatedLamports: lamports,
      purchases: z.int(),
      totalRewardsPoolValueUsd: usd,
      totalRewardsAllocatedUsd: usd,
      estimatedDailyRewardsUsd: usd,
      distribution: z.object({
        payoutHorizonDays: z.int(),
        creatorShareBps: z.int(),
        playerShareBps: z.int(),
        creatorSplit: described(
          z.record(z.string(), z.number()),
          'Effective orgRewardsSplit: Arc ID → basis points',
        ),
        playerShareByRankBps: described(z.array(z.int()), 'Share of the player part for ranks 1..10'),
      }),
      recentInflows: z.array(
        z.object({
          purchaseId: z.uuid(),
          tier,
          multiplier: z.number(),
          durationSeconds: z.int(),
          lamports,
          usd,
          fromWallet: z.string(),
          signature: z.string(),
          at: z.string(),
        }),
      ),
    }),
  ),
  errors: ['NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});
