// Tournaments of a game (docs/tournaments.md): the studio schedules them (owner or creator, by HMAC or bearer
// token); players join and read them with their session token or identity-provider token.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, withMeta } from '../core/schemas.js';
import {
  DEFAULT_PAYOUT_DELAY_SECONDS,
  DEFAULT_RETENTION_DAYS,
  MAX_BEST_ATTEMPTS,
  MAX_LIVE_TOURNAMENTS_PER_GAME,
  MAX_METADATA_BYTES,
  MAX_PAYOUT_DELAY_SECONDS,
  MAX_PRIZE_POOL_BPS,
  MAX_PRIZE_RANKS,
  MAX_RETENTION_DAYS,
  MIN_PAYOUT_DELAY_SECONDS,
  MIN_RETENTION_DAYS,
} from './model.js';
import { MAX_PERIOD_SECONDS, MIN_PERIOD_SECONDS } from './schedule.js';

const DEVELOPER = ['hmac', 'bearer'] as const;
const PLAYER = ['session', 'bearer', 'grant'] as const;
const AUTH_ERRORS = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE'] as const;
const TAGS = ['Tournaments'];
const EXAMPLE_GAME = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
const EXAMPLE_TOURNAMENT = '3f0c9a52-8d7e-4b61-9a0f-2c4d6e8f1a3b';
const EXAMPLE_PERIOD = '2026-12-07T00:00:00Z';
const OWNER_ONLY = 'Only the game’s creator or owner (403 otherwise; 404 for an unknown game or tournament).';

const instant = described(
  z.iso.datetime({ offset: false, precision: 0 }),
  'An instant in UTC to the second, e.g. 2026-12-07T00:00:00Z',
);
const seconds = z.int().check(z.gte(MIN_PERIOD_SECONDS), z.lte(MAX_PERIOD_SECONDS));
const recurrence = described(
  z.union([
    z.strictObject({
      cron: described(
        z.string().check(z.minLength(9), z.maxLength(100)),
        'Five fields (minute hour day-of-month month day-of-week) in UTC; a period starts at each firing',
      ),
    }),
    z.strictObject({
      everySeconds: described(seconds, 'A period starts every this many seconds from startsAt'),
    }),
  ]),
  'How periods recur: a cron expression in UTC, or a fixed period',
);
const prizeRange = z.strictObject({
  fromRank: z.int().check(z.gte(1), z.lte(MAX_PRIZE_RANKS)),
  toRank: z.int().check(z.gte(1), z.lte(MAX_PRIZE_RANKS)),
  bps: described(
    z.int().check(z.gte(1), z.lte(10_000)),
    'Basis points of the period’s prize pool for each rank',
  ),
});
const prizes = described(
  z.array(prizeRange).check(z.maxLength(50)),
  'Rank ranges → basis points of the period’s prize pool for each rank in the range: ranges never overlap, and ' +
    'the whole table pays at most 10,000 bps',
);
const metadata = described(
  z.record(z.string().check(z.maxLength(64)), z.unknown()),
  `Free JSON for the studio (at most ${MAX_METADATA_BYTES.toLocaleString('en-US')} bytes serialized)`,
);

