import { randomUUID } from 'node:crypto';
import { isConditionFailure } from '../adapters/dynamodb.js';
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { derivedUuid } from '../core/ids.js';
import type { IdentityDirectory, PendingImport } from '../user/index.js';
import { type PlayerIdToArcId, parseIdentifiers, resolveIdentifiers } from '../user/index.js';
import { capOrDefault, PLAY_CAP_NAMES, type PlayCapName, type PlayCaps } from './caps.js';
import { bump, saveChange } from './changes.js';
import type { CreateGameInput, UpdateGameInput } from './contracts.js';
import { type CheckedImage, requireOneImage } from './images.js';
import { type GameRecord, sameOrigin } from './model.js';
import { isController, requireListedGame, toView } from './read.js';
import * as repo from './repository.js';
import { discardClaimedUploads, pickImages, type UploadClaims } from './uploads.js';

/** Side effects of the games area, passed in by the handlers (and by tests). */
export interface GamesDeps {
  directory: IdentityDirectory;
  /** Where new creators go to be imported into the provider (the import queue); absent: at once. */
  imports?: (pending: PendingImport[]) => Promise<void>;
  storeImage: (key: string, bytes: Buffer, contentType: string) => Promise<string>;
  /** Presigned uploads that imageKey / coverImageKey claim (lib/games/uploads.ts). */
  uploads?: UploadClaims;
  /**
   * Refuses (throws) a URL the platform would refuse to fetch (lib/adapters/safe-fetch.ts checkFetchableUrl): a
   * jwksUrl on a private, loopback or link-local address is refused when it is set, not at a player's first
   * sign-in.
   */
  checkFetchableUrl: (url: string) => Promise<void>;
  now?: () => Date;
}

const splitError = (message: string) => new AppError('INVALID_REWARDS_SPLIT', message);

/**
 * Validate and resolve orgRewardsSplit: integer basis points summing to exactly
 * 10,000, identifiers resolved to Arc IDs (auto-creating wallets, emails and handles), no user twice.
 */
const resolveSplit = async (
  split: Record<string, number> | undefined,
  deps: GamesDeps,
): Promise<{ requested: Record<string, number>; mapping: PlayerIdToArcId }> => {
  const entries = Object.entries(split ?? {});
  if (entries.length === 0) return { requested: {}, mapping: {} };
  if (entries.length > 100) throw splitError('orgRewardsSplit may list at most 100 users');
  for (const [id, bps] of entries) {
    if (!Number.isInteger(bps) || bps <= 0 || bps > 10_000) {
      throw splitError(
        `orgRewardsSplit["${id}"] must be a whole number of basis points from 1 to 10000, got ${bps}`,
      );
    }
  }
  const total = entries.reduce((sum, [, bps]) => sum + bps, 0);
  if (total !== 10_000)
    throw splitError(`orgRewardsSplit must sum to exactly 10000 basis points, got ${total}`);
  let mapping: PlayerIdToArcId;
  try {
    parseIdentifiers(
      entries.map(([id]) => id),
      (index) => `orgRewardsSplit.${entries[index]?.[0]}`,
    );
    mapping = await resolveIdentifiers(
      entries.map(([id]) => id),
      { directory: deps.directory, ...(deps.imports ? { imports: deps.imports } : {}) },
    );
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_IDENTIFIER') {
      throw new AppError('INVALID_REWARDS_SPLIT', `orgRewardsSplit: ${error.message}`, error.details);
    }
    throw error;
  }
  const requested: Record<string, number> = {};
  const seen = new Map<string, string>();
  for (const [id, bps] of entries) {
    const arcId = mapping[id] ?? '';
    const earlier = seen.get(arcId);
    if (earlier) throw splitError(`orgRewardsSplit lists the same user twice: "${earlier}" and "${id}"`);
    seen.set(arcId, id);
    requested[arcId] = bps;
  }
  return { requested, mapping };
};

const imageKey = (gameId: string, slot: string, image: CheckedImage) =>
  `games/${gameId}/${slot}-${image.sha256.slice(0, 16)}.${image.extension}`;

/** A jwksUrl the platform could never fetch is a validation error of the request that sets it. */
const checkJwksUrl = async (url: string | null | undefined, deps: GamesDeps) => {
  if (!url) return;
  try {
    await deps.checkFetchableUrl(url);
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'UnsafeUrlError') throw error;
    const reason = error.message.replace(/^Refused to fetch URL: /, '');
    throw new AppError('VALIDATION_ERROR', `jwksUrl must be reachable on the public internet (${reason})`, [
      { path: 'jwksUrl', message: `refused: ${reason}` },
    ]);
  }
};

