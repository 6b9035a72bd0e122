import * as z from 'zod';
import { defineContract } from '../http/contract.js';
import { dataEnvelope } from '../http/schemas.js';

const HMAC = ['hmac'] as const;
const OWNER_ERRORS = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE', 'FORBIDDEN', 'NOT_FOUND'] as const;

const token = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -');
const playerId = z
  .string()
  .min(1)
  .max(300)
  .describe('Player identifier: Arc ID, did:<idp>:<id>, sol:/solana:, eth:/ethereum:, x:/twitter:, email:');
const mapping = z.record(z.string(), z.uuid()).describe('Supplied identifiers → Arc IDs; cache it');
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be yyyy-mm-dd');

export const SESSION_STATUSES = ['active', 'committed', 'invalidated'] as const;

export const sessionSchema = z
  .object({
    sessionId: z.string(),
    gameId: z.uuid(),
    arcId: z.uuid(),
    source: z.enum(['backend', 'sdk']),
    status: z.enum(SESSION_STATUSES),
    day: z.string().describe('UTC day the session counts towards'),
    points: z.number().int().describe('Points counted (after caps), 0 once invalidated'),
    pendingPoints: z.number().int().describe('SDK sessions: flushed but not yet committed'),
    saves: z.number().int().describe('Backend saves or SDK flushes'),
    capHits: z.number().int(),
    riskScore: z.number().min(0).max(1),
    riskReasons: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    invalidatedPoints: z.number().int().nullable(),
  })
  .meta({ id: 'PlaySession' });

const entryResult = z.object({
  index: z.number().int(),
  playerId: z.string(),
  arcId: z.uuid(),
  sessionId: z.string(),
  requested: z.number().int(),
  accepted: z.number().int().describe('Points actually counted'),
  status: z.enum(['accepted', 'clipped', 'rejected', 'duplicate']),
  reason: z
    .enum([
      'max_score_per_session',
      'max_cumulative_points_per_day',
      'max_sessions_per_day',
      'session_closed',
    ])
    .nullable(),
});

export const batchSavePointsContract = defineContract({
  operationId: 'batchSavePoints',
  method: 'POST',
  path: '/play/dev/batch-save-points',
  tags: ['Play (developer)'],
  summary: 'Batch save player points',
  description:
    'Up to 100 entries. Caps are enforced atomically: maxScorePerSession per session, maxCumulativePointsPerDay ' +
    'per player and UTC day, maxSessionsPerDay new sessions per player and day. An entry over a cap is clipped ' +
    '(status `clipped`, reason) or, when nothing fits, `rejected`; concurrent batches never exceed a cap. An ' +
    "entry without sessionId counts towards the player's default backend session of the day. An entry with an " +
    'idempotencyKey is applied at most once per game (24 h): a retry answers `duplicate` with the first result. ' +
    'Cost: one GetItem (game), one BatchGetItem per 100 identifiers (plus one transaction per new player), one ' +
    'BatchGetItem for current totals, and TransactWriteItems of up to 100 items each grouping several players ' +
    "(a player's writes are never split), in parallel. " +
    'Limit: 3 requests per second per API key.',
  auth: HMAC,
  body: z.object({
    gameId: z.uuid(),
    entries: z
      .array(
        z.object({
          playerId,
          points: z.number().int().min(0).max(1_000_000_000),
          sessionId: token.optional(),
          idempotencyKey: token.optional(),
        }),
      )
      .min(1)
      .max(100),
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
  auth: HMAC,
  query: z.object({
    gameId: z.uuid(),
    playerIds: z
      .string()
      .min(1)
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(z.array(playerId).min(1).max(100))
      .describe('Comma-separated player identifiers (≤ 100)'),
  }),
  response: dataEnvelope(
    z.object({
      day: z.string(),
      playerIdToArcId: z.record(z.string(), z.uuid().nullable()),
      points: z.array(
        z.object({
          playerId: z.string(),
          arcId: z.uuid().nullable(),
          today: z.number().int(),
          allTime: z.number().int(),
        }),
      ),
    }),
  ),
  errors: [...OWNER_ERRORS, 'INVALID_IDENTIFIER'],
  example: { query: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f', playerIds: 'x:player_one' } },
});

const leaderboardEntry = z.object({ rank: z.number().int(), arcId: z.uuid(), points: z.number().int() });

export const getDevLeaderboardContract = defineContract({
  operationId: 'getDevLeaderboard',
  method: 'GET',
  path: '/play/dev/leaderboard/{gameId}',
  tags: ['Play (developer)'],
  summary: 'Game leaderboard',
  description:
    'Daily (a UTC day, today by default) or all-time. Ranks are dense by position: ties are broken by who ' +
    "reached the score first, then by Arc ID. With `player`, also that player's rank and up to two neighbours " +
    'on each side.',
  auth: HMAC,
  params: z.object({ gameId: z.uuid() }),
  query: z.object({
    period: z.enum(['daily', 'alltime']).default('daily'),
    day: day.optional().describe('For period=daily; defaults to today (UTC)'),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    offset: z.coerce.number().int().min(0).max(10_000).default(0),
    player: playerId.optional(),
  }),
  response: dataEnvelope(
    z.object({
      period: z.enum(['daily', 'alltime']),
      day: z.string().nullable(),
      entries: z.array(leaderboardEntry),
      player: z
        .object({
          playerId: z.string(),
          arcId: z.uuid().nullable(),
          rank: z.number().int().nullable(),
          points: z.number().int(),
          neighbours: z.array(leaderboardEntry),
        })
        .optional(),
    }),
  ),
  errors: [...OWNER_ERRORS, 'INVALID_IDENTIFIER'],
  example: { params: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' }, query: { period: 'alltime' } },
});

const sessionQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(2048).optional().describe('Opaque cursor from the previous page'),
};

export const listDevSessionsContract = defineContract({
  operationId: 'listDevSessions',
  method: 'GET',
  path: '/play/dev/sessions/{gameId}',
  tags: ['Play (developer)'],
  summary: 'Player sessions with anti-cheat data',
  description: 'Newest first; filter by player and status; cursor pagination (`meta.nextCursor`).',
  auth: HMAC,
  params: z.object({ gameId: z.uuid() }),
  query: z.object({
    ...sessionQuery,
    player: playerId.optional(),
    status: z.enum(SESSION_STATUSES).optional(),
  }),
  response: z.object({
    data: z.array(sessionSchema),
    meta: z.object({ limit: z.number().int(), nextCursor: z.string().nullable() }),
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
  auth: HMAC,
  params: z.object({ gameId: z.uuid() }),
  query: z.object(sessionQuery),
  response: z.object({
    data: z.array(sessionSchema),
    meta: z.object({ limit: z.number().int(), nextCursor: z.string().nullable() }),
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
  auth: HMAC,
  body: z.object({ gameId: z.uuid(), sessionIds: z.array(token).min(1).max(100) }),
  response: dataEnvelope(
    z.object({
      invalidated: z.array(
        z.object({ sessionId: z.string(), arcId: z.uuid(), pointsRemoved: z.number().int() }),
      ),
      alreadyInvalidated: z.array(z.string()),
      notFound: z.array(z.string()),
    }),
  ),
  errors: [...OWNER_ERRORS],
  example: { body: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f', sessionIds: ['match-42'] } },
});
