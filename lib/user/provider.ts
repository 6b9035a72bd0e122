// The identity provider's user and wallet records (Privy's server API, lib/adapters/privy-api.ts), as the
// directory and the embedded-wallet reads use them: typed with the official `@privy-io/node` client's types.
import type { User, Wallet } from '@privy-io/node/resources';
import * as z from 'zod/mini';
import { requireSetting } from '../core/config.js';

export {
  ProviderApiError,
  type ProviderTarget,
  providerError,
  providerRequest,
  type SignatureInput,
  signaturePayload,
  userPath,
} from '../adapters/privy-api.js';

/** The provider's user record (the official client's `User`), as far as the platform reads it. */
export const providerUserSchema = z.object({
  id: z.string(),
  linked_accounts: z.array(
    z.looseObject({
      type: z.string(),
      id: z.optional(z.nullable(z.string())),
      chain_type: z.optional(z.string()),
      connector_type: z.optional(z.string()),
      address: z.optional(z.string()),
    }),
  ),
});
export type ProviderUser = Pick<User, 'id'> & z.infer<typeof providerUserSchema>;

/** A user's embedded Solana wallet as the user record shows it: its id (the wallet API's key) and address. */
export interface EmbeddedWalletRef {
  id: string;
  address: string;
}

/** The user's embedded Solana wallet in a provider record; null when it has none. */
export const embeddedWalletOf = (user: ProviderUser): EmbeddedWalletRef | null => {
  const account = user.linked_accounts.find(
    (a) =>
      a.type === 'wallet' &&
      a.chain_type === 'solana' &&
      a.connector_type === 'embedded' &&
      a.address &&
      a.id,
  );
  return account?.address && account.id ? { id: account.id, address: account.address } : null;
};

/** The provider's wallet record (the official client's `Wallet`), as far as the permission gate reads it. */
export const providerWalletSchema = z.object({
  id: z.string(),
  address: z.string(),
  chain_type: z.string(),
  additional_signers: z.array(z.looseObject({ signer_id: z.string() })),
});
export type ProviderWallet = Pick<Wallet, 'id' | 'address'> & z.infer<typeof providerWalletSchema>;

/** Whether the wallet carries the platform's signer (IDP_SIGNER_ID, a key quorum) among its additional signers. */
export const carriesOurSigner = (
  wallet: ProviderWallet,
  signerId: string = requireSetting('IDP_SIGNER_ID'),
) => wallet.additional_signers.some((s) => s.signer_id === signerId);