const editable = {
  title: z.string().check(z.minLength(1), z.maxLength(100)),
  description: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
  startsAt: instant,
  endsAt: z.optional(z.nullable(described(instant, 'A one-off tournament’s end (exclusive)'))),
  recurrence: z.optional(z.nullable(recurrence)),
  durationSeconds: z.optional(z.nullable(described(seconds, 'How long each recurring period lasts'))),
  until: z.optional(z.nullable(described(instant, 'A recurrence starts no period at or after this instant'))),
  scoring: z.optional(
    described(
      z.enum(['sum', 'best']),
      '`sum`: the points a player earns during the period; `best`: the points of their best session (attempt)',
    ),
  ),
  joinRequired: z.optional(
    described(
      z.boolean(),
      'Players must join before their points count (else their first points enter them)',
    ),
  ),
  maxEntrants: z.optional(z.nullable(z.int().check(z.gte(1), z.lte(10_000_000)))),
  maxAttempts: z.optional(
    z.nullable(
      described(
        z.int().check(z.gte(1), z.lte(1_000)),
        `Sessions per player and period whose points count (required for \`best\`, at most ${MAX_BEST_ATTEMPTS})`,
      ),
    ),
  ),
  tieRule: z.optional(described(z.literal('earliest'), 'Equal points rank by who reached them first')),
  metadata: z.optional(z.nullable(metadata)),
  prizes: z.optional(prizes),
  prizePool: z.optional(
    z.nullable(
      described(
        z.strictObject({
          rewardsPoolBps: described(
            z.int().check(z.gte(0), z.lte(MAX_PRIZE_POOL_BPS)),
            'Basis points of the game’s distributable rewards pool (its undistributed lamports above the ' +
              'vault’s reserve, from the pool’s books) each period’s prizes take when the period closes; 0 when ' +
              'only deposits fund the prizes (POST …/deposits). Above 0 only the game’s controller (its verified ' +
              'owner, else its creator) may set it (403). Prize runs take at most half of the distributable pool per ' +
              'UTC day across the game’s tournaments: a period past that bound pays less, the rest stays in the pool',
          ),
        }),
        'How each period’s prize pool is funded besides the studio’s deposits into it; required with `prizes`',
      ),
    ),
  ),
  payoutDelaySeconds: z.optional(
    described(
      z.int().check(z.gte(MIN_PAYOUT_DELAY_SECONDS), z.lte(MAX_PAYOUT_DELAY_SECONDS)),
      `Seconds after a period ends before its board is frozen and its prizes paid, so that cheating sessions ` +
        `can be invalidated first (default ${DEFAULT_PAYOUT_DELAY_SECONDS})`,
    ),
  ),
  retentionDays: z.optional(
    described(
      z.int().check(z.gte(MIN_RETENTION_DAYS), z.lte(MAX_RETENTION_DAYS)),
      `Days an ended period's board and entries stay readable (default ${DEFAULT_RETENTION_DAYS})`,
    ),
  ),
};

export const tournamentBody = z.strictObject(editable);
export type TournamentInput = z.output<typeof tournamentBody>;

const periodSchema = withMeta(
  z.object({
    id: described(z.string(), 'The period’s start, which names it'),
    startsAt: z.string(),
    endsAt: z.string(),
    status: z.enum(['upcoming', 'running', 'ended']),
    entrants: described(z.int(), 'Players entered (0 when nobody joined or scored yet)'),
    closedAt: described(
      z.nullable(z.string()),
      'When the board was frozen and the prizes paid (null until then; see …/results)',
    ),
  }),
  { id: 'TournamentPeriod' },
);

export const tournamentSchema = withMeta(
  z.object({
    tournamentId: z.uuid(),
    gameId: z.uuid(),
    title: z.string(),
    description: z.nullable(z.string()),
    startsAt: z.string(),
    endsAt: z.nullable(z.string()),
    recurrence: z.nullable(z.union([z.object({ cron: z.string() }), z.object({ everySeconds: z.int() })])),
    durationSeconds: z.nullable(z.int()),
    until: z.nullable(z.string()),
    scoring: z.enum(['sum', 'best']),
    joinRequired: z.boolean(),
    maxEntrants: z.nullable(z.int()),
    maxAttempts: z.nullable(z.int()),
    tieRule: z.literal('earliest'),
    metadata: z.nullable(z.record(z.string(), z.unknown())),
    prizes: z.array(z.object({ fromRank: z.int(), toRank: z.int(), bps: z.int() })),
    prizePool: z.nullable(z.object({ rewardsPoolBps: z.int() })),
    payoutDelaySeconds: z.int(),
    retentionDays: z.int(),
    status: described(z.enum(['scheduled', 'cancelled']), 'Cancelled tournaments take no more points'),
    createdAt: z.string(),
    updatedAt: z.string(),
    current: described(z.nullable(periodSchema), 'The period running now'),
    next: described(z.nullable(periodSchema), 'The next period to start (for a countdown)'),
  }),
  { id: 'Tournament' },
);

const gameParams = z.object({ gameId: z.uuid() });
const tournamentParams = z.object({ gameId: z.uuid(), tournamentId: z.uuid() });
const periodParams = z.object({
  gameId: z.uuid(),
  tournamentId: z.uuid(),
  periodId: described(z.iso.datetime({ offset: false, precision: 0 }), 'The period’s start'),
});
const page = {
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
  cursor: z.optional(z.string().check(z.maxLength(512))),
};
const cursorMeta = z.object({ limit: z.int(), nextCursor: z.nullable(z.string()) });

