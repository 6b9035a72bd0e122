// Production wiring of the snapshot builder and claims: the chain reader, S3, DynamoDB and the launcher's
// custodial vault. The read endpoints take ./read-deps.ts, which bundles no chain library.
import type { KeyPairSigner } from '@solana/kit';
import { chainReaderFromConfig } from '../chain/index.js';
import { getCoinGameIds, getGame } from '../games/repository.js';
import { openLaunchKeys } from '../launcher/coin.js';
import { getCoin, getJob, getMintJobId } from '../launcher/repository.js';
import type { AirdropCoin, BuilderDeps } from './builder.js';
import type { ClaimDeps, ClaimStatusDeps } from './claims.js';
import { readDeps } from './read-deps.js';
import * as repo from './repository.js';
import { putSnapshotObjects } from './storage.js';

const now = () => new Date();

/** The launch job of a coin (the mint → job index written at reserve time, else the coin record's job). */
const jobOf = async (tokenMint: string) => {
  const jobId = (await getMintJobId(tokenMint)) ?? (await getCoin(tokenMint))?.jobId;
  return jobId ? getJob(jobId) : undefined;
};

/** A game coin with its game's airdrop token, or undefined. */
export const findAirdropCoin = async (tokenMint: string): Promise<AirdropCoin | undefined> => {
  const gameId = (await getCoinGameIds([tokenMint])).get(tokenMint);
  const game = gameId ? await getGame(gameId) : undefined;
  if (!game?.airdropTokenAddress) return undefined;
  const job = await jobOf(tokenMint);
  return {
    tokenMint,
    gameId: game.id,
    airdropMint: game.airdropTokenAddress,
    vaultAddress: job?.vaultAddress ?? null,
  };
};

/** The sealed launch keys of a coin whose distribution vault this deployment holds, or undefined. */
const launchedHere = async (tokenMint: string) => {
  const { mintAddress, vaultAddress, sealedMintKey, sealedVaultKey } = (await jobOf(tokenMint)) ?? {};
  return mintAddress && vaultAddress && sealedMintKey && sealedVaultKey
    ? { mintAddress, vaultAddress, sealedMintKey, sealedVaultKey }
    : undefined;
};

/**
 * The distribution vault of a coin: the custodial launch vault that holds the unsold supply, opened from the
 * launch job's sealed key. Undefined when the coin was not launched here.
 */
export const loadDistributionVault = async (tokenMint: string): Promise<KeyPairSigner | undefined> => {
  const launch = await launchedHere(tokenMint);
  return launch ? (await openLaunchKeys(launch)).vault : undefined;
};

/** The distribution vault's address, for reads: the key stays sealed. */
const findVaultAddress = async (tokenMint: string) => (await launchedHere(tokenMint))?.vaultAddress;

/** The snapshot builder (SQS consumer). */
export const builderDeps = (): BuilderDeps => ({
  chain: chainReaderFromConfig(),
  findCoin: findAirdropCoin,
  putObjects: putSnapshotObjects,
  getSummary: repo.getSummary,
  putSummaryIfNewer: repo.putSummaryIfNewer,
  now,
});

/** POST /token-launcher/exercise-claim: builds the claim transaction, which the vault co-signs. */
export const claimDeps = (): ClaimDeps => ({
  ...readDeps(),
  chain: chainReaderFromConfig(),
  loadVault: loadDistributionVault,
  getClaimRecord: repo.getClaimRecord,
  recordClaim: repo.recordClaim,
  now,
});

/** GET …/exercise-claim/{gtokenAddress}/status/{wallet}: reads only, so no vault key is opened or bundled. */
export const claimStatusDeps = (): ClaimStatusDeps => ({
  ...readDeps(),
  chain: chainReaderFromConfig(),
  findVaultAddress,
  getClaimRecord: repo.getClaimRecord,
  recordClaim: repo.recordClaim,
  now,
});
