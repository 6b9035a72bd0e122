// The game coin (docs/game-coin.md): its decimals and fixed supply, a launch's mint and vault keypairs (generated
// and sealed for the job record, opened for signing), and the error of a launch step (coin-steps.ts).
import { openSecret, sealSecret } from '../adapters/secrets.js';
import { type KeyPairSigner, keypairFromSecret, newKeypair } from '../chain/index.js';
import { INITIAL_CURVE, TOKEN_DECIMALS } from './curve.js';

export type { CoinMetadata } from '../chain/index.js';

/** Decimals of every game coin. */
export const COIN_DECIMALS = TOKEN_DECIMALS;
/** Fixed supply minted once into the vault: 1 000 000 000 tokens in base units. */
export const COIN_SUPPLY = INITIAL_CURVE.tokenTotalSupply;

/** A launch's keypairs as persisted in the job record before the first step: addresses plus sealed secrets. */
export interface SealedLaunchKeys {
  coinMint: string;
  vaultAddress: string;
  sealedMintKey: string;
  sealedVaultKey: string;
}

/** A launch's keypairs, opened for signing. */
export interface LaunchKeys {
  mint: KeyPairSigner;
  vault: KeyPairSigner;
}

/** A launch step whose preconditions do not hold on chain (not retryable). */
export class CoinLaunchError extends Error {
  override readonly name = 'CoinLaunchError';
}

/** Fresh mint and vault keypairs, sealed for storage. */
export const generateLaunchKeys = async (): Promise<SealedLaunchKeys> => {
  const [mint, vault] = await Promise.all([newKeypair(), newKeypair()]);
  return {
    coinMint: mint.signer.address,
    vaultAddress: vault.signer.address,
    sealedMintKey: sealSecret(Buffer.from(mint.secretKey)),
    sealedVaultKey: sealSecret(Buffer.from(vault.secretKey)),
  };
};

/** Open persisted launch keys; throws when a secret does not match its recorded address. */
export const openLaunchKeys = async (sealed: SealedLaunchKeys): Promise<LaunchKeys> => {
  const [mint, vault] = await Promise.all([
    keypairFromSecret(openSecret(sealed.sealedMintKey)),
    keypairFromSecret(openSecret(sealed.sealedVaultKey)),
  ]);
  if (mint.address !== sealed.coinMint || vault.address !== sealed.vaultAddress)
    throw new CoinLaunchError('Launch keys do not match their addresses');
  return { mint, vault };
};
