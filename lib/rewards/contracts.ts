// The multiplier quote contracts (cost, current multiplier, cost for a placement), and the schemas and model text
// that every rewards contract shares (purchases/contracts.ts, pools/contracts.ts).
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, withMeta } from '../core/schemas.js';
import { TIER_NAMES } from './model.js';
import { BASE_LAMPORTS_PER_HOUR } from './pricing.js';

export const TAGS = ['Rewards'];
export const PLAYER = ['bearer', 'session', 'grant'] as const;
export const EXAMPLE_GAME = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';

export const lamports = described(
  z.string().check(z.regex(/^(0|[1-9][0-9]*)$/)),
  'Lamports (1 SOL = 1 000 000 000), as a string',
);
export const usd = described(z.number(), 'US dollars, cents precision');
/** A USD figure converted now: null when no SOL price is at hand (every price feed down for a while). */
export const usdNow = described(
  z.nullable(z.number()),
  'US dollars, cents precision, at the SOL price now; null when no SOL price is at hand',
);
export const solUsdPrice = described(
  z.nullable(z.number()),
  'USD per SOL used for the conversion; null when no SOL price is at hand',
);
export const priceSource = described(
  z.nullable(z.string()),
  'Where the SOL price came from: `coinbase`, `coingecko`, `pyth` or `fixed`; null when none is at hand',
);
export const tier = described(z.enum(TIER_NAMES), 'Multiplier tier: 1.5x, 2x or 3x');
const durationQuery = described(
  z.pipe(z.enum(['3600', '21600', '86400']), z.transform(Number)),
  'Window length in seconds: 3600 (1 h), 21600 (6 h) or 86400 (24 h)',
);
export const gameId = described(z.uuid(), 'The game');

export const MODEL =
  '**Multipliers.** A multiplier is a time-boxed score multiplier for one player in one game. Tiers: **1.5x, ' +
  '2x, 3x**; durations: **1 h, 6 h, 24 h** (3600, 21600, 86400 s). While it is active (from the confirmation ' +
  'of its payment until `expiresAt`), every point the player earns in that game is multiplied exactly once, ' +
  'rounded down: in `POST /play/dev/batch-save-points` each entry is multiplied before the caps ' +
  '(maxScorePerSession, maxCumulativePointsPerDay still bound the result); in the SDK protocol the accepted ' +
  'delta of `POST /play/flush` is multiplied when it is flushed (commit moves pending points unchanged). One ' +
  'multiplier per player and game at a time: they do not stack or extend. It is paid in lamports from the ' +
  "player's embedded wallet into the game's rewards pool, a **custodial** on-chain vault per game (a keypair " +
  'the platform creates on the first purchase and holds, sealed at rest).\n\n' +
  `**Price** (lamports) = ⌈ ${BASE_LAMPORTS_PER_HOUR} × tierFactor × hours^0.8 × (1 + log2(1 + players) / 4) ⌉, ` +
  'with tierFactor 1 (1.5x), 2.5 (2x), 6 (3x), hours = duration / 3600 (1 h → 1, 6 h → 4.19, 24 h → 12.71) and ' +
  "players = the number of players with points on the game's leaderboard today (UTC). So a 1.5x hour in a game " +
  'nobody has played today costs 0.002 SOL; prices rise with tier, duration and competition. USD figures use ' +
  'the SOL price from public feeds (Coinbase, then CoinGecko unless configured otherwise; `priceSource` names the ' +
  'one that answered), or a fixed price the deployer set; they are null when no price is at hand (every feed ' +
  'down for more than 15 minutes), the lamports always stand.';

const quoteFields = {
  gameId: z.uuid(),
  tier,
  multiplier: described(z.number(), '1.5, 2 or 3'),
  durationSeconds: z.int(),
  lamports,
  usd: usdNow,
};

export const getMultiplierCostContract = defineContract({
  operationId: 'getMultiplierCost',
  method: 'GET',
  path: '/multiplier/cost',
  tags: TAGS,
  summary: 'Calculate multiplier purchase cost',
  description:
    `${MODEL}\n\nThe quote is valid now: the board grows during the day, so \`POST /multiplier/purchase\` ` +
    'quotes again (pass `maxLamports` to refuse a higher price). A purchase also needs `feeReserveLamports` in ' +
    'the wallet on top of the price. Public.',
  auth: [],
  query: z.object({ gameId, tier, durationSeconds: durationQuery }),
  response: dataEnvelope(
    z.object({
      ...quoteFields,
      solUsdPrice,
      priceSource,
      competitors: described(z.int(), "Players with points on today's board"),
      feeReserveLamports: lamports,
      quotedAt: z.string(),
    }),
  ),
  errors: ['NOT_FOUND'],
  example: { query: { gameId: EXAMPLE_GAME, tier: '2x', durationSeconds: '3600' } },
});