const exampleBody = {
  title: 'Weekly sprint',
  startsAt: '2026-12-07T00:00:00Z',
  recurrence: { cron: '0 0 * * 1' },
  durationSeconds: 604_800,
  scoring: 'sum',
  maxEntrants: 10_000,
  prizes: [
    { fromRank: 1, toRank: 1, bps: 5_000 },
    { fromRank: 2, toRank: 5, bps: 1_000 },
  ],
  prizePool: { rewardsPoolBps: 500 },
  payoutDelaySeconds: 3_600,
};

export const createTournamentContract = defineContract({
  operationId: 'createTournament',
  method: 'POST',
  path: '/tournaments/{gameId}',
  tags: TAGS,
  summary: 'Schedule a tournament',
  description:
    'A one-off window (`startsAt`–`endsAt`) or a recurrence (`recurrence` with `durationSeconds`, optionally ' +
    '`until`): each occurrence is a period with its own board. Points saved by the game’s backend and committed ' +
    'by the client SDK count into every running period the player is entered in, atomically with the save. ' +
    `At most ${MAX_LIVE_TOURNAMENTS_PER_GAME} tournaments per game are live (not cancelled, not over): 409 beyond. ` +
    '400 for a schedule that cannot run (end before start, a cron that never fires within a year, overlapping ' +
    'periods), overlapping prize ranges or a table over 10,000 bps. ' +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: gameParams,
  body: tournamentBody,
  response: dataEnvelope(tournamentSchema),
  successStatus: 201,
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
  example: { params: { gameId: EXAMPLE_GAME }, body: exampleBody },
});

export const updateTournamentContract = defineContract({
  operationId: 'updateTournament',
  method: 'PUT',
  path: '/tournaments/{gameId}/{tournamentId}',
  tags: TAGS,
  summary: 'Replace a tournament before it starts',
  description:
    'The whole definition, validated as on creation. Only before its first period starts (409 ' +
    '`TOURNAMENT_STARTED` after: players may already hold points under the old rules). ' +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: tournamentParams,
  body: tournamentBody,
  response: dataEnvelope(tournamentSchema),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'TOURNAMENT_STARTED', 'CONFLICT'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT }, body: exampleBody },
});

export const cancelTournamentContract = defineContract({
  operationId: 'cancelTournament',
  method: 'POST',
  path: '/tournaments/{gameId}/{tournamentId}/cancel',
  tags: TAGS,
  summary: 'Cancel a tournament',
  description:
    'From now on no period runs and no points count; boards of ended periods stay readable for the retention. ' +
    'Cancelling again answers the cancelled tournament. ' +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: tournamentParams,
  response: dataEnvelope(tournamentSchema),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT } },
});

export const listTournamentsContract = defineContract({
  operationId: 'listTournaments',
  method: 'GET',
  path: '/tournaments/{gameId}',
  tags: TAGS,
  summary: 'A game’s tournaments',
  description:
    'Every tournament of the game with its current and next period; players (session or identity-provider ' +
    'token) see the scheduled ones, the studio every one. Cursor pagination (`meta.nextCursor`).',
  auth: [...DEVELOPER, 'session', 'grant'],
  scope: 'read',
  params: gameParams,
  query: z.object(page),
  response: z.object({ data: z.array(tournamentSchema), meta: cursorMeta }),
  rateLimit: { limit: 30, windowSeconds: 10, key: 'user' },
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});

export const getTournamentContract = defineContract({
  operationId: 'getTournament',
  method: 'GET',
  path: '/tournaments/{gameId}/{tournamentId}',
  tags: TAGS,
  summary: 'A tournament, with its current and next period',
  auth: [...DEVELOPER, 'session', 'grant'],
  scope: 'read',
  params: tournamentParams,
  response: dataEnvelope(tournamentSchema),
  rateLimit: { limit: 30, windowSeconds: 10, key: 'user' },
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT } },
});

export const listTournamentPeriodsContract = defineContract({
  operationId: 'listTournamentPeriods',
  method: 'GET',
  path: '/tournaments/{gameId}/{tournamentId}/periods',
  tags: TAGS,
  summary: 'A tournament’s periods that had entrants, newest first',
  description:
    'Periods are kept from their first entrant until `retentionDays` after they end. Cursor pagination ' +
    '(`meta.nextCursor`).',
  auth: [...DEVELOPER, 'session', 'grant'],
  scope: 'read',
  params: tournamentParams,
  query: z.object(page),
  response: z.object({ data: z.array(periodSchema), meta: cursorMeta }),
  rateLimit: { limit: 30, windowSeconds: 10, key: 'user' },
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT } },
});

