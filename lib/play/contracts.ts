import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, utcDaySchema as day, described, withMeta } from '../core/schemas.js';
import { PLAY_CAPS } from '../games/index.js';
import { boardEntrySchema } from './ranks/contracts.js';

const n = (x: number) => x.toLocaleString('en-US');

// Developer operations: an HMAC signature or the user's identity-provider token, the same rules either way.
const DEVELOPER = ['hmac', 'bearer'] as const;
const OWNER_ERRORS = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE', 'FORBIDDEN', 'NOT_FOUND'] as const;

const token = z
  .string()
  .check(z.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -'));
const playerId = described(
  z.string().check(z.minLength(1), z.maxLength(300)),
  'Player identifier: Arc ID, did:<idp>:<id>, sol:/solana:, eth:/ethereum:, x:/twitter:, email:',
);
const mapping = described(z.record(z.string(), z.uuid()), 'Supplied identifiers → Arc IDs; cache it');

export const SESSION_STATUSES = ['active', 'committed', 'invalidated'] as const;

export const sessionSchema = withMeta(
  z.object({
    sessionId: z.string(),
    gameId: z.uuid(),
    arcId: z.uuid(),
    source: z.enum(['backend', 'sdk']),
    status: z.enum(SESSION_STATUSES),
    day: described(z.string(), 'UTC day the session counts towards'),
    points: described(z.int(), 'Points counted (after caps), 0 once invalidated'),
    pendingPoints: described(z.int(), 'SDK sessions: flushed but not yet committed'),
    saves: described(z.int(), 'Backend saves or SDK flushes'),
    capHits: z.int(),
    riskScore: z.number().check(z.gte(0), z.lte(1)),
    riskReasons: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    invalidatedPoints: z.nullable(z.int()),
  }),
  { id: 'PlaySession' },
);

const entryResult = z.object({
  index: z.int(),
  playerId: z.string(),
  arcId: z.uuid(),
  sessionId: z.string(),
  requested: z.int(),
  accepted: described(z.int(), 'Points actually counted'),
  status: z.enum(['accepted', 'clipped', 'rejected', 'duplicate']),
  reason: z.nullable(
    z.enum([
      'max_score_per_session',
      'max_cumulative_points_per_day',
      'max_sessions_per_day',
      'session_closed',
    ]),
  ),
});

export const batchSavePointsContract = defineContract({
  operationId: 'batchSavePoints',
  method: 'POST',
  path: '/play/dev/batch-save-points',
  tags: ['Play (developer)'],
  summary: 'Batch save player points',
  description:
    'Up to 100 entries. Caps are enforced atomically: maxScorePerSession per session, maxCumulativePointsPerDay ' +
    'per player and UTC day (shared with the client SDK path), maxSessionsPerDay new sessions per player and ' +
    `day; a game that sets none has the defaults (${n(PLAY_CAPS.maxScorePerSession.default)}, ` +
    `${n(PLAY_CAPS.maxCumulativePointsPerDay.default)} and ${n(PLAY_CAPS.maxSessionsPerDay.default)}). The ` +
    "players' per-second earning budget of the client SDK (maxPointsPerSecond, maxBurstPoints) does not apply " +
    "here: the game's server saves points it computed itself, often a whole match at once, and is bounded by " +
    'the caps. An entry over a cap is clipped ' +
    '(status `clipped`, reason) or, when nothing fits, `rejected`; concurrent batches never exceed a cap. An ' +
    "entry without sessionId counts towards the player's default backend session of the day. An entry with an " +
    'idempotencyKey is applied at most once per game (24 h): a retry answers `duplicate` with the first result. ' +
    'Cost: one GetItem (game), one BatchGetItem per 100 identifiers (plus one transaction per new player), one ' +
    'BatchGetItem for current totals, and TransactWriteItems of up to 100 items each grouping several players ' +
    "(a player's writes are never split), in parallel. " +
    'Limit: 3 requests per second per API key.',
  auth: DEVELOPER,
  body: z.object({
    gameId: z.uuid(),
    entries: z
      .array(
        z.object({
          playerId,
          points: z.int().check(z.gte(0), z.lte(1_000_000_000)),
          sessionId: z.optional(token),
          idempotencyKey: z.optional(token),
        }),
      )
      .check(z.minLength(1), z.maxLength(100)),
  }),
  response: dataEnvelope(
    z.object({
      playerIdToArcId: mapping,
      results: z.array(entryResult),
    }),
  ),
  rateLimit: { limit: 3, windowSeconds: 1, key: 'apiKey' },
  errors: [...OWNER_ERRORS, 'INVALID_IDENTIFIER'],
  example: {
    body: {
      gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
      entries: [{ playerId: 'x:player_one', points: 120 }],
    },
  },
});

export const getDevPointsContract = defineContract({
  operationId: 'getDevPoints',
  method: 'GET',
  path: '/play/dev/points',
  tags: ['Play (developer)'],
  summary: "Players' points for today",
  description:
    'Today (UTC) and all-time points of up to 100 players, given as comma-separated identifiers. Unknown players ' +
    'are not created by this read: they answer 0 with a null Arc ID.',
  auth: DEVELOPER,
  query: z.object({
    gameId: z.uuid(),
    playerIds: described(
      z.pipe(
        z.pipe(
          z.string().check(z.minLength(1)),
          z.transform((v) =>
            v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        ),
        z.array(playerId).check(z.minLength(1), z.maxLength(100)),
      ),
      'Comma-separated player identifiers (≤ 100)',
    ),
  }),
  response: dataEnvelope(
    z.object({
      day: z.string(),
      playerIdToArcId: z.record(z.string(), z.nullable(z.uuid())),
      points: z.array(
        z.object({
          playerId: z.string(),
          arcId: z.nullable(z.uuid()),
          today: z.int(),
          allTime: z.int(),
        }),
      ),
    }),
  ),
  errors: [...OWNER_ERRORS, 'INVALID_IDENTIFIER'],
  example: { query: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f', playerIds: 'x:player_one' } },
});

export const getDevLeaderboardContract = defineContract({
  operationId: 'getDevLeaderboard',
  method: 'GET',
  path: '/play/dev/leaderboard/{gameId}',
  tags: ['Play (developer)'],
  summary: 'Game leaderboard',
  description:
    'Daily (a UTC day, today by default) or all-time. Ranks are dense by position: ties are broken by who ' +
    "reached the score first, then by Arc ID. With `player`, also that player's rank and up to two neighbours " +
    "on each side. Entries carry the player's studio identifier (`playerId`: the identifier your game knows it " +
    'by, emails included) and display name (PUT /play/dev/players/{gameId}/name), read in one more wave.',
  auth: DEVELOPER,
  params: z.object({ gameId: z.uuid() }),
  query: z.object({
    period: z._default(z.enum(['daily', 'alltime']), 'daily'),
    day: described(z.optional(day), 'For period=daily; defaults to today (UTC)'),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(10_000)), 0),
    player: z.optional(playerId),
  }),
  response: dataEnvelope(
    z.object({
      period: z.enum(['daily', 'alltime']),
      day: z.nullable(z.string()),
      entries: z.array(boardEntrySchema),
      player: z.optional(
        z.object({
          playerId: z.string(),
          arcId: z.nullable(z.uuid()),
          displayName: z.nullable(z.string()),
          rank: z.nullable(z.int()),
          points: z.int(),
          neighbours: z.array(boardEntrySchema),
        }),
      ),
    }),
  ),
  errors: [...OWNER_ERRORS, 'INVALID_IDENTIFIER'],
  example: { params: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' }, query: { period: 'alltime' } },
});

const sessionQuery = {
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  cursor: described(z.optional(z.string().check(z.maxLength(2048))), 'Opaque cursor from the previous page'),
};

export const listDevSessionsContract = defineContract({
  operationId: 'listDevSessions',
  method: 'GET',
  path: '/play/dev/sessions/{gameId}',
  tags: ['Play (developer)'],
  summary: 'Player sessions with anti-cheat data',
  description: 'Newest first; filter by player and status; cursor pagination (`meta.nextCursor`).',
  auth: DEVELOPER,
  params: z.object({ gameId: z.uuid() }),
  query: z.object({
    ...sessionQuery,
    player: z.optional(playerId),
    status: z.optional(z.enum(SESSION_STATUSES)),
  }),
  response: z.object({
    data: z.array(sessionSchema),
    meta: z.object({ limit: z.int(), nextCursor: z.nullable(z.string()) }),
  }),
  errors: [...OWNER_ERRORS, 'INVALID_IDENTIFIER'],
  example: { params: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});

export const listRiskySessionsContract = defineContract({
  operationId: 'listRiskySessions',
  method: 'GET',
  path: '/play/dev/risky-sessions/{gameId}',
  tags: ['Play (developer)'],
  summary: 'Flagged sessions (risk score above 0.5)',
  description: 'Highest risk first, from a sparse index that holds only flagged sessions.',
  auth: DEVELOPER,
  params: z.object({ gameId: z.uuid() }),
  query: z.object(sessionQuery),
  response: z.object({
    data: z.array(sessionSchema),
    meta: z.object({ limit: z.int(), nextCursor: z.nullable(z.string()) }),
  }),
  errors: [...OWNER_ERRORS],
  example: { params: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});

export const invalidateSessionsContract = defineContract({
  operationId: 'invalidateSessions',
  method: 'POST',
  path: '/play/dev/invalidate-sessions',
  tags: ['Play (developer)'],
  summary: 'Invalidate fraudulent sessions and remove their points',
  description:
    'Each session is invalidated exactly once: its points leave the day total, the all-time total and the ' +
    'leaderboards in one transaction, and no later save can add to it. Calling again reports it under ' +
    '`alreadyInvalidated` and removes nothing.',
  auth: DEVELOPER,
  body: z.object({ gameId: z.uuid(), sessionIds: z.array(token).check(z.minLength(1), z.maxLength(100)) }),
  response: dataEnvelope(
    z.object({
      invalidated: z.array(z.object({ sessionId: z.string(), arcId: z.uuid(), pointsRemoved: z.int() })),
      alreadyInvalidated: z.array(z.string()),
      notFound: z.array(z.string()),
    }),
  ),
  errors: [...OWNER_ERRORS],
  example: { body: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f', sessionIds: ['match-42'] } },
});
