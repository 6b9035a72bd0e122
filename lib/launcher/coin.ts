// The game coin (docs/game-coin.md): its decimals and fixed supply, a launch's mint and vault keypairs (generated
// and sealed for the job record, opened for signing), and the error of a launch step (coin-steps.ts).
import { CustodialKeyError, openCustodialKey, sealCustodialKey } from '../adapters/vault-keys.js';
import { type KeyPairSigner, newKeypair } from '../chain/index.js';
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

/** Fresh mint and vault keypairs, each sealed for its own address (lib/adapters/vault-keys.ts). */
export const generateLaunchKeys = async (): Promise<SealedLaunchKeys> => {
  const [mint, vault] = await Promise.all([newKeypair(), newKeypair()]);
  try {
    return {
      coinMint: mint.signer.address,
      vaultAddress: vault.signer.address,
      sealedMintKey: await sealCustodialKey('mint', mint.signer.address, mint.secretKey),
      sealedVaultKey: await sealCustodialKey('vault', vault.signer.address, vault.secretKey),
    };
  } finally {
    mint.secretKey.fill(0);
    vault.secretKey.fill(0);
  }
};

/** Open persisted launch keys; throws when a secret was sealed for, or signs for, another address. */
export const openLaunchKeys = async (sealed: SealedLaunchKeys): Promise<LaunchKeys> => {
  try {
    const [mint, vault] = await Promise.all([
      openCustodialKey('mint', sealed.coinMint, sealed.sealedMintKey),
      openCustodialKey('vault', sealed.vaultAddress, sealed.sealedVaultKey),
    ]);
    return { mint, vault };
  } catch (error) {
    // Not something a retry fixes (a Secrets Manager outage is, and passes through as it is).
    if (error instanceof CustodialKeyError)
      throw new CoinLaunchError(`Launch keys do not match their addresses: ${error.message}`);
    throw error;
  }
};
