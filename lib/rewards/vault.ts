// The chain side of the rewards pool: the custodial vault keypair of a game and the purchase transfer.
import { SystemProgram, Transaction } from '@solana/web3.js';
import { sealSecret } from '../adapters/secrets.js';
import type { Chain } from '../chain/index.js';
import { createMemoInstruction, newKeypair, PublicKey } from '../chain/spl.js';

/**
 * A new custodial vault for a game's pool: a keypair generated here, its 64-byte secret sealed with the
 * secrets key (AES-256-GCM) for storage; the platform holds it to pay out distributions.
 */
export const newVault = (): { vaultAddress: string; vaultSealedKey: string } => {
  const keypair = newKeypair();
  return {
    vaultAddress: keypair.publicKey.toBase58(),
    vaultSealedKey: sealSecret(Buffer.from(keypair.secretKey)),
  };
};

/** The memo on every purchase transfer, tying it to its purchase on chain. */
export const purchaseMemo = (purchaseId: string) => `arcadia:multiplier:${purchaseId}`;

/** A System transfer of `lamports` from the player's wallet (fee payer) to the vault, with the purchase memo. */
export const buildPurchaseTransfer = (args: {
  from: string;
  to: string;
  lamports: bigint;
  purchaseId: string;
}): Transaction =>
  new Transaction().add(
    SystemProgram.transfer({
      fromPubkey: new PublicKey(args.from),
      toPubkey: new PublicKey(args.to),
      lamports: args.lamports,
    }),
    createMemoInstruction(purchaseMemo(args.purchaseId)),
  );

/** Whether a transaction with this blockhash expiry can no longer land (the chain is past its last valid height). */
export const blockhashExpired = async (chain: Pick<Chain, 'connection'>, lastValidBlockHeight: number) =>
  (await chain.connection.getBlockHeight('confirmed')) > lastValidBlockHeight;
