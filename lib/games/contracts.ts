// The games operations: registration, updates, image uploads, listings and lookups.
import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, listEnvelope, queryBoolean } from '../core/schemas.js';
import {
  AUTH_ERRORS,
  createGameBody,
  DEVELOPER,
  gameSchema,
  IMAGE_BODY_LIMITS,
  MAX_GAME_BODY,
  pagination,
  SORT_FIELDS,
  tokenAddress,
  updateGameBody,
  withMapping,
} from './contract-schemas.js';
import { UPLOAD_CONTENT_TYPES, UPLOAD_URL_TTL_SECONDS } from './upload-policy.js';

export {
  type CreateGameInput,
  createGameBody,
  type GameView,
  gameSchema,
  LARGE_IMAGE_HINT,
  SORT_FIELDS,
  type UpdateGameInput,
  updateGameBody,
} from './contract-schemas.js';

/** The play caps' rule, as both the registration and the update state it. */
const PLAY_CAPS_RULE =
  'Play caps (maxScorePerSession, maxSessionsPerDay, maxCumulativePointsPerDay, maxPointsPerSecond, ' +
  'maxBurstPoints) all have a default that applies when the game sets none, and a maximum (400 above it); the ' +
  'game shows the caps in force.';

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
    `INVALID_REWARDS_SPLIT. ${PLAY_CAPS_RULE} ${IMAGE_BODY_LIMITS}`,
  auth: DEVELOPER,
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
    'optional field (a play cap: back to its default). A cap changed here applies to SDK sessions opened after ' +
    'the change and to every later batch save. Only the creator or the owner (403 otherwise). Once someone has ' +
    "proved the game's domain (POST /games/claim-ownership/{gameId}), `orgRewardsSplit`, `airdropTokenAddress` " +
    "and a `gameUrl` on another origin are the owner's to change: the creator sending them gets 403 FORBIDDEN " +
    "(until then they are the creator's). Server-owned fields (id, creator, owner, verification, reward figures, " +
    'coin state) cannot be set. A `gameUrl` on another origin (scheme, host or port) resets `ownershipVerified`, ' +
    'and with it the effective `orgRewardsSplit` (all to the owner, or to the creator when nobody proved the ' +
    'domain), until the new origin is claimed again; a new path on the same origin keeps it. ' +
    '`airdropTokenAddress` cannot change while the game’s coin is active (409 `AIRDROP_TOKEN_FROZEN`): that ' +
    `coin’s airdrop is being released to the holders of the token it started with. ${PLAY_CAPS_RULE} ` +
    `${IMAGE_BODY_LIMITS}`,
  auth: DEVELOPER,
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
    'AIRDROP_TOKEN_FROZEN',
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
  auth: DEVELOPER,
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
  auth: DEVELOPER,
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
  auth: DEVELOPER,
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
    'then call this signed with that API key, or with your identity-provider token (the API key of your user is ' +
    'the one looked for). The page is fetched safely (http/https on default ports, public ' +
    'addresses only, ≤ 3 redirects, 5 s, 1 MB). Anyone may claim: whoever serves a tag with their own API key ' +
    "becomes the verified owner, whoever created the listing (a tag with another user's key is 403 FORBIDDEN). " +
    'The last valid proof wins: a previous owner loses the ownership. Rights: the creator and the owner both ' +
    'manage the game (update, toggle visibility, /play/dev); the owner alone sets `orgRewardsSplit`, ' +
    '`airdropTokenAddress` and a `gameUrl` on another origin, receives the effective split until requesting one ' +
    'and may launch the next game coin during the grace period. When the creator or the current owner proves ' +
    'it, the requested split takes effect; when another user does, the requested split is dropped (all to the ' +
    'new owner until they set one). The proof covers the origin of gameUrl: moving gameUrl to another origin ' +
    'needs a new claim. 409 CONFLICT if the game moved to another origin while its page was checked.',
  auth: DEVELOPER,
  params: z.object({ gameId: z.uuid() }),
  response: dataEnvelope(gameSchema),
  errors: [...AUTH_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'VALIDATION_ERROR', 'CONFLICT'],
  // Anyone with an API key may ask for a page fetch: bounded per caller.
  rateLimit: { limit: 30, windowSeconds: 60, key: 'user' },
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

/** The off-chain token metadata standard's fields that wallets and explorers read. */
export const coinMetadataSchema = z.object({
  name: described(z.string(), 'The coin’s name: the game’s name, as on the mint'),
  symbol: z.optional(described(z.string(), 'The coin’s symbol, once the launch has completed')),
  description: z.string(),
  image: z.optional(described(z.string(), 'The game’s image')),
  external_url: described(z.string(), 'The game’s URL'),
});

export type CoinMetadata = z.infer<typeof coinMetadataSchema>;

export const getCoinMetadataContract = defineContract({
  operationId: 'getCoinMetadata',
  method: 'GET',
  path: '/games/id/{id}/coin-metadata.json',
  tags: ['Games'],
  summary: 'The game coin’s off-chain metadata (JSON)',
  description:
    'The document the `uri` of a game coin’s on-mint metadata points at, in the shape wallets and explorers read ' +
    '(Metaplex’s token metadata standard): not wrapped in `data`. Served for any game, coin or not; `symbol` ' +
    'appears once the game has a coin. Coins launched before this endpoint point at `GET /games/id/{id}`.',
  auth: [],
  params: z.object({ id: z.uuid() }),
  response: coinMetadataSchema,
  errors: ['NOT_FOUND'],
  example: { params: { id: '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f' } },
});
