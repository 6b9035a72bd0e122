// The coins snapshots are taken of, as the launcher and games domains know them: a coin's game and airdrop
// token, and the custodial distribution vault that pays its claims.
import type { KeyPairSigner } from '@solana/kit';
import { errors } from '../core/errors.js';
import { gamesByAirdropMint, getCoinGameIds, getGame } from '../games/index.js';
import { getCoin, getJob, getMintJobId, openLaunchKeys } from '../launcher/index.js';
import type { AirdropCoin } from './builder.js';
import type { EmissionSchedule } from './claims/claims.js';
import { getEmissionState, listEmissionDays } from './emission/repository.js';
import { EMISSION_POOL } from './emission-math.js';

/** The launch job of a coin (the mint → job index written at reserve time, else the coin record's job). */
const jobOf = async (coinMint: string) => {
  const jobId = (await getMintJobId(coinMint)) ?? (await getCoin(coinMint))?.jobId;
  return jobId ? getJob(jobId) : undefined;
};

/** A game coin with its game's airdrop token and its emission window, or undefined. */
export const findAirdropCoin = async (coinMint: string): Promise<AirdropCoin | undefined> => {
  const gameId = (await getCoinGameIds([coinMint])).get(coinMint);
  const game = gameId ? await getGame(gameId) : undefined;
  if (!game?.airdropTokenAddress) return undefined;
  // The game's current coin, else the coin's own record (a game that launched a newer coin since).
  const window = game.coin?.coinMint === coinMint ? game.coin : await getCoin(coinMint);
  if (!window?.emissionStartAt) return undefined;
  const job = await jobOf(coinMint);
  return {
    coinMint,
    gameId: game.id,
    airdropMint: game.airdropTokenAddress,
    vaultAddress: job?.vaultAddress ?? null,
    emissionStartAt: window.emissionStartAt,
    emissionDays: window.emissionDays,
  };
};

/** The current coin mints of the games whose airdrop token is `airdropMint` (the snapshot read endpoints). */
export const airdropCoinMints = async (airdropMint: string): Promise<string[]> =>
  (await gamesByAirdropMint(airdropMint)).flatMap((game) => (game.coin ? [game.coin.coinMint] : []));

/** The sealed launch keys of a coin whose distribution vault this deployment holds, or undefined. */
const launchedHere = async (coinMint: string) => {
  const { vaultAddress, sealedMintKey, sealedVaultKey, coinMint: reserved } = (await jobOf(coinMint)) ?? {};
  return reserved && vaultAddress && sealedMintKey && sealedVaultKey
    ? { coinMint: reserved, vaultAddress, sealedMintKey, sealedVaultKey }
    : undefined;
};

/**
 * The distribution vault of a coin: the custodial launch vault that holds the unsold supply, opened from the
 * launch job's sealed key. Undefined when the coin was not launched here.
 */
export const loadDistributionVault = async (coinMint: string): Promise<KeyPairSigner | undefined> => {
  const launch = await launchedHere(coinMint);
  return launch ? (await openLaunchKeys(launch)).vault : undefined;
};

/** The distribution vault's address, for reads: the key stays sealed. */
export const findVaultAddress = async (coinMint: string) => (await launchedHere(coinMint))?.vaultAddress;

/** A coin's emission schedule for the claim status: its game's coin summary and the last settled day. */
export const findEmissionSchedule = async (coinMint: string): Promise<EmissionSchedule | undefined> => {
  const gameId = (await getCoinGameIds([coinMint])).get(coinMint);
  const coin = gameId ? (await getGame(gameId))?.coin : undefined;
  if (!coin || coin.coinMint !== coinMint) return undefined;
  const state = await getEmissionState(coinMint);
  return {
    status: coin.status,
    emissionDays: coin.emissionDays,
    emissionStartAt: coin.emissionStartAt,
    lastSettledDay: state?.lastSettledDay ?? null,
  };
};

/** GET /token-launcher/emission/{coinMint}: a game coin's emission, each settled day with what it emitted. */
export const coinEmission = async (coinMint: string) => {
  const gameId = (await getCoinGameIds([coinMint])).get(coinMint);
  const coin = gameId ? (await getGame(gameId))?.coin : undefined;
  if (!gameId || !coin || coin.coinMint !== coinMint) throw errors.notFound('Coin');
  const [state, days] = await Promise.all([getEmissionState(coinMint), listEmissionDays(coinMint)]);
  return {
    coinMint,
    gameId,
    status: coin.status,
    emissionDays: coin.emissionDays,
    emissionStartAt: coin.emissionStartAt ?? null,
    poolAmount: EMISSION_POOL.toString(),
    emittedAmount: (state?.emitted ?? 0n).toString(),
    days: days.map((d) => ({
      day: d.day,
      index: d.index,
      amount: d.amount.toString(),
      wallets: d.wallets,
      status: d.status,
      settledAt: d.settledAt,
    })),
  };
};