const standing = z.object({
  rank: z.int(),
  arcId: z.uuid(),
  points: z.int(),
  playerId: described(z.nullable(z.string()), 'The identifier the studio knows the player by'),
  displayName: z.nullable(z.string()),
});

export const getTournamentBoardContract = defineContract({
  operationId: 'getTournamentBoard',
  method: 'GET',
  path: '/tournaments/{gameId}/{tournamentId}/periods/{periodId}/board',
  tags: TAGS,
  summary: 'A period’s board: a page, and a player’s rank with neighbours',
  description:
    'Running or ended (within the retention). Ranks are exact: equal points rank by who reached them first. ' +
    '`me=true` (players) or `arcId` (the studio) adds that player’s rank and neighbours.',
  auth: [...DEVELOPER, 'session', 'grant'],
  scope: 'read',
  params: periodParams,
  query: z.object({
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 10),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(10_000)), 0),
    arcId: z.optional(z.uuid()),
    me: z.optional(z.enum(['true', 'false'])),
  }),
  response: dataEnvelope(
    z.object({
      period: periodSchema,
      entries: z.array(standing),
      player: z.nullable(
        z.object({
          arcId: z.uuid(),
          rank: z.nullable(z.int()),
          points: z.int(),
          playerId: z.nullable(z.string()),
          displayName: z.nullable(z.string()),
          neighbours: z.array(standing),
        }),
      ),
    }),
  ),
  rateLimit: { limit: 30, windowSeconds: 10, key: 'user' },
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT, periodId: EXAMPLE_PERIOD } },
});

const lamportsString = described(z.string().check(z.regex(/^\d+$/)), 'Lamports, as a decimal string (u64)');

const periodResultsSchema = withMeta(
  z.object({
    period: periodSchema,
    status: z.enum(['open', 'paying', 'paid']),
    closesAt: described(z.string(), 'When the board is frozen and the prizes paid'),
    potLamports: described(
      z.nullable(lamportsString),
      'The period’s prize pool, once closed: its share of the rewards pool and its fund',
    ),
    fund: described(
      z.object({
        depositedLamports: described(
          lamportsString,
          'What the studio’s deposits that landed added to the period',
        ),
        deposits: z.int(),
        frozenAt: described(z.nullable(z.string()), 'When the period’s close froze the fund'),
        usedLamports: described(lamportsString, 'What the allocated prizes took of the fund'),
        releasedLamports: described(lamportsString, 'What the prizes did not take: back in the rewards pool'),
      }),
      'The period’s prize fund (studio deposits)',
    ),
    voided: described(
      z.nullable(z.literal('cancelled')),
      '`cancelled`: the tournament was cancelled before the period ended; nothing was paid',
    ),
    results: z.array(
      z.object({
        rank: z.int(),
        arcId: z.uuid(),
        points: z.int(),
        playerId: z.nullable(z.string()),
        displayName: z.nullable(z.string()),
        prizeLamports: described(lamportsString, 'This rank’s share of the pot (0 for an unpaid rank)'),
        payout: z.nullable(
          z.object({
            status: z.enum(['pending', 'confirmed', 'carried']),
            wallet: z.nullable(z.string()),
            sentLamports: lamportsString,
            feeLamports: lamportsString,
            carriedOutLamports: lamportsString,
            signature: described(z.nullable(z.string()), 'The transfer on chain, once confirmed'),
          }),
        ),
      }),
    ),
  }),
  {
    id: 'TournamentPeriodResults',
    examples: [
      {
        period: {
          id: '2026-12-07T00:00:00Z',
          startsAt: '2026-12-07T00:00:00Z',
          endsAt: '2026-12-14T00:00:00Z',
          status: 'ended',
          entrants: 812,
          closedAt: '2026-12-14T01:00:41.000Z',
        },
        status: 'paid',
        closesAt: '2026-12-14T01:00:00.000Z',
        potLamports: '250000000',
        fund: {
          depositedLamports: '200000000',
          deposits: 1,
          frozenAt: '2026-12-14T01:00:40.000Z',
          usedLamports: '200000000',
          releasedLamports: '0',
        },
        voided: null,
        results: [
          {
            rank: 1,
            arcId: '0b7c4f7e-1f7a-4a57-9d3e-6a0f2f9c8d11',
            points: 48_210,
            playerId: 'steam:76561198000000001',
            displayName: 'Nova',
            prizeLamports: '125000000',
            payout: {
              status: 'confirmed',
              wallet: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
              sentLamports: '124995000',
              feeLamports: '5000',
              carriedOutLamports: '0',
              signature:
                '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
            },
          },
        ],
      },
    ],
  },
);

