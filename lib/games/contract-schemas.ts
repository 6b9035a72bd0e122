// The games contracts' building blocks: request fields and their limits, the game as the API shows it.
import * as z from 'zod/mini';
import { MAX_BINARY_BODY_BYTES, MAX_TEXT_BODY_BYTES } from '../core/payload.js';
import { described, withMeta } from '../core/schemas.js';
import { capDescription, PLAY_CAPS, type PlayCapName } from './caps.js';
import { PLATFORMS } from './model.js';
import { UPLOAD_KEY_PATTERN } from './upload-policy.js';

/**
 * Developer operations: an HMAC signature (game backends) or the user's identity-provider token (the studio
 * console), with the same authorization rules either way.
 */
export const DEVELOPER = ['hmac', 'bearer'] as const;
export const AUTH_ERRORS = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE'] as const;
/**
 * API Gateway's own cap (10 MB): the outer bound of the raw-body guard. The limits that matter are smaller and
 * depend on the media type (lib/core/payload.ts); the upload body parser (lib/http/multipart.ts) answers them.
 */
export const MAX_GAME_BODY = 10 * 1024 * 1024;

/** The request-size rules of the routes that take images in the body, as the OpenAPI description states them. */
export const IMAGE_BODY_LIMITS =
  `Request bodies are limited by AWS Lambda's 6 MB request payload: at most ${MAX_BINARY_BODY_BYTES} bytes as ` +
  `multipart/form-data (API Gateway base64-encodes it, 4/3) and ${MAX_TEXT_BODY_BYTES} bytes as JSON; a larger ` +
  'body is refused with 413 PAYLOAD_TOO_LARGE. An image sent in the body can therefore be at most about 4.47 MiB ' +
  `in either form (${MAX_BINARY_BODY_BYTES} bytes less the other fields and the multipart framing; as a data URI, ` +
  `3/4 of ${MAX_TEXT_BODY_BYTES} bytes less the same). For an image up to the full 5 MB (5,242,880 bytes), upload ` +
  'it first (POST /games/images/upload-url) and send the returned key as `imageKey` / `coverImageKey`.';

/** Message end of that 413 (lib/http/multipart.ts): where larger images go instead. */
export const LARGE_IMAGE_HINT =
  'Send larger images (up to 5 MB) with POST /games/images/upload-url and pass the imageKey it returns.';

export const SORT_FIELDS = [
  'totalRewardsPoolValueUsd',
  'totalRewardsAllocatedUsd',
  'name',
  'createdAt',
  'estimatedDailyRewardsUsd',
] as const;

const httpUrl = described(z.url({ protocol: /^https?$/ }).check(z.maxLength(2048)), 'http(s) URL');
const optionalUrl = z.optional(z.nullable(httpUrl));

/** Multipart sends every field as text: accept "true"/"false" as well as JSON booleans. */
const formBoolean = z.union([
  z.boolean(),
  z.pipe(
    z.enum(['true', 'false']),
    z.transform((v) => v === 'true'),
  ),
]);
/** Positive integers up to `max`, as JSON numbers or multipart text. */
const formPositiveInt = (max: number) =>
  z.pipe(
    z.union([z.number(), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))]),
    z.int().check(z.positive(), z.lte(max)),
  );

/**
 * A play cap: a positive integer up to the cap's maximum (400 above it); absent at registration, or null, means the
 * platform default.
 */
const capField = (name: PlayCapName, what: string) =>
  described(z.optional(z.nullable(formPositiveInt(PLAY_CAPS[name].max))), capDescription(name, what));

const uploadedFile = withMeta(
  z.custom<{ content: Buffer; filename?: string; mimetype?: string }>(
    (v) => typeof v === 'object' && v !== null && Buffer.isBuffer((v as { content?: unknown }).content),
    'must be a file part',
  ),
  { type: 'string', format: 'binary' },
);

