// GET /rewards/me: its contract.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { described, withMeta } from '../core/schemas.js';
import { allowanceSchema } from './allowances/contracts.js';
import { lamports, PLAYER, TAGS, usd } from './contracts.js';

const payout = withMeta(
  z.object({
    gameId: z.uuid(),
    day: described(z.string(), 'The settled UTC day (YYYY-MM-DD)'),
    roles: described(z.array(z.enum(['creator', 'player'])), 'Why you were paid: creator split, top-10 rank'),
    rank: described(z.nullable(z.int()), "Your rank on that day's board, when paid as a player"),
    shareLamports: described(lamports, "That day's share"),
    carriedInLamports: described(lamports, 'Carried over from your earlier payouts of this game'),
    sentLamports: described(lamports, 'Received by your wallet'),
    feeLamports: described(lamports, 'The transfer fee the vault paid out of your amount'),
    carriedOutLamports: described(lamports, 'Carried over to your next payout (could not land)'),
    status: described(
      z.enum(['pending', 'confirmed', 'carried']),
      '`confirmed` (on chain), `carried` (owed at your next payout), `pending` (being paid)',
    ),
    wallet: z.nullable(z.string()),
    signature: described(z.nullable(z.string()), 'The transfer on chain, once confirmed'),
    usd: described(z.nullable(usd), 'USD value at payout time'),
    paidAt: z.nullable(z.string()),
    tournament: described(
      z.nullable(z.object({ tournamentId: z.string(), periodId: z.string() })),
      'Set on a tournament prize (then `day` is the UTC day the period ended and `rank` the rank on its board)',
    ),
  }),
  {
    id: 'RewardPayout',
    examples: [
      {
        gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
        day: '2026-11-24',
        roles: ['player'],
        rank: 1,
        shareLamports: '5333333',
        carriedInLamports: '0',
        sentLamports: '5328333',
        feeLamports: '5000',
        carriedOutLamports: '0',
        status: 'confirmed',
        wallet: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
        signature: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
        usd: 0.8,
        paidAt: '2026-11-25T06:00:41.000Z',
        tournament: null,
      },
      {
        gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
        day: '2026-11-23',
        roles: ['player'],
        rank: 9,
        shareLamports: '120000',
        carriedInLamports: '0',
        sentLamports: '0',
        feeLamports: '0',
        carriedOutLamports: '120000',
        status: 'carried',
        wallet: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
        signature: null,
        usd: null,
        paidAt: '2026-11-24T06:00:12.000Z',
        tournament: null,
      },
    ],
  },
);

const coinAllocation = z.object({
  gameId: z.uuid(),
  gtokenAddress: described(z.string(), 'The game coin'),
  allocated: described(z.string(), 'Cumulative allocation (airdrop and emission), base units'),
  claimed: described(z.string(), 'Already claimed, base units'),
  claimable: described(
    z.string(),
    'allocated − claimed: what POST /token-launcher/exercise-claim/build-transactions pays',
  ),
});

export const getMyRewardsContract = defineContract({
  operationId: 'getMyRewards',
  method: 'GET',
  path: '/rewards/me',
  tags: TAGS,
  summary: 'What I earned',
  description:
    "The caller's earnings across games: the daily settlements' rewards-pool payouts in SOL (as a creator per the " +
    "game's effective orgRewardsSplit, or as a top-10 player of the day), newest day first and paginated " +
    "(`meta.total` counts payouts), and the claimable game-coin allocations of the caller's embedded wallet " +
    '(airdrop and emission; claim them with the exercise-claim endpoints), and the purchase allowances the caller ' +
    'granted to games (what each game may spend per UTC day with the session token, and what is left today; ' +
    'PUT /rewards/allowances/{gameId}). A payout that could not land (no ' +
    'wallet, below the fee or the rent-exempt minimum of a new account) is `carried` and added to the next one. ' +
    'Authenticate with an identity-provider token or a player session token.',
  auth: PLAYER,
  scope: 'read',
  query: z.object({
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
  }),
  response: z.object({
    data: z.object({
      arcId: z.uuid(),
      wallet: described(z.nullable(z.string()), 'Your embedded wallet, where payouts go'),
      payouts: z.array(payout),
      claimableCoins: z.array(coinAllocation),
      allowances: described(
        z.array(allowanceSchema),
        'Games you allowed to buy multipliers with your session token, with what remains today',
      ),
      coinAllocationsAvailable: described(
        z.boolean(),
        'False while the coin emission is not deployed: claimableCoins is then empty',
      ),
      pageTotals: z.object({
        receivedLamports: described(lamports, 'Sum of the confirmed payouts on this page'),
        receivedUsd: usd,
      }),
    }),
    meta: z.object({ limit: z.int(), offset: z.int(), total: z.int() }),
  }),
  errors: [],
  example: { query: { limit: '20', offset: '0' } },
});
