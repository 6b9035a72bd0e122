import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, described } from '../../core/schemas.js';
import { PLAY_CAPS } from '../../games/index.js';

const hex64 = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'));
const n = (x: number) => x.toLocaleString('en-US');
const BUDGET =
  "The points a flush counts come from the player's earning budget in the game: one token bucket shared by all " +
  `the player's sessions, refilled at the game's maxPointsPerSecond (default ${n(PLAY_CAPS.maxPointsPerSecond.default)}) ` +
  `up to maxBurstPoints (default ${n(PLAY_CAPS.maxBurstPoints.default)}), so parallel sessions share one rate and an ` +
  'idle player banks at most the burst. Points over the budget are dropped, not carried over: `accepted` < `delta` ' +
  'with `reason: implausible_rate`; the chain still advances and the commit `total` still counts the whole delta. ';
const PROTOCOL =
  'Protocol (docs/play-protocol.md): h0 = chainSeed; flush n sends {seq: n, delta, clientTime, prevHash: h(n-1), hash: h(n)} with ' +
  'h(n) = hex sha256 of `arcadia-flush-v1|<sessionId>|<seq>|<delta>|<clientTime>|<prevHash>`. ';

export const getSessionTokenContract = defineContract({
  operationId: 'getSessionToken',
  method: 'GET',
  path: '/play/session-token',
  tags: ['Play'],
  summary: 'Obtain a player session token',
  description:
    'Opens a play session. Authenticate the player with a platform identity token, or with a token of the ' +
    "game's own auth (JWT signed by a key in the game's jwksUrl; RS256, ES256 or EdDSA; `aud` = gameId; `sub` = " +
    'player id). Counts against maxSessionsPerDay (403 SESSION_LIMIT_REACHED). Returns a session token (HS256 JWT, ' +
    'valid 2 h) to send as `Authorization: Bearer` on the other /play endpoints, and the chain seed h0. The ' +
    "session keeps the game's caps as of its opening (a change applies to sessions opened after it). " +
    PROTOCOL,
  auth: ['bearer', 'grant'],
  scope: 'play',
  query: z.object({
    gameId: z.uuid(),
    idempotencyKey: described(
      z.optional(
        z
          .string()
          .check(z.regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces')),
      ),
      'Makes a retried request safe: the same key from the same player for the same game answers the session ' +
        'the first request opened (same sessionId and chainSeed, a fresh token), not counted again against ' +
        'maxSessionsPerDay; 409 SESSION_CLOSED once that session has been committed, invalidated or has expired.',
    ),
  }),
  response: dataEnvelope(
    z.object({ sessionToken: z.string(), sessionId: z.uuid(), expiresAt: z.string(), chainSeed: hex64 }),
  ),
  errors: ['NOT_FOUND', 'SESSION_LIMIT_REACHED', 'SESSION_CLOSED'],
  example: { query: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});

export const flushContract = defineContract({
  operationId: 'flushPoints',
  method: 'POST',
  path: '/play/flush',
  tags: ['Play'],
  summary: 'Flush points with a hash-chain proof',
  description:
    PROTOCOL +
    'The server checks seq = last + 1 (else 409 FLUSH_OUT_OF_ORDER), prevHash = its head and the recomputed hash ' +
    '(else 409 CHAIN_BROKEN), and advances the head with one conditional write, so a replayed or concurrent flush ' +
    'never counts twice. ' +
    BUDGET +
    'An active multiplier then scales them, and what remains of maxScorePerSession bounds the result (`reason: ' +
    'max_score_per_session`). The budget is drawn in the same transaction as the head moves, conditional on the ' +
    "budget read, so two sessions never spend the same points; 409 CONFLICT when the player's other sessions kept " +
    'drawing on it (nothing was counted: send the same flush again). Points stay pending until commit. 1 per second.',
  auth: ['session'],
  scope: 'play',
  body: z.object({
    seq: z.int().check(z.gte(1)),
    delta: z.int().check(z.gte(0), z.lte(1_000_000_000)),
    clientTime: described(
      z.int().check(z.gte(0)),
      'Client clock, Unix ms (covered by the hash; used for risk only)',
    ),
    prevHash: hex64,
    hash: hex64,
  }),
  response: dataEnvelope(
    z.object({
      seq: z.int(),
      head: hex64,
      accepted: z.int(),
      pendingPoints: z.int(),
      reason: described(
        z.nullable(z.enum(['max_score_per_session', 'implausible_rate'])),
        "Why `accepted` is less than the delta: `implausible_rate`, over the player's earning budget; " +
          '`max_score_per_session`, the session cap',
      ),
    }),
  ),
  rateLimit: { limit: 1, windowSeconds: 1, key: 'session' },
  errors: ['FLUSH_OUT_OF_ORDER', 'CHAIN_BROKEN', 'SESSION_CLOSED', 'NOT_FOUND', 'CONFLICT'],
});

export const commitContract = defineContract({
  operationId: 'commitSession',
  method: 'POST',
  path: '/play/commit',
  tags: ['Play'],
  summary: 'Commit the session points',
  description:
    'Seals the session: `seq` and `head` must be the server head and `total` the sum of every flushed delta (else ' +
    '409 CHAIN_BROKEN — resync first). Pending points move into the day and all-time totals and leaderboards, ' +
    `bounded by maxCumulativePointsPerDay (default ${n(PLAY_CAPS.maxCumulativePointsPerDay.default)}, clipped: true ` +
    'when it applied). Retrying the same commit (same seq, head and total) after a lost ' +
    'answer returns the first result again and counts nothing twice. 1 per 5 seconds.',
  auth: ['session'],
  scope: 'play',
  body: z.object({ seq: z.int().check(z.gte(0)), head: hex64, total: z.int().check(z.gte(0)) }),
  response: dataEnvelope(
    z.object({ status: z.literal('committed'), committedPoints: z.int(), clipped: z.boolean() }),
  ),
  rateLimit: { limit: 1, windowSeconds: 5, key: 'session' },
  errors: ['CHAIN_BROKEN', 'SESSION_CLOSED', 'NOT_FOUND', 'CONFLICT'],
});

export const sessionStateContract = defineContract({
  operationId: 'getSessionState',
  method: 'GET',
  path: '/play/session-state',
  tags: ['Play'],
  summary: 'Current session state, for resync',
  description:
    'After a crash or a lost response, continue from `seq` and `head`. Resyncs are a (mild) risk signal.',
  auth: ['session'],
  scope: 'play',
  response: dataEnvelope(
    z.object({
      sessionId: z.uuid(),
      gameId: z.uuid(),
      status: z.enum(['active', 'committed', 'invalidated']),
      seq: z.int(),
      head: hex64,
      pendingPoints: z.int(),
      committedPoints: z.int(),
      claimedTotal: z.int(),
      expiresAt: z.string(),
    }),
  ),
  errors: ['NOT_FOUND'],
});

export const getPlayerPointsContract = defineContract({
  operationId: 'getPlayerPoints',
  method: 'GET',
  path: '/play/get-points',
  tags: ['Play'],
  summary: "Player's current points",
  description: "The session player's committed points in the session's game: today (UTC) and all time.",
  auth: ['session'],
  scope: 'read',
  response: dataEnvelope(
    z.object({
      gameId: z.uuid(),
      arcId: z.uuid(),
      day: z.string(),
      today: z.int(),
      allTime: z.int(),
    }),
  ),
  errors: [],
});