const store = async (deps: GamesDeps, gameId: string, slot: string, image: CheckedImage | undefined) => {
  if (!image) return undefined;
  const key = imageKey(gameId, slot, image);
  return { key, url: await deps.storeImage(key, image.bytes, image.contentType) };
};

/**
 * The id of the game a developer registers with an idempotency key: derived from both (sha256, shaped as a
 * version-8 UUID), so a retry finds the first request's game by key alone and two developers' keys never meet.
 */
export const gameIdForKey = (creatorId: string, idempotencyKey: string): string =>
  derivedUuid('arcadia', 'game', creatorId, idempotencyKey);

/** The answer to a retried registration, if the key's game exists (its split identifiers resolve the same). */
const replayCreate = async (id: string, input: CreateGameInput, deps: GamesDeps) => {
  const existing = await repo.getGame(id);
  if (!existing) return undefined;
  const { mapping } = await resolveSplit(input.orgRewardsSplit, deps);
  return { game: toView(existing), playerIdToArcId: mapping };
};

interface StoredImage {
  key: string;
  url: string;
}

/**
 * The play caps a registration or an update sets: each one sent as given, null as its default; one not sent
 * keeps `current` (an update) or takes its default (a registration).
 */
const capsOf = (input: Partial<Record<PlayCapName, number | null>>, current: Partial<PlayCaps>): PlayCaps =>
  Object.fromEntries(
    PLAY_CAP_NAMES.map((name) => [
      name,
      input[name] === undefined ? capOrDefault(name, current[name]) : capOrDefault(name, input[name]),
    ]),
  ) as PlayCaps;

/** A new game's record: the registration's fields, defaults for the rest, server-owned fields initialised. */
const newGameRecord = ({
  id,
  creatorId,
  input,
  stored,
  requested,
  now,
}: {
  id: string;
  creatorId: string;
  input: CreateGameInput;
  stored: { image: StoredImage | undefined; cover: StoredImage | undefined };
  requested: GameRecord['requestedOrgRewardsSplit'];
  now: string;
}): GameRecord => ({
  id,
  version: 1,
  name: input.name,
  description: input.description,
  gameUrl: input.gameUrl,
  platform: input.platform,
  isHTMLGame: input.isHTMLGame ?? false,
  iframable: input.iframable ?? false,
  imageKey: stored.image?.key ?? null,
  imageUrl: stored.image?.url ?? null,
  coverImageKey: stored.cover?.key ?? null,
  coverImageUrl: stored.cover?.url ?? null,
  twitter: input.twitter ?? null,
  discord: input.discord ?? null,
  telegram: input.telegram ?? null,
  ...capsOf(input, {}),
  hidden: input.hidden ?? false,
  requestedOrgRewardsSplit: requested,
  jwksUrl: input.jwksUrl ?? null,
  creatorId,
  ownerId: null,
  ownershipVerified: false,
  totalRewardsAllocatedUsd: 0,
  estimatedDailyRewardsUsd: 0,
  totalRewardsPoolValueUsd: 0,
  airdropTokenAddress: null,
  coin: null,
  createdAt: now,
  updatedAt: now,
});

/** Register a game: images checked and stored, split resolved, game and counters in one transaction. */
export const createGame = async (auth: AuthContext, input: CreateGameInput, deps: GamesDeps) => {
  const id = input.idempotencyKey ? gameIdForKey(auth.userId, input.idempotencyKey) : randomUUID();
  if (input.idempotencyKey) {
    const replay = await replayCreate(id, input, deps);
    if (replay) return replay;
  }
  await checkJwksUrl(input.jwksUrl, deps);
  const picked = await pickImages(auth, input, deps.uploads);
  const image = requireOneImage(picked.image);
  const cover = picked.cover;
  const { requested, mapping } = await resolveSplit(input.orgRewardsSplit, deps);
  const [storedImage, storedCover] = await Promise.all([
    store(deps, id, 'image', image),
    store(deps, id, 'cover', cover),
  ]);
  const stored = { image: storedImage, cover: storedCover };
  const now = (deps.now?.() ?? new Date()).toISOString();
  const game = newGameRecord({ id, creatorId: auth.userId, input, stored, requested, now });
  try {
    await repo.saveGame(game);
  } catch (error) {
    // A concurrent request with the same idempotency key created the game first.
    const replay =
      input.idempotencyKey && isConditionFailure(error) ? await replayCreate(id, input, deps) : undefined;
    if (!replay) throw error;
    return replay;
  }
  await discardClaimedUploads(deps.uploads, [image, cover]);
  return { game: toView(game), playerIdToArcId: mapping };
};

