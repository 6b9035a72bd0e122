// The identity provider's user API, shared by the directory (creating users) and the embedded-wallet reads.
import * as z from 'zod/mini';
import type { StoredWallet } from '../adapters/wallet-signer.js';
import { requireSetting } from '../core/config.js';

/**
 * A request to `{IDP_API_URL}{path}` with the app's HTTP Basic credentials (IDP_APP_ID:IDP_APP_SECRET) and a
 * 5 s timeout.
 */
export const providerRequest = (fetchImpl: typeof fetch, path: string, init: RequestInit = {}) => {
  const auth = Buffer.from(`${requireSetting('IDP_APP_ID')}:${requireSetting('IDP_APP_SECRET')}`).toString(
    'base64',
  );
  const base = requireSetting('IDP_API_URL').replace(/\/?$/, '/');
  return fetchImpl(new URL(path.replace(/^\//, ''), base), {
    ...init,
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json', ...init.headers },
    signal: AbortSignal.timeout(5000),
  });
};

/** The provider's user record, as far as wallets go: its embedded Solana wallet in `linked_accounts`. */
export const providerUserSchema = z.object({
  id: z.string(),
  linked_accounts: z.optional(
    z.array(
      z.looseObject({
        type: z.string(),
        chain_type: z.optional(z.string()),
        connector_type: z.optional(z.string()),
        address: z.optional(z.string()),
        delegated: z.optional(z.boolean()),
      }),
    ),
  ),
});

/** The user's embedded Solana wallet in a provider record; null when it has none. */
export const embeddedWalletOf = (user: z.infer<typeof providerUserSchema>): StoredWallet | null => {
  const account = (user.linked_accounts ?? []).find(
    (a) => a.type === 'wallet' && a.chain_type === 'solana' && a.connector_type === 'embedded' && a.address,
  );
  return account?.address ? { address: account.address, delegated: account.delegated === true } : null;
};
