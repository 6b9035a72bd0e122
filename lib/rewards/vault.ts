// The chain side of the rewards pool: the custodial vault keypair of a game and the memos of transfers into it.
import { sealCustodialKey } from '../adapters/vault-keys.js';
import type { TransactionPlan } from '../chain/index.js';
import { newKeypair } from '../chain/index.js';
import { buildInboundTransfer } from './inbound.js';

/**
 * A new custodial vault for a game's pool: a keypair generated here, its 64-byte secret sealed for its address
 * with the vault sealing key (lib/adapters/vault-keys.ts); the platform holds it to pay out distributions.
 */
export const newVault = async (): Promise<{ vaultAddress: string; vaultSealedKey: string }> => {
  const { signer, secretKey } = await newKeypair();
  try {
    return {
      vaultAddress: signer.address,
      vaultSealedKey: await sealCustodialKey('vault', signer.address, secretKey),
    };
  } finally {
    secretKey.fill(0);
  }
};

/** The memo on every purchase transfer, tying it to its purchase on chain. */
export const purchaseMemo = (purchaseId: string) => `arcadia:multiplier:${purchaseId}`;

/** A purchase's transfer from the player's wallet to the vault, with the purchase memo. */
export const buildPurchaseTransfer = (args: {
  from: string;
  to: string;
  lamports: bigint;
  purchaseId: string;
}): TransactionPlan => buildInboundTransfer({ ...args, memo: purchaseMemo(args.purchaseId) });

/** The memo on every deposit into a tournament period's prize fund, tying it to its deposit on chain. */
export const depositMemo = (depositId: string) => `arcadia:deposit:${depositId}`;