/**
 * The changes only the game's controller (its owner once someone proved the domain, else its creator) may make:
 * the split, gameUrl's origin and the airdrop token decide where the game's money goes, so a creator whose listing
 * the domain's owner took over keeps managing it but cannot move them (403).
 */
const assertControllerChanges = (auth: AuthContext, game: GameRecord, input: UpdateGameInput) => {
  if (isController(game, auth.userId)) return;
  const reserved = [
    ...(input.orgRewardsSplit !== undefined ? ['orgRewardsSplit'] : []),
    ...(input.gameUrl !== undefined && !sameOrigin(game.gameUrl, input.gameUrl)
      ? ['gameUrl (another origin)']
      : []),
    ...(input.airdropTokenAddress !== undefined && input.airdropTokenAddress !== game.airdropTokenAddress
      ? ['airdropTokenAddress']
      : []),
  ];
  if (reserved.length > 0)
    throw errors.forbidden(
      `Only the game's verified owner may change ${reserved.join(', ')}: the owner proved the game's domain`,
    );
};

/**
 * The airdrop token of a game whose coin is active stays as it is: the coin's airdrop is being released to that
 * token's holders (the save is conditional on the version read here, so a coin completed meanwhile refuses it).
 */
const assertAirdropTokenMayChange = (game: GameRecord, input: UpdateGameInput) => {
  const requested = input.airdropTokenAddress;
  if (requested === undefined || requested === game.airdropTokenAddress) return;
  if (game.coin?.status !== 'active') return;
  throw new AppError(
    'AIRDROP_TOKEN_FROZEN',
    `The airdrop token of this game cannot change while its coin ${game.coin.coinMint} is active ` +
      `(its emission ends ${game.coin.emissionEndAt})`,
    [{ path: 'airdropTokenAddress', message: 'frozen while the game coin is active' }],
  );
};

/**
 * Update a game (creator or owner): only the fields of the update schema can change, and the split, gameUrl's
 * origin and the airdrop token only by the controller (`assertControllerChanges`). Moving gameUrl to another
 * origin resets ownershipVerified (and with it the effective split, all to the owner) until the new origin is
 * claimed: a proof for one domain must not vouch for another. The owner keeps their access, so that they can claim
 * the new origin.
 */
export const updateGame = async (
  auth: AuthContext,
  gameId: string,
  input: UpdateGameInput,
  deps: GamesDeps,
) => {
  const game = await requireListedGame(auth, gameId);
  assertControllerChanges(auth, game, input);
  assertAirdropTokenMayChange(game, input);
  await checkJwksUrl(input.jwksUrl, deps);
  const { image, cover } = await pickImages(auth, input, deps.uploads);
  const split =
    input.orgRewardsSplit === undefined ? undefined : await resolveSplit(input.orgRewardsSplit, deps);
  const [storedImage, storedCover] = await Promise.all([
    store(deps, game.id, 'image', image),
    store(deps, game.id, 'cover', cover),
  ]);
  const pick = <K extends keyof UpdateGameInput & keyof GameRecord>(key: K) =>
    input[key] === undefined ? {} : { [key]: input[key] };
  const next: GameRecord = {
    ...game,
    ...pick('name'),
    ...pick('description'),
    ...pick('gameUrl'),
    ...pick('platform'),
    ...pick('isHTMLGame'),
    ...pick('iframable'),
    ...pick('twitter'),
    ...pick('discord'),
    ...pick('telegram'),
    ...capsOf(input, game),
    ...pick('hidden'),
    ...pick('jwksUrl'),
    ...pick('airdropTokenAddress'),
    ...(storedImage ? { imageKey: storedImage.key, imageUrl: storedImage.url } : {}),
    ...(storedCover ? { coverImageKey: storedCover.key, coverImageUrl: storedCover.url } : {}),
    ...(split ? { requestedOrgRewardsSplit: split.requested } : {}),
    ...(input.gameUrl !== undefined && !sameOrigin(game.gameUrl, input.gameUrl)
      ? { ownershipVerified: false }
      : {}),
    ...bump(game, deps.now),
  } as GameRecord;
  await saveChange(next, game);
  await discardClaimedUploads(deps.uploads, [image, cover]);
  return { game: toView(next, true), playerIdToArcId: split?.mapping ?? {} };
};
