// The boards as a game's client reads them (a play session token or the player's identity token, no developer
// key), and the players' display names: set by the player or, moderated and lockable, by the studio.
import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, utcDaySchema as day, described, withMeta } from '../../core/schemas.js';
import { DISPLAY_NAME_MAX } from '../display-name.js';

const GAME_ID = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
// A session token or the player's identity-provider token: the same rules either way.
const PLAYER = ['session', 'bearer', 'grant'] as const;
const PLAYER_ERRORS = ['FORBIDDEN', 'NOT_FOUND'] as const;
const WHO =
  'With a play session token (GET /play/session-token) for this game — a token of another game is refused ' +
  "with 403 — or with the player's identity-provider token. ";

export const periodQuery = {
  period: z._default(z.enum(['daily', 'alltime']), 'daily'),
  day: described(z.optional(day), 'For period=daily: a UTC day (yyyy-mm-dd); defaults to today (UTC)'),
};

const EXAMPLE_ENTRY = {
  rank: 1,
  arcId: '3d0f7c1a-5b2e-4f8a-9c61-7e4d2b1a0c93',
  playerId: 'x:player_one',
  displayName: 'Star Catcher',
  points: 120,
};

/** A standing on a board as every board read shows it. */
export const boardEntrySchema = withMeta(
  z.object({
    rank: z.int(),
    arcId: z.uuid(),
    playerId: described(
      z.nullable(z.string()),
      'The identifier the studio knows the player by (docs/leaderboards.md, "Player reads"): its subject of the ' +
        "game's own auth, else the identifier its user was created with (a batch save's playerId, normalised, or " +
        'its identity-provider subject). Accepted back as a playerId by the developer routes. Null when none; ' +
        "player reads never show another player's email",
    ),
    displayName: described(z.nullable(z.string()), 'Set by the studio or the player; null when none'),
    points: z.int(),
  }),
  { id: 'BoardEntry', examples: [EXAMPLE_ENTRY] },
);

const displayNameField = described(
  z.nullable(z.string().check(z.maxLength(256))),
  `1–${DISPLAY_NAME_MAX} characters after NFC normalisation: letters, digits, single spaces and - _ . ' ! ? ( ) &; ` +
    'no control, format (bidi, zero-width) or other invisible characters, symbols or emoji. Null removes the name',
);
const nameResult = z.object({
  arcId: z.uuid(),
  displayName: z.nullable(z.string()),
  locked: described(z.boolean(), 'Locked by the studio: the player cannot change it'),
});

export const getLeaderboardContract = defineContract({
  operationId: 'getLeaderboard',
  method: 'GET',
  path: '/play/leaderboard/{gameId}',
  tags: ['Play'],
  summary: "A game's board, as its players read it",
  description:
    WHO +
    'Daily (a UTC day, today by default) or all-time, a page of `limit` from rank `offset + 1`: the same board ' +
    'and order as GET /play/dev/leaderboard/{gameId} (ties go to who reached the score first). Entries carry ' +
    "the player's studio identifier and display name, read in one more wave of two batched reads whatever the " +
    'board size. 10 per 10 seconds per player.',
  auth: PLAYER,
  scope: 'read',
  params: z.object({ gameId: z.uuid() }),
  query: z.object({
    ...periodQuery,
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 10),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(10_000)), 0),
  }),
  response: dataEnvelope(
    z.object({
      period: z.enum(['daily', 'alltime']),
      day: z.nullable(z.string()),
      entries: z.array(boardEntrySchema),
    }),
  ),
  rateLimit: { limit: 10, windowSeconds: 10, key: 'user' },
  errors: [...PLAYER_ERRORS],
  example: { params: { gameId: GAME_ID }, query: { period: 'daily', limit: '10' } },
});

export const getMyRankContract = defineContract({
  operationId: 'getMyRank',
  method: 'GET',
  path: '/play/leaderboard/{gameId}/me',
  tags: ['Play'],
  summary: "The player's own rank, with its neighbours",
  description:
    WHO +
    "The calling player's rank and points on the daily (a UTC day, today by default) or all-time board, and up " +
    'to two neighbours on each side; `rank` is null and `neighbours` empty when the player has no points there. ' +
    '10 per 10 seconds per player.',
  auth: PLAYER,
  scope: 'read',
  params: z.object({ gameId: z.uuid() }),
  query: z.object(periodQuery),
  response: dataEnvelope(
    z.object({
      period: z.enum(['daily', 'alltime']),
      day: z.nullable(z.string()),
      player: z.object({
        rank: z.nullable(z.int()),
        arcId: z.uuid(),
        playerId: z.nullable(z.string()),
        displayName: z.nullable(z.string()),
        points: z.int(),
        neighbours: z.array(boardEntrySchema),
      }),
    }),
  ),
  rateLimit: { limit: 10, windowSeconds: 10, key: 'user' },
  errors: [...PLAYER_ERRORS],
  example: { params: { gameId: GAME_ID }, query: { period: 'alltime' } },
});

export const setMyDisplayNameContract = defineContract({
  operationId: 'setMyDisplayName',
  method: 'PUT',
  path: '/play/players/{gameId}/me/name',
  tags: ['Play'],
  summary: "Set the player's own display name in a game",
  description:
    WHO +
    'Moderated by length and charset (400 INVALID_DISPLAY_NAME naming the reason); 403 DISPLAY_NAME_LOCKED ' +
    'when the studio set the name and locked it. 5 per minute per player.',
  auth: PLAYER,
  scope: 'play',
  params: z.object({ gameId: z.uuid() }),
  body: z.object({ displayName: displayNameField }),
  response: dataEnvelope(nameResult),
  rateLimit: { limit: 5, windowSeconds: 60, key: 'user' },
  errors: [...PLAYER_ERRORS, 'INVALID_DISPLAY_NAME', 'DISPLAY_NAME_LOCKED'],
  example: { params: { gameId: GAME_ID }, body: { displayName: 'Star Catcher' } },
});

export const setPlayerDisplayNameContract = defineContract({
  operationId: 'setPlayerDisplayName',
  method: 'PUT',
  path: '/play/dev/players/{gameId}/name',
  tags: ['Play (developer)'],
  summary: "Set a player's display name in your game",
  description:
    'The studio names a player it knows (any identifier the developer routes accept; 404 for a player never ' +
    'seen), with the same moderation as the player (400 INVALID_DISPLAY_NAME). `locked: true` keeps the player ' +
    'from changing it (to moderate a name: set another, or null, locked); false or absent lets the player ' +
    'change it again. 10 per second per API key.',
  auth: ['hmac', 'bearer'],
  params: z.object({ gameId: z.uuid() }),
  body: z.object({
    playerId: z.string().check(z.minLength(1), z.maxLength(300)),
    displayName: displayNameField,
    locked: z.optional(z.boolean()),
  }),
  response: dataEnvelope(nameResult),
  rateLimit: { limit: 10, windowSeconds: 1, key: 'apiKey' },
  errors: [
    'INVALID_SIGNATURE',
    'TIMESTAMP_OUT_OF_RANGE',
    'FORBIDDEN',
    'NOT_FOUND',
    'INVALID_IDENTIFIER',
    'INVALID_DISPLAY_NAME',
  ],
  example: {
    params: { gameId: GAME_ID },
    body: { playerId: 'x:player_one', displayName: 'Player One', locked: true },
  },
});
