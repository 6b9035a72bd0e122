// GET /games/insights/{gameId}: a game's figures day by day and its retention cohorts, for its creator or owner.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, utcDaySchema, withMeta } from '../core/schemas.js';

export const TAGS = ['Insights'];
const EXAMPLE_GAME = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';

/** The longest range one request reads (days, both ends included). */
export const MAX_RANGE_DAYS = 400;
/** The range when neither `from` nor `to` is given: this many days ending today (UTC). */
export const DEFAULT_RANGE_DAYS = 30;

const lamports = described(
  z.string().check(z.regex(/^(0|[1-9][0-9]*)$/)),
  'Lamports (1 SOL = 1 000 000 000), as a string',
);
const usdCents = described(z.int(), 'US cents, at the SOL price of each sale or payout');
const count = z.int();

export const InsightsDay = withMeta(
  z.object({
    day: described(z.string(), 'The UTC day (YYYY-MM-DD)'),
    activePlayers: described(
      count,
      'Players whose day total a save or an SDK commit wrote that day (points, or a new backend session)',
    ),
    newPlayers: described(count, 'Players first seen in this game that day'),
    sessions: described(
      z.object({
        backend: described(count, 'Backend sessions opened by the studio’s saves'),
        sdk: described(count, 'Play sessions committed from the SDK'),
      }),
      'Sessions counted that day',
    ),
    points: described(
      count,
      'Points counted on that day’s totals (after multipliers; less the points of its sessions invalidated since)',
    ),
    flaggedSessions: described(
      count,
      'Sessions a save or an SDK flush took over the risk threshold that day',
    ),
    invalidatedSessions: described(count, 'Sessions the studio invalidated that day'),
    sales: described(
      z.object({ count, lamports, usdCents }),
      'Multiplier purchases confirmed that day: how many, their price in lamports and in USD at sale',
    ),
    payouts: described(
      z.object({
        lamports,
        usdCents,
        players: described(
          count,
          'Payouts to players confirmed that day, one per player and run (a creator’s share alone is not counted)',
        ),
      }),
      "Payouts out of the game's pool confirmed that day (creators and players), in lamports and USD at payout",
    ),
    tournamentEntrants: described(
      count,
      "Entries into the game's tournament periods that day: joins, and players first counted in an open period",
    ),
    webhookFailures: described(count, 'Failed webhook delivery attempts that day'),
  }),
  {
    id: 'InsightsDay',
    examples: [
      {
        day: '2026-11-21',
        activePlayers: 412,
        newPlayers: 37,
        sessions: { backend: 120, sdk: 903 },
        points: 184_220,
        flaggedSessions: 4,
        invalidatedSessions: 2,
        sales: { count: 3, lamports: '24000000', usdCents: 576 },
        payouts: { lamports: '1380000', usdCents: 33, players: 10 },
        tournamentEntrants: 58,
        webhookFailures: 0,
      },
    ],
  },
);

export const RetentionCohort = withMeta(
  z.object({
    cohort: described(z.string(), 'The UTC day the cohort was first seen (YYYY-MM-DD)'),
    players: described(count, 'Players first seen that day'),
    day1: described(z.nullable(count), 'Of them, players who played on the next day; null while it is ahead'),
    day7: described(z.nullable(count), 'Of them, players who played 7 days later; null while it is ahead'),
    day30: described(z.nullable(count), 'Of them, players who played 30 days later; null while it is ahead'),
  }),
  {
    id: 'RetentionCohort',
    examples: [{ cohort: '2026-11-21', players: 37, day1: 15, day7: 6, day30: null }],
  },
);

export const GameInsights = withMeta(
  z.object({
    gameId: z.uuid(),
    from: described(z.string(), 'First UTC day of the range (YYYY-MM-DD)'),
    to: described(z.string(), 'Last UTC day of the range (YYYY-MM-DD), included'),
    days: described(
      z.array(InsightsDay),
      'One row per day of the range, oldest first; zeros where nothing happened',
    ),
    retention: described(
      z.array(RetentionCohort),
      'One row per day of the range that has new players, oldest first',
    ),
  }),
  { id: 'GameInsights' },
);

export type InsightsDay = z.output<typeof InsightsDay>;
export type RetentionCohort = z.output<typeof RetentionCohort>;
export type GameInsights = z.output<typeof GameInsights>;

export const getGameInsightsContract = defineContract({
  operationId: 'getGameInsights',
  method: 'GET',
  path: '/games/insights/{gameId}',
  tags: TAGS,
  summary: "A game's daily figures and retention",
  description:
    'How the game is doing, per UTC day: active and new players, sessions (studio saves and SDK commits), points, ' +
    'flagged and invalidated sessions, multiplier sales, payouts, tournament entrants and failed webhook ' +
    'deliveries; and, for each day with new players, how many of them played again 1, 7 and 30 days later ' +
    '(null while that day is still ahead; today counts so far). The figures are counters kept by the writes that ' +
    'make each change, so a day reads the same however busy the game is. `from` and `to` are UTC days, both ' +
    `included, at most ${MAX_RANGE_DAYS} days apart; without them, the last ${DEFAULT_RANGE_DAYS} days ending ` +
    `today; with only \`to\`, the ${DEFAULT_RANGE_DAYS} days ending then; with only \`from\`, from then to today ` +
    `(at most ${MAX_RANGE_DAYS} days). 400 VALIDATION_ERROR when \`to\` is before \`from\` or the range is longer. ` +
    'For the game’s creator or owner (HMAC or bearer, the same rules either way).',
  auth: ['hmac', 'bearer'],
  params: z.object({ gameId: described(z.uuid(), 'The game') }),
  query: z.object({
    from: described(z.optional(utcDaySchema), 'First UTC day (YYYY-MM-DD)'),
    to: described(z.optional(utcDaySchema), 'Last UTC day (YYYY-MM-DD), included'),
  }),
  response: dataEnvelope(GameInsights),
  errors: ['VALIDATION_ERROR', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE', 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME }, query: { from: '2026-11-01', to: '2026-11-30' } },
});