// Values are checked by the split rules (INVALID_REWARDS_SPLIT), not here, so every split problem has one code.
const splitValue = z.number();
/** orgRewardsSplit: identifier → basis points, as an object or (multipart) its JSON text. */
export const orgRewardsSplit = described(
  z.union([
    z.record(z.string(), splitValue),
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((text, payload) => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            // mini's transform gets the parse payload (no addIssue): push the same custom issue classic's
            // ctx.addIssue would (its `inst` only serves error-map lookups, moot with an explicit message).
            payload.issues.push({ code: 'custom', message: 'must be a JSON object', input: text });
            return z.NEVER;
          }
        }),
      ),
      z.record(z.string(), splitValue),
    ),
  ]),
  'Creator rewards split: player identifier (Arc ID, did:<idp>:<id>, sol:/solana:, eth:/ethereum:, x:/twitter:, ' +
    'email:) → integer basis points, summing to exactly 10000. Wallets, emails and handles without a user get ' +
    'one. Until you prove ownership of the game domain (POST /games/claim-ownership/{gameId}) the effective ' +
    'split is 100% to you; absent or empty means 100% to you.',
);

const uploadKey = z
  .string()
  .check(z.regex(UPLOAD_KEY_PATTERN, 'must be an imageKey from /games/images/upload-url'));

export const tokenAddress = described(
  z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 Solana address')),
  'Solana mint address',
);

const gameFields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  description: z.string().check(z.trim(), z.minLength(1), z.maxLength(5000)),
  gameUrl: described(httpUrl, 'Where the game is hosted (http or https)'),
  platform: z.enum(PLATFORMS),
  isHTMLGame: z.optional(formBoolean),
  iframable: z.optional(formBoolean),
  image: described(
    z.optional(uploadedFile),
    'Thumbnail file (jpeg, png, gif or webp, ≤ 5 MB); wins over base64Image',
  ),
  coverImage: described(z.optional(uploadedFile), 'Cover file; wins over base64CoverImage'),
  base64Image: described(
    z.optional(z.string()),
    'Thumbnail as data:image/<format>;base64,<data> (≤ 5 MB decoded)',
  ),
  base64CoverImage: described(z.optional(z.string()), 'Cover as data:image/<format>;base64,<data>'),
  imageKey: described(
    z.optional(uploadKey),
    'Thumbnail uploaded beforehand (POST /games/images/upload-url; up to 5 MB): checked like any image, then ' +
      'stored with the game. Used when neither image nor base64Image is given.',
  ),
  coverImageKey: described(
    z.optional(uploadKey),
    'Cover uploaded beforehand; used when neither coverImage nor base64CoverImage is given.',
  ),
  twitter: described(optionalUrl, 'Profile URL on the first social network'),
  discord: described(optionalUrl, 'Server URL on the second social network'),
  telegram: described(optionalUrl, 'Group URL on the third social network'),
  maxScorePerSession: capField('maxScorePerSession', 'Maximum points per gaming session'),
  maxSessionsPerDay: capField('maxSessionsPerDay', 'Maximum sessions per player per UTC day'),
  maxCumulativePointsPerDay: capField(
    'maxCumulativePointsPerDay',
    'Maximum points per player per UTC day, both save paths together',
  ),
  maxPointsPerSecond: capField(
    'maxPointsPerSecond',
    "Earning rate of a player's budget in client SDK flushes: points per second, all the player's sessions " +
      'together (docs/play-protocol.md)',
  ),
  maxBurstPoints: capField(
    'maxBurstPoints',
    "Burst of a player's earning budget: the most it holds after any idle time (keep it at least " +
      'maxPointsPerSecond: flushes come at most once a second)',
  ),
  hidden: described(
    z.optional(formBoolean),
    'Hidden games are absent from listings but playable by direct link',
  ),
  orgRewardsSplit: z.optional(orgRewardsSplit),
  jwksUrl: described(
    optionalUrl,
    "JSON Web Key Set URL of the game's own auth, for player session tokens. It must be reachable on the public " +
      'internet: a host on a private, loopback or link-local address is refused (400 VALIDATION_ERROR on jwksUrl)',
  ),
};

