// GET /rewards/game-rewards-pool/{gameId}: its contract, with the distribution rule of the pool.
import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, described, withMeta } from '../../core/schemas.js';
import {
  EXAMPLE_GAME,
  gameId,
  lamports,
  priceSource,
  solUsdPrice,
  TAGS,
  tier,
  usd,
  usdNow,
} from '../contracts.js';
import { DISTRIBUTION } from '../model.js';

const DISTRIBUTION_RULE =
  `Distribution rule: each UTC day 1/${DISTRIBUTION.payoutHorizonDays} of the undistributed pool is paid out — ` +
  `${DISTRIBUTION.creatorShareBps / 100} % to the game's creators, split per the game's effective ` +
  'orgRewardsSplit (all to the owner, or to the creator while nobody has proved the domain, until ownership ' +
  'of the current origin is verified), and ' +
  `${DISTRIBUTION.playerShareBps / 100} % to the top 10 players of that day's leaderboard, by rank: ` +
  `${DISTRIBUTION.playerShareByRankBps.map((b) => `${b / 100} %`).join(', ')} of the player part.`;

const SETTLEMENT_TEXT =
  '**Daily settlement.** Each UTC day settles once per game, a few hours after it ends ' +
  '(`SETTLEMENT_DELAY_HOURS`, default 6: developers invalidate fraudulent sessions meanwhile; invalidated ' +
  'points are not counted). The board, the wallets and the pool are frozen and the allocation persisted before ' +
  'anything is sent; each transfer is recorded before it is sent, so a settlement pays exactly once. The vault ' +
  'keeps its rent-exempt minimum (890 880 lamports), never distributed. Each share is rounded down (the remainder ' +
  "stays in the pool); the vault pays each transfer's fee (5 000 lamports) out of the recipient's amount. An " +
  'amount that cannot land — the recipient has no wallet, it does not cover the fee, or it is below the ' +
  "rent-exempt minimum for an account that does not exist yet — carries over to the recipient's next payout " +
  'from this game: nothing is lost (inflow = paid + fees + carried + undistributed).';

const settlementSummary = withMeta(
  z.object({
    day: described(z.string(), 'The settled UTC day (YYYY-MM-DD)'),
    status: described(z.enum(['paying', 'settled']), '`paying` until every line is confirmed or carried'),
    undistributedBeforeLamports: lamports,
    allocatedLamports: described(lamports, "The day's share of the pool (creators + players)"),
    creatorPartLamports: lamports,
    playerPartLamports: lamports,
    players: described(z.int(), 'Players with counted points that day'),
    settledAt: z.nullable(z.string()),
    recipients: z.array(
      z.object({
        wallet: z.nullable(z.string()),
        roles: z.array(z.enum(['creator', 'player'])),
        rank: described(z.nullable(z.int()), "Rank on the day's board (players)"),
        shareLamports: described(lamports, "This day's share"),
        carriedInLamports: described(lamports, 'Carried over from earlier payouts'),
        sentLamports: described(lamports, 'Received by the wallet'),
        feeLamports: lamports,
        carriedOutLamports: described(lamports, 'Carried over to the next payout'),
        status: z.enum(['pending', 'confirmed', 'carried']),
        signature: z.nullable(z.string()),
      }),
    ),
  }),
  { id: 'SettlementSummary' },
);

