// A WalletSigner over keypairs a test holds: for unit and chain tests that need a paying user without the
// identity provider (the API itself only signs through the provider: lib/adapters/wallet-signer.ts).
import { address, type KeyPairSigner, partiallySignTransaction } from '@solana/kit';
import type { WalletSigner } from '../../lib/adapters/wallet-signer.js';

export const keypairWalletSigner = (lookup: (userId: string) => KeyPairSigner | undefined): WalletSigner => {
  const require = (userId: string) => {
    const keypair = lookup(userId);
    if (!keypair) throw new Error(`test signer: no keypair for ${userId}`);
    return keypair;
  };
  return {
    address: async (userId) => address(require(userId).address),
    signTransaction: async (userId, tx) => partiallySignTransaction([require(userId).keyPair], tx),
  };
};
