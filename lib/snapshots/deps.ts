// Production wiring of the snapshot builder and claims: the chain adapter, S3, DynamoDB and the launcher's
// custodial vault. The read endpoints take ./read-deps.ts, which bundles no chain library.
import type { KeyPairSigner } from '@solana/kit';
import { chainFromConfig } from '../chain/index.js';
import { getCoinGameIds, getGame } from '../games/repository.js';
import { openLaunchKeys } from '../launcher/coin.js';
import { getCoin, getJob, getMintJobId } from '../launcher/repository.js';
import type { AirdropCoin, BuilderDeps } from './builder.js';
import type { ClaimDeps } from './claims.js';
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

/**
 * The distribution vault of a coin: the custodial launch vault that holds the unsold supply, opened from the
 * launch job's sealed key. Undefined when the coin was not launched here.
 */
export const loadDistributionVault = async (tokenMint: string): Promise<KeyPairSigner | undefined> => {
  const job = await jobOf(tokenMint);
  if (!job?.mintAddress || !job.vaultAddress || !job.sealedMintKey || !job.sealedVaultKey) return undefined;
  const keys = await openLaunchKeys({
    mintAddress: job.mintAddress,
    vaultAddress: job.vaultAddress,
    sealedMintKey: job.sealedMintKey,
    sealedVaultKey: job.sealedVaultKey,
  });
  return keys.vault;
};

/** The snapshot builder (SQS consumer). */
export const builderDeps = (): BuilderDeps => {
  const chain = chainFromConfig();
  return {
    chain: {
      listTokenHolders: (mint) => chain.listTokenHolders(mint),
      getMint: (mint) => chain.getMint(mint),
      getSlot: () => chain.getSlot(),
    },
    findCoin: findAirdropCoin,
    putObjects: putSnapshotObjects,
    getSummary: repo.getSummary,
    putSummaryIfNewer: repo.putSummaryIfNewer,
    now,
  };
};

/** The exercise-claim endpoints. */
export const claimDeps = (): ClaimDeps => ({
  ...readDeps(),
  chain: chainFromConfig(),
  loadVault: loadDistributionVault,
  getClaimRecord: repo.getClaimRecord,
  recordClaim: repo.recordClaim,
  now,
});