/** Registration body: unknown fields are dropped, so server-owned fields can never be set. */
export const createGameBody = z.object({
  ...gameFields,
  idempotencyKey: described(
    z.optional(
      z
        .string()
        .check(z.regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces')),
    ),
    'Makes a retried registration safe: the same key from the same developer answers the game the first ' +
      'request created (201, same id) instead of registering a second one. Keys do not expire; the body of ' +
      'a retry is not compared with the first.',
  ),
});
export type CreateGameInput = z.output<typeof createGameBody>;

/** Update body: every field optional, plus the airdrop token; server-owned fields do not exist here. */
export const updateGameBody = z.extend(z.partial(z.object(gameFields)), {
  airdropTokenAddress: described(
    z.optional(z.nullable(tokenAddress)),
    'Airdrop token mint enabling snapshots and claims',
  ),
});
export type UpdateGameInput = z.output<typeof updateGameBody>;

const tokenInfo = withMeta(
  z.object({
    gameCoin: z.nullable(
      z.object({
        gtokenAddress: z.string(),
        gameCoinSymbol: z.nullable(z.string()),
        emissionDays: z.int(),
        status: described(
          z.string(),
          '`active` until its last emission day is settled, then `ended` (48-hour creator grace, then open)',
        ),
        emissionStartAt: z.nullable(z.string()),
        emissionEndAt: described(
          z.nullable(z.string()),
          'Active: the midnight after the last emission day. Ended: when the last day settled',
        ),
      }),
    ),
    airdropTokenAddress: z.nullable(z.string()),
  }),
  { id: 'GameTokens' },
);

export const gameSchema = withMeta(
  z.object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    gameUrl: z.string(),
    platform: z.enum(PLATFORMS),
    isHTMLGame: z.boolean(),
    iframable: z.boolean(),
    imageUrl: z.nullable(z.string()),
    coverImageUrl: z.nullable(z.string()),
    twitter: z.nullable(z.string()),
    discord: z.nullable(z.string()),
    telegram: z.nullable(z.string()),
    maxScorePerSession: described(z.number(), 'In force: as set, or the default'),
    maxSessionsPerDay: described(z.number(), 'In force: as set, or the default'),
    maxCumulativePointsPerDay: described(z.number(), 'In force: as set, or the default'),
    maxPointsPerSecond: described(z.number(), "In force: the earning rate of each player's budget"),
    maxBurstPoints: described(z.number(), "In force: the burst of each player's budget"),
    hidden: z.boolean(),
    orgRewardsSplit: described(z.record(z.string(), z.number()), 'Effective split: Arc ID → basis points'),
    requestedOrgRewardsSplit: described(
      z.record(z.string(), z.number()),
      'Split as requested (Arc ID → basis points); effective once ownership is verified, dropped when another user proves the domain',
    ),
    jwksUrl: z.nullable(z.string()),
    creatorId: z.uuid(),
    ownerId: described(
      z.nullable(z.uuid()),
      "Owner: the user who last proved the domain (manages the game; alone sets the split, the airdrop token and gameUrl's origin, and launches during the grace period), or null",
    ),
    ownershipVerified: described(
      z.boolean(),
      "Whether the owner's proof covers the current gameUrl's origin (reset when gameUrl moves to another)",
    ),
    totalRewardsAllocatedUsd: z.number(),
    estimatedDailyRewardsUsd: z.number(),
    totalRewardsPoolValueUsd: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
    tokens: described(z.optional(tokenInfo), 'Token association, with include_extra / include_tokens'),
  }),
  { id: 'Game' },
);
export type GameView = z.input<typeof gameSchema>;

export const withMapping = z.object({
  game: gameSchema,
  playerIdToArcId: described(z.record(z.string(), z.uuid()), 'Identifiers of orgRewardsSplit → Arc IDs'),
});

export const pagination = {
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
  sort: z._default(z.enum(['asc', 'desc']), 'desc'),
};