export const getGameRewardsPoolContract = defineContract({
  operationId: 'getGameRewardsPool',
  method: 'GET',
  path: '/rewards/game-rewards-pool/{gameId}',
  tags: TAGS,
  summary: 'Game rewards pool information',
  description:
    "A game's rewards pool: its **custodial** vault (a keypair the platform holds; null until the first " +
    'multiplier purchase creates it), the balance read on chain now (lamports and USD at the SOL price now, ' +
    'null without one), what purchases paid in and settlements paid out, the last 20 inflows and the last 10 daily ' +
    'settlements (newest first; the books day by day are in `GET …/history`), and the listing figures of the game, refreshed by every purchase and ' +
    "settlement: totalRewardsPoolValueUsd = the vault's balance at the SOL price of that moment, " +
    "estimatedDailyRewardsUsd = the next settlement's pool payout (`nextDailyPayoutLamports`), " +
    `totalRewardsAllocatedUsd = what settlements paid, in USD at payout time. ${DISTRIBUTION_RULE}\n\n` +
    `${SETTLEMENT_TEXT} Public.`,
  auth: [],
  params: z.object({ gameId }),
  response: dataEnvelope(
    z.object({
      gameId: z.uuid(),
      custodial: z.literal(true),
      vaultAddress: z.nullable(z.string()),
      balanceLamports: lamports,
      balanceUsd: usdNow,
      solUsdPrice,
      priceSource,
      totalInflowLamports: described(
        lamports,
        'Paid into the vault: purchases and studios’ tournament deposits',
      ),
      totalAllocatedLamports: described(lamports, 'Allocated by settlements: paid, fees and carried over'),
      totalEarmarkedLamports: described(
        lamports,
        'Deposits held for tournament periods not closed yet: in the vault, never taken by the daily payouts',
      ),
      totalPaidLamports: described(lamports, 'Received by recipients (confirmed transfers)'),
      totalFeesLamports: described(lamports, 'Transaction fees the vault paid for the payouts'),
      nextDailyPayoutLamports: described(lamports, "The next settlement's pool payout, at today's pool"),
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
      recentSettlements: z.array(settlementSummary),
    }),
  ),
  errors: ['NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});

const poolDay = withMeta(
  z.object({
    day: described(z.string(), 'The UTC day (YYYY-MM-DD)'),
    inflowLamports: described(
      lamports,
      'Paid in by the multiplier purchases and the studio’s tournament deposits confirmed that day',
    ),
    purchases: described(z.int(), 'Multiplier purchases confirmed that day'),
    allocatedLamports: described(
      lamports,
      'Allocated by the settlements frozen that day (a UTC day settles after it ends: its allocation is on a ' +
        'later row), daily and tournament prizes alike',
    ),
    paidLamports: described(lamports, 'Received by recipients of the payouts confirmed that day'),
    feesLamports: described(lamports, 'Transaction fees the vault paid for them'),
    payouts: described(z.int(), 'Payouts confirmed that day'),
    earmarkedLamports: described(
      z.string().check(z.regex(/^-?\d+$/)),
      'The change that day in deposits held for tournament periods: + deposits landed, − funds of periods closed',
    ),
    endOfDay: described(
      z.object({
        totalInflowLamports: lamports,
        totalAllocatedLamports: lamports,
        totalPaidLamports: lamports,
        totalFeesLamports: lamports,
        totalEarmarkedLamports: described(lamports, 'Deposits held for tournament periods not closed yet'),
        undistributedLamports: described(
          lamports,
          'Paid in, not yet allocated nor held for tournament periods',
        ),
        balanceLamports: described(
          lamports,
          'Paid in less paid out and fees: the vault’s balance by the books (lamports anyone else sent to the ' +
            'public vault are not in them)',
        ),
      }),
      "The pool's books at the end of that day (UTC); for today, now",
    ),
  }),
  {
    id: 'PoolDay',
    examples: [
      {
        day: '2026-11-21',
        inflowLamports: '24000000',
        purchases: 3,
        allocatedLamports: '1460000',
        paidLamports: '1380000',
        feesLamports: '15000',
        payouts: 3,
        earmarkedLamports: '0',
        endOfDay: {
          totalInflowLamports: '68000000',
          totalAllocatedLamports: '4380000',
          totalPaidLamports: '4140000',
          totalFeesLamports: '45000',
          totalEarmarkedLamports: '0',
          undistributedLamports: '63620000',
          balanceLamports: '63815000',
        },
      },
    ],
  },
);

export const getGameRewardsPoolHistoryContract = defineContract({
  operationId: 'getGameRewardsPoolHistory',
  method: 'GET',
  path: '/rewards/game-rewards-pool/{gameId}/history',
  tags: TAGS,
  summary: "A game's rewards pool day by day",
  description:
    "The pool's books per UTC day, newest first: what purchases paid in, settlements allocated and payouts paid " +
    "(and their fees) that day, and the pool's books at the end of the day. Only the days on which the books " +
    "moved have a row (a day without one ended with the previous row's books). Movements are booked on the day " +
    'they happen: a day settles after it ends, so its allocation and payouts are on a later row. Each page costs ' +
    'the same whatever the pool’s age: pass `meta.nextCursor` as `cursor` for the older days (null after the ' +
    'oldest). For the game’s creator or owner (HMAC or bearer, the same rules either way); 400 VALIDATION_ERROR ' +
    'for a cursor that is not from this game’s history.',
  auth: ['hmac', 'bearer'],
  params: z.object({ gameId }),
  query: z.object({
    limit: described(z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 30), 'Days per page'),
    cursor: described(
      z.optional(z.string().check(z.maxLength(1024))),
      'Opaque cursor from the previous page (`meta.nextCursor`)',
    ),
  }),
  response: z.object({
    data: z.array(poolDay),
    meta: withMeta(z.object({ limit: z.int(), nextCursor: z.nullable(z.string()) }), {
      examples: [
        {
          limit: 30,
          nextCursor: 'WyI2ZjFkM2MxZS0yYTRiLTRjNWQtOGU5Zi0wYTFiMmMzZDRlNWYiLCIyMDI2LTEwLTIzIl0.c2lnbmF0dXJl',
        },
      ],
    }),
  }),
  errors: ['VALIDATION_ERROR', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE', 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME }, query: { limit: '30' } },
});