export const getTournamentPeriodResultsContract = defineContract({
  operationId: 'getTournamentPeriodResults',
  method: 'GET',
  path: '/tournaments/{gameId}/{tournamentId}/periods/{periodId}/results',
  tags: TAGS,
  summary: 'A period’s results and prizes, with their transfers',
  description:
    'Once a period closes (its end plus `payoutDelaySeconds`), its board is frozen down to the last paid rank and ' +
    'its prize pool taken from the game’s rewards pool; each prize is then paid once by a transfer from the ' +
    'game’s vault (`confirmed`, with its signature), or `carried` to the player’s next payout of the game when ' +
    'their wallet cannot receive yet. `status`: `open` (not closed yet, or not started: `results` is empty), ' +
    '`paying`, `paid`. `fund` is what the studio deposited for the period (POST …/deposits).',
  auth: [...DEVELOPER, 'session', 'grant'],
  scope: 'read',
  params: periodParams,
  response: dataEnvelope(periodResultsSchema),
  rateLimit: { limit: 30, windowSeconds: 10, key: 'user' },
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT, periodId: EXAMPLE_PERIOD } },
});

const entrySchema = withMeta(
  z.object({
    tournamentId: z.uuid(),
    period: z.string(),
    points: z.int(),
    attempts: described(z.int(), 'Sessions whose points counted'),
    joinedAt: z.string(),
  }),
  { id: 'TournamentEntry' },
);

export const joinTournamentContract = defineContract({
  operationId: 'joinTournament',
  method: 'POST',
  path: '/tournaments/{gameId}/{tournamentId}/join',
  tags: TAGS,
  summary: 'Join the running (or else the next) period',
  description:
    'The caller (a player’s session token of this game, or identity-provider token) enters the period running ' +
    'now, or the next one when none runs. Joining again answers the same entry (200). A full period answers 409 ' +
    '`TOURNAMENT_FULL`; a cancelled or finished tournament 409 `TOURNAMENT_NOT_RUNNING`.',
  auth: PLAYER,
  scope: 'tournaments:join',
  params: tournamentParams,
  response: dataEnvelope(entrySchema),
  successStatus: 201,
  alsoAnswers: [{ status: 200, description: 'Already entered: the entry' }],
  rateLimit: { limit: 10, windowSeconds: 10, key: 'user' },
  errors: ['FORBIDDEN', 'NOT_FOUND', 'TOURNAMENT_FULL', 'TOURNAMENT_NOT_RUNNING'],
  example: { params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT } },
});

export const listMyTournamentEntriesContract = defineContract({
  operationId: 'listMyTournamentEntries',
  method: 'GET',
  path: '/tournament-entries/{gameId}/me',
  tags: TAGS,
  summary: 'The caller’s entries in the game’s tournaments, newest period first',
  auth: PLAYER,
  scope: 'read',
  params: gameParams,
  query: z.object(page),
  response: z.object({ data: z.array(entrySchema), meta: cursorMeta }),
  rateLimit: { limit: 30, windowSeconds: 10, key: 'user' },
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  example: { params: { gameId: EXAMPLE_GAME } },
});