const activeMultiplier = withMeta(
  z.object({
    purchaseId: z.uuid(),
    tier,
    multiplier: z.number(),
    startsAt: z.string(),
    expiresAt: z.string(),
    remainingSeconds: z.int(),
  }),
  { id: 'ActiveMultiplier' },
);

export const getCurrentMultiplierContract = defineContract({
  operationId: 'getCurrentMultiplier',
  method: 'GET',
  path: '/multiplier/current',
  tags: TAGS,
  summary: "Player's current multiplier",
  description:
    "The caller's active multiplier in a game and its expiry, or `active: false` and `multiplier: null`. " +
    'Authenticate with an identity-provider token or a player session token (a session token only for its own ' +
    'game).',
  auth: PLAYER,
  scope: 'read',
  query: z.object({ gameId }),
  response: dataEnvelope(
    z.object({
      gameId: z.uuid(),
      arcId: z.uuid(),
      active: z.boolean(),
      multiplier: z.nullable(activeMultiplier),
    }),
  ),
  errors: ['NOT_FOUND'],
  example: { query: { gameId: EXAMPLE_GAME } },
});

export const getMultiplierCostForPlacementContract = defineContract({
  operationId: 'getMultiplierCostForPlacement',
  method: 'GET',
  path: '/multiplier/cost-for-placement',
  tags: TAGS,
  summary: 'Cost for a leaderboard position',
  description:
    "The cheapest tier and duration that would take the caller to `targetRank` on today's (UTC) leaderboard of " +
    'the game. To rank there the caller needs one point more than the player now at that rank among the others ' +
    '(a tie goes to who reached the score first), or 1 point when fewer players are on the board.\n\n' +
    '**Assumption**: everyone else keeps their current score; the caller plays through the whole multiplier ' +
    'window at `assumedPointsPerHour`, boosted by the tier, and only the part of the window before midnight ' +
    "UTC counts (points after it go to tomorrow's board). The rate is `pointsPerHour` when given, otherwise the " +
    "caller's average today: points today ÷ hours since 00:00 UTC (at least 1 hour). The game's " +
    'maxCumulativePointsPerDay applies. Ties in price go to the shorter window, then the lower tier.\n\n' +
    'Answers `alreadyThere: true` when the caller already ranks at `targetRank` or better; otherwise ' +
    '`reachable: false` with `reason`: `daily_cap` (the needed score is above maxCumulativePointsPerDay), ' +
    '`no_earning_rate` (no points today and no `pointsPerHour`), `out_of_reach` (not even 3x for 24 h gets ' +
    'there today). `currentRank` is null when the caller has no points today or ranks below `targetRank + 1`. ' +
    'Prices as in `GET /multiplier/cost`.',
  auth: PLAYER,
  scope: 'read',
  query: z.object({
    gameId,
    targetRank: described(
      z.coerce.number().check(z.int(), z.gte(1), z.lte(1000)),
      '1 = first place (at most 1000)',
    ),
    period: described(z._default(z.enum(['daily']), 'daily'), "Today's (UTC) leaderboard"),
    pointsPerHour: described(
      z.optional(z.coerce.number().check(z.positive(), z.lte(1_000_000_000))),
      "Earning rate to assume; defaults to the caller's average today",
    ),
  }),
  response: dataEnvelope(
    z.object({
      gameId: z.uuid(),
      period: z.literal('daily'),
      day: z.string(),
      targetRank: z.int(),
      currentPoints: z.int(),
      currentRank: z.nullable(z.int()),
      neededPoints: described(z.int(), 'Score that reaches targetRank'),
      pointsGap: z.int(),
      assumedPointsPerHour: z.number(),
      rateSource: z.enum(['query', 'todayAverage']),
      hoursLeftToday: z.number(),
      competitors: z.int(),
      solUsdPrice,
      reachable: z.boolean(),
      alreadyThere: z.boolean(),
      reason: z.nullable(z.enum(['no_earning_rate', 'daily_cap', 'out_of_reach'])),
      option: described(
        z.nullable(
          z.object({
            tier,
            multiplier: z.number(),
            durationSeconds: z.int(),
            lamports,
            usd: usdNow,
            projectedPoints: z.int(),
          }),
        ),
        'The cheapest multiplier that reaches the rank, with the score it projects',
      ),
    }),
  ),
  errors: ['NOT_FOUND'],
  example: { query: { gameId: EXAMPLE_GAME, targetRank: '3', period: 'daily' } },
});
