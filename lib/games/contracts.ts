import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { MAX_BINARY_BODY_BYTES, MAX_TEXT_BODY_BYTES } from '../core/payload.js';
import { dataEnvelope, described, listEnvelope, queryBoolean, withMeta } from '../core/schemas.js';
import { PLATFORMS } from './model.js';
import { UPLOAD_CONTENT_TYPES, UPLOAD_KEY_PATTERN, UPLOAD_URL_TTL_SECONDS } from './upload-policy.js';

const HMAC = ['hmac'] as const;
const AUTH_ERRORS = ['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE'] as const;
/**
 * API Gateway's own cap (10 MB): the outer bound of the raw-body guard. The limits that matter are smaller and
 * depend on the media type (lib/core/payload.ts); the upload body parser (lib/http/multipart.ts) answers them.
 */
const MAX_GAME_BODY = 10 * 1024 * 1024;

/** The request-size rules of the routes that take images in the body, as the OpenAPI description states them. */
const IMAGE_BODY_LIMITS =
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
/** Positive integers, as JSON numbers or multipart text. */
const formPositiveInt = z.pipe(
  z.union([z.number(), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))]),
  z.int().check(z.positive(), z.lte(1e12)),
);

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
const orgRewardsSplit = described(
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

const tokenAddress = described(
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
  maxScorePerSession: described(z.optional(z.nullable(formPositiveInt)), 'Maximum points per gaming session'),
  maxSessionsPerDay: described(
    z.optional(z.nullable(formPositiveInt)),
    'Maximum sessions per player per UTC day',
  ),
  maxCumulativePointsPerDay: described(
    z.optional(z.nullable(formPositiveInt)),
    'Maximum points per player per UTC day',
  ),
  hidden: described(
    z.optional(formBoolean),
    'Hidden games are absent from listings but playable by direct link',
  ),
  orgRewardsSplit: z.optional(orgRewardsSplit),
  jwksUrl: described(optionalUrl, "JSON Web Key Set URL of the game's own auth, for player session tokens"),
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
        status: z.string(),
        emissionStartAt: z.nullable(z.string()),
        emissionEndAt: z.nullable(z.string()),
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
    maxScorePerSession: z.nullable(z.number()),
    maxSessionsPerDay: z.nullable(z.number()),
    maxCumulativePointsPerDay: z.nullable(z.number()),
    hidden: z.boolean(),
    orgRewardsSplit: described(z.record(z.string(), z.number()), 'Effective split: Arc ID → basis points'),
    requestedOrgRewardsSplit: described(
      z.record(z.string(), z.number()),
      'Split as requested (Arc ID → basis points); effective once ownership is verified',
    ),
    jwksUrl: z.nullable(z.string()),
    creatorId: z.uuid(),
    ownerId: described(
      z.nullable(z.uuid()),
      'Owner: the user who last proved the domain (may manage the game), or null',
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

const withMapping = z.object({
  game: gameSchema,
  playerIdToArcId: described(z.record(z.string(), z.uuid()), 'Identifiers of orgRewardsSplit → Arc IDs'),
});

const pagination = {
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
  sort: z._default(z.enum(['asc', 'desc']), 'desc'),
};

export const createGameContract = defineContract({
  operationId: 'createGame',
  method: 'POST',
  path: '/games',
  tags: ['Games'],
  summary: 'Register a game',
  description:
    'multipart/form-data (files `image`, `coverImage`) or JSON (`base64Image`, `base64CoverImage` as data URIs), ' +
    'or keys of images uploaded beforehand (`imageKey`, `coverImageKey`). At least one image; per slot the file ' +
    'wins over base64, and base64 over the key. The format is decided by the bytes (jpeg, png, gif, webp), must ' +
    'match the data URI, ≤ 5 MB, ≤ 16384 px a side and ≤ 40 Mpx. Errors: MISSING_IMAGE (also for an imageKey ' +
    'with no upload of yours behind it), INVALID_IMAGE_FORMAT, UNSUPPORTED_IMAGE_FORMAT, IMAGE_TOO_LARGE, ' +
    `INVALID_REWARDS_SPLIT. ${IMAGE_BODY_LIMITS}`,
  auth: HMAC,
  body: createGameBody,
  bodyMediaTypes: ['application/json', 'multipart/form-data'],
  maxBodyBytes: MAX_GAME_BODY,
  response: dataEnvelope(withMapping),
  successStatus: 201,
  errors: [
    ...AUTH_ERRORS,
    'MISSING_IMAGE',
    'INVALID_IMAGE_FORMAT',
    'UNSUPPORTED_IMAGE_FORMAT',
    'IMAGE_TOO_LARGE',
    'INVALID_REWARDS_SPLIT',
    'PAYLOAD_TOO_LARGE',
  ],
  example: {
    body: {
      name: 'Space Miner',
      description: 'Mine asteroids',
      gameUrl: 'https://spaceminer.example',
      platform: 'WEB',
      base64Image:
        'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    },
  },
});

export const updateGameContract = defineContract({
  operationId: 'updateGame',
  method: 'POST',
  path: '/games/update/{gameId}',
  tags: ['Games'],
  summary: 'Update a game',
  description:
    'Same fields as registration, all optional, plus `hidden` and `airdropTokenAddress`; send null to clear an ' +
    'optional field. Only the creator or verified owner. Server-owned fields (id, creator, owner, ' +
    'verification, reward figures, coin state) cannot be set. A `gameUrl` on another origin (scheme, host or ' +
    'port) resets `ownershipVerified`, and with it the effective `orgRewardsSplit` (all to the creator), until ' +
    `the new origin is claimed again; a new path on the same origin keeps it. ${IMAGE_BODY_LIMITS}`,
  auth: HMAC,
  params: z.object({ gameId: z.uuid() }),
  body: updateGameBody,
  bodyMediaTypes: ['application/json', 'multipart/form-data'],
  maxBodyBytes: MAX_GAME_BODY,
  response: dataEnvelope(withMapping),
  errors: [
    ...AUTH_ERRORS,
    'FORBIDDEN',
    'NOT_FOUND',
    'MISSING_IMAGE',
    'INVALID_IMAGE_FORMAT',
    'UNSUPPORTED_IMAGE_FORMAT',
    'IMAGE_TOO_LARGE',
    'INVALID_REWARDS_SPLIT',
    'PAYLOAD_TOO_LARGE',
  ],
  example: { params: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' }, body: { hidden: true } },
});

export const createGameImageUploadUrlContract = defineContract({
  operationId: 'createGameImageUploadUrl',
  method: 'POST',
  path: '/games/images/upload-url',
  tags: ['Games'],
  summary: 'Upload an image directly to storage',
  description:
    'For images too large to send in a registration or update body (up to 5 MB; see POST /games). Answers a ' +
    `presigned URL valid ${UPLOAD_URL_TTL_SECONDS / 60} minutes: PUT exactly \`contentLength\` bytes to ` +
    '`uploadUrl` with the returned `headers` (Content-Type and Content-Length are signed: another type or size ' +
    'is refused by storage), then send `imageKey` as `imageKey` or `coverImageKey` of POST /games or POST ' +
    '/games/update/{gameId}. Only the uploader can use the key. The API then checks the uploaded bytes like any ' +
    'image (the declared type does not count) and stores them with the game; an upload that is never used is ' +
    'deleted about a day later. Errors: UNSUPPORTED_IMAGE_FORMAT for a content type other than image/jpeg, ' +
    'image/png, image/gif or image/webp; IMAGE_TOO_LARGE beyond 5 MB (5,242,880 bytes).',
  auth: HMAC,
  body: z.object({
    contentType: described(
      z.string().check(z.minLength(1), z.maxLength(100)),
      `Type of the image to upload: ${UPLOAD_CONTENT_TYPES.join(', ')}`,
    ),
    contentLength: described(
      z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
      'Exact size of the image in bytes, at most 5242880',
    ),
  }),
  response: dataEnvelope(
    z.object({
      imageKey: described(z.string(), 'Send as imageKey or coverImageKey'),
      uploadUrl: described(z.url(), 'Presigned URL to PUT the image to'),
      method: z.literal('PUT'),
      headers: described(
        z.record(z.string(), z.string()),
        'Headers the PUT must carry exactly (content-type, content-length)',
      ),
      expiresAt: described(z.string(), 'When uploadUrl stops working (ISO 8601)'),
      maxBytes: described(z.int(), 'Largest image accepted (5242880)'),
    }),
  ),
  successStatus: 201,
  errors: [...AUTH_ERRORS, 'UNSUPPORTED_IMAGE_FORMAT', 'IMAGE_TOO_LARGE'],
  example: { body: { contentType: 'image/png', contentLength: 4_800_000 } },
});

export const listGamesContract = defineContract({
  operationId: 'listGames',
  method: 'GET',
  path: '/games',
  tags: ['Games'],
  summary: 'List games',
  description:
    'Visible games only. Sorted from an index per sort field (ties broken by creation time then id). `query` ' +
    'filters case-insensitively by name or description.',
  auth: [],
  query: z.object({
    ...pagination,
    sortBy: z._default(z.enum(SORT_FIELDS), 'totalRewardsPoolValueUsd'),
    query: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
    include_extra: described(z._default(queryBoolean, false), 'Include token association information'),
  }),
  response: listEnvelope(gameSchema),
  errors: [],
  example: { query: { limit: '10', sortBy: 'createdAt' } },
});

export const getGameContract = defineContract({
  operationId: 'getGame',
  method: 'GET',
  path: '/games/id/{id}',
  tags: ['Games'],
  summary: 'Get a game',
  description: 'Hidden games are returned too: they are playable by direct link.',
  auth: [],
  params: z.object({ id: z.uuid() }),
  query: z.object({
    include_tokens: described(z._default(queryBoolean, false), 'Include associated token information'),
  }),
  response: dataEnvelope(gameSchema),
  errors: ['NOT_FOUND'],
  example: { params: { id: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});

export const listMyGamesContract = defineContract({
  operationId: 'listMyGames',
  method: 'GET',
  path: '/games/me',
  tags: ['Games'],
  summary: 'My games',
  description: 'Games you created or own, hidden ones included, by creation time.',
  auth: HMAC,
  query: z.object({ ...pagination, include_extra: z._default(queryBoolean, false) }),
  response: listEnvelope(gameSchema),
  errors: [...AUTH_ERRORS],
});

export const toggleVisibilityContract = defineContract({
  operationId: 'toggleGameVisibility',
  method: 'POST',
  path: '/games/toggle-visibility/{id}',
  tags: ['Games'],
  summary: 'Flip a game between visible and hidden',
  auth: HMAC,
  params: z.object({ id: z.uuid() }),
  response: dataEnvelope(gameSchema),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND'],
  example: { params: { id: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});

export const claimOwnershipContract = defineContract({
  operationId: 'claimGameOwnership',
  method: 'POST',
  path: '/games/claim-ownership/{gameId}',
  tags: ['Games'],
  summary: 'Prove ownership of the game domain',
  description:
    'Add `<meta name="arcadia-verification" content="<your API key>">` to the `<head>` of the page at gameUrl, ' +
    'then call this. The page is fetched safely (http/https on default ports, public addresses only, ≤ 3 ' +
    'redirects, 5 s, 1 MB). On a match you become the verified owner and the requested rewards split takes ' +
    'effect. Only the creator or current owner may claim. The proof covers the origin of gameUrl: moving ' +
    'gameUrl to another origin needs a new claim.',
  auth: HMAC,
  params: z.object({ gameId: z.uuid() }),
  response: dataEnvelope(gameSchema),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'VALIDATION_ERROR'],
  example: { params: { gameId: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});

const batchResult = dataEnvelope(
  z.object({
    games: z.array(gameSchema),
    missing: described(z.array(z.string()), 'Requested identifiers not found'),
  }),
);

export const batchGamesByIdsContract = defineContract({
  operationId: 'batchGamesByIds',
  method: 'POST',
  path: '/games/batch/ids',
  tags: ['Games'],
  summary: 'Games for up to 100 game IDs',
  auth: [],
  body: z.object({ ids: z.array(z.uuid()).check(z.minLength(1), z.maxLength(100)) }),
  response: batchResult,
  errors: [],
  example: { body: { ids: ['6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f'] } },
});

export const batchGamesByTokenIdsContract = defineContract({
  operationId: 'batchGamesByTokenIds',
  method: 'POST',
  path: '/games/batch/token-ids',
  tags: ['Games'],
  summary: 'Games for up to 100 game coin addresses',
  auth: [],
  body: z.object({ tokenIds: z.array(tokenAddress).check(z.minLength(1), z.maxLength(100)) }),
  response: batchResult,
  errors: [],
  example: { body: { tokenIds: ['So11111111111111111111111111111111111111112'] } },
});

export const getGamesByTokenContract = defineContract({
  operationId: 'getGamesByToken',
  method: 'GET',
  path: '/games/token-id/{tokenId}/full',
  tags: ['Games'],
  summary: 'Full games for a token',
  description: 'Games whose game coin or airdrop token is this address, with token information.',
  auth: [],
  params: z.object({ tokenId: tokenAddress }),
  response: dataEnvelope(z.array(gameSchema)),
  errors: [],
  example: { params: { tokenId: 'So11111111111111111111111111111111111111112' } },
});
