// The coins snapshots are taken of, as the launcher and games domains know them: a coin's game and airdrop
// token, and the custodial distribution vault that pays its claims.
import type { KeyPairSigner } from '@solana/kit';
import { getCoinGameIds, getGame } from '../games/index.js';
import { getCoin, getJob, getMintJobId, openLaunchKeys } from '../launcher/index.js';
import type { AirdropCoin } from './builder.js';

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
  const { coinMint, vaultAddress, sealedMintKey, sealedVaultKey } = (await jobOf(tokenMint)) ?? {};
  return coinMint && vaultAddress && sealedMintKey && sealedVaultKey
    ? { coinMint, vaultAddress, sealedMintKey, sealedVaultKey }
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
export const findVaultAddress = async (tokenMint: string) => (await launchedHere(tokenMint))?.vaultAddress;