const depositSchema = withMeta(
  z.object({
    depositId: z.uuid(),
    status: described(
      z.enum(['pending', 'completed']),
      '`pending`: sent, not confirmed yet (retry with the same idempotencyKey for the outcome)',
    ),
    tournamentId: z.uuid(),
    periodId: z.string(),
    lamports: lamportsString,
    fromWallet: described(z.string(), 'The depositor’s embedded wallet, which paid'),
    vaultAddress: described(z.string(), 'The game’s vault, which holds the fund until the period closes'),
    signature: z.nullable(z.string()),
    credited: described(
      z.nullable(z.enum(['period', 'pool'])),
      '`period`: added to the period’s prize fund; `pool`: it landed after the period’s close froze the fund, ' +
        'so it went to the game’s rewards pool; null while pending',
    ),
    createdAt: z.string(),
    completedAt: z.nullable(z.string()),
    replayed: described(z.boolean(), 'This idempotencyKey was seen before: its deposit, not a new one'),
  }),
  {
    id: 'TournamentDeposit',
    examples: [
      {
        depositId: '9b2f6c1d-4e3a-4f5b-8c7d-1e2f3a4b5c6d',
        status: 'completed',
        tournamentId: EXAMPLE_TOURNAMENT,
        periodId: EXAMPLE_PERIOD,
        lamports: '200000000',
        fromWallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
        vaultAddress: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
        signature: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
        credited: 'period',
        createdAt: '2026-12-06T18:00:00.000Z',
        completedAt: '2026-12-06T18:00:02.000Z',
        replayed: false,
      },
    ],
  },
);

export const depositTournamentFundsContract = defineContract({
  operationId: 'depositTournamentFunds',
  method: 'POST',
  path: '/tournaments/{gameId}/{tournamentId}/deposits',
  tags: TAGS,
  summary: 'Fund a period’s prizes with a deposit',
  description:
    'Sends `lamports` from the caller’s embedded wallet (delegated to the platform, like a multiplier purchase) ' +
    'to the game’s vault, for the prizes of one period: `periodId`, or by default the period running now, else ' +
    'the next. The deposit is recorded before anything is sent and is idempotent per caller and ' +
    '`idempotencyKey` (a retry never charges twice). When its transfer lands it is added to the period’s prize ' +
    'fund and earmarked on the pool’s books: the daily payouts never take it. At the period’s close the pot is ' +
    'its share of the rewards pool plus the fund; what the prizes do not take (ranks nobody reached, rounding) ' +
    'goes to the game’s rewards pool, as does the whole fund of a period voided by a cancellation, and a deposit ' +
    'that lands after the close. The vault keeps its rent-exempt minimum: when the rewards pool holds less, the ' +
    'fund tops it up. A tournament without a prize table cannot be funded (400); a cancelled tournament or a ' +
    'period that has ended 409 `TOURNAMENT_NOT_RUNNING`. ' +
    OWNER_ONLY,
  auth: DEVELOPER,
  params: tournamentParams,
  body: z.strictObject({
    lamports: described(
      z.pipe(
        z
          .string()
          .check(z.regex(/^[1-9][0-9]{0,18}$/, 'must be a positive integer number of lamports, as a string')),
        z.transform((v) => BigInt(v)),
      ),
      'Lamports to deposit, as a string: at least 10000000 (0.01 SOL), at most 1000000000000000 (1,000,000 SOL)',
    ),
    periodId: z.optional(described(z.string().check(z.minLength(1), z.maxLength(40)), 'The period to fund')),
    idempotencyKey: described(
      z
        .string()
        .check(z.regex(/^[A-Za-z0-9._:-]{8,128}$/, 'must be 8-128 characters of A-Z a-z 0-9 . _ : -')),
      'Unique per deposit (e.g. a UUID); reuse it to retry the same deposit',
    ),
  }),
  response: dataEnvelope(depositSchema),
  successStatus: 201,
  alsoAnswers: [
    { status: 200, description: 'This idempotencyKey’s deposit, already completed (`replayed: true`)' },
    {
      status: 202,
      description: 'Sent, not confirmed yet (`status: pending`): retry with the same idempotencyKey',
    },
  ],
  rateLimit: { limit: 10, windowSeconds: 60, key: 'user' },
  errors: [
    ...AUTH_ERRORS,
    'FORBIDDEN',
    'NOT_FOUND',
    'INSUFFICIENT_BALANCE',
    'NO_EMBEDDED_WALLET',
    'WALLET_DELEGATION_REQUIRED',
    'CONFLICT',
    'TOURNAMENT_NOT_RUNNING',
  ],
  example: {
    params: { gameId: EXAMPLE_GAME, tournamentId: EXAMPLE_TOURNAMENT },
    body: {
      lamports: '200000000',
      periodId: EXAMPLE_PERIOD,
      idempotencyKey: '0c4f2a8e-5b1d-4e7a-9c3f-2d6b8a1e4f70',
    },
  },
});
