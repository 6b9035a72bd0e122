// Users' embedded wallets belong to the identity provider (docs/wallets.md): the provider creates them and
// holds their keys; the platform learns a wallet's id and address from the provider's user record, and whether
// the user let the app sign (our signer among the wallet's `additional_signers`) from the wallet record, and
// never stores a user key. Signing goes through lib/adapters/wallet-signer.
import type { StoredWallet, WalletLoadOptions } from '../adapters/wallet-signer.js';
import { AppError } from '../core/errors.js';
import {
  carriesOurSigner,
  embeddedWalletOf,
  providerError,
  providerRequest,
  providerUserSchema,
  providerWalletSchema,
  userPath,
} from './provider.js';
import { getWalletRef, rememberWalletAddress, type WalletRef, walletRefs } from './repository.js';

/**
 * How long a provider record is reused: an address never changes, and a revoked delegation is also refused by
 * the provider's signing API, so a short staleness only delays the clear 403; the gates read fresh anyway.
 */
export const WALLET_CACHE_TTL_MS = 10_000;
const CACHE_LIMIT = 5_000;

const refs = new Map<string, WalletRef>();
const records = new Map<string, { wallet: StoredWallet | null; at: number }>();

const remember = <V>(map: Map<string, V>, key: string, value: V) => {
  if (map.size >= CACHE_LIMIT) map.clear();
  map.set(key, value);
};

/** A user's subject and mirrored address (the subject never changes: cached for the container's life). */
const refOf = async (arcId: string): Promise<WalletRef | undefined> => {
  const known = refs.get(arcId);
  if (known) return known;
  const ref = await getWalletRef(arcId);
  if (ref) remember(refs, arcId, ref);
  return ref;
};

/** Keep the provider's address in the user's profile the first time it is seen (see WalletRef). */
const mirror = async (arcId: string, ref: WalletRef, wallet: StoredWallet | null) => {
  if (!wallet || ref.address === wallet.address) return;
  await rememberWalletAddress(arcId, wallet);
  remember(refs, arcId, { ...ref, address: wallet.address });
};

/**
 * The embedded wallet of a provider user: its id and address from the user record (GET /v1/users/{did}), and
 * whether it carries our signer from the wallet record (GET /v1/wallets/{id}); null when it has none.
 */
export const providerWallet = async (
  subject: string,
  options: WalletLoadOptions = {},
  fetchImpl: typeof fetch = fetch,
): Promise<StoredWallet | null> => {
  const cached = records.get(subject);
  if (!options.fresh && cached && Date.now() - cached.at < WALLET_CACHE_TTL_MS) return cached.wallet;
  const response = await providerRequest(fetchImpl, userPath(subject));
  if (response.status === 404) return null;
  if (!response.ok) throw await providerError(response, 'user read');
  const ref = embeddedWalletOf(providerUserSchema.parse(await response.json()));
  let wallet: StoredWallet | null = null;
  if (ref) {
    const record = await providerRequest(fetchImpl, `/v1/wallets/${encodeURIComponent(ref.id)}`);
    if (!record.ok) throw await providerError(record, 'wallet read');
    const parsed = providerWalletSchema.parse(await record.json());
    wallet = { id: ref.id, address: ref.address, delegated: carriesOurSigner(parsed) };
  }
  remember(records, subject, { wallet, at: Date.now() });
  return wallet;
};

/**
 * A user's embedded wallet (id, address, and whether it carries our signer) as the provider has it; null when the user has none.
 * The wallet signer's loader. `fresh` skips the short cache (the launch, purchase and claim gates).
 */
export const loadWallet = async (
  userId: string,
  options: WalletLoadOptions = {},
): Promise<StoredWallet | null> => {
  const ref = await refOf(userId);
  if (!ref?.subject) return null;
  const wallet = await providerWallet(ref.subject, options);
  await mirror(userId, ref, wallet);
  return wallet;
};

/** Provider lookups in flight at once when a board's wallets are first learned. */
const LOOKUP_CONCURRENCY = 8;

/**
 * The embedded wallet addresses of these users (Arc ID → address; users without one are absent): the mirrored
 * addresses in one BatchGetItem per 100 users, the provider asked only for users whose address is not known yet.
 */
export const walletAddresses = async (arcIds: string[]): Promise<Map<string, string>> => {
  const known = await walletRefs(arcIds);
  const addresses = new Map<string, string>();
  const unknown: Array<[string, WalletRef & { subject: string }]> = [];
  for (const [arcId, ref] of known) {
    if (ref.address) addresses.set(arcId, ref.address);
    else if (ref.subject) unknown.push([arcId, { ...ref, subject: ref.subject }]);
  }
  for (let i = 0; i < unknown.length; i += LOOKUP_CONCURRENCY)
    await Promise.all(
      unknown.slice(i, i + LOOKUP_CONCURRENCY).map(async ([arcId, ref]) => {
        const wallet = await providerWallet(ref.subject);
        await mirror(arcId, ref, wallet);
        if (wallet) addresses.set(arcId, wallet.address);
      }),
    );
  return addresses;
};

/**
 * The wallet a user-signed transaction may be sent from: 400 NO_EMBEDDED_WALLET without one, 403
 * WALLET_DELEGATION_REQUIRED while the wallet does not carry our signer among its `additional_signers` (the
 * user has not added it, or removed it; checked before anything is sent on chain; the provider would refuse to
 * sign anyway).
 */
export const requireDelegated = (wallet: StoredWallet | null): StoredWallet => {
  if (!wallet)
    throw new AppError(
      'NO_EMBEDDED_WALLET',
      'You have no embedded wallet: create one with the identity provider, then retry',
    );
  if (!wallet.delegated)
    throw new AppError(
      'WALLET_DELEGATION_REQUIRED',
      `Add the platform's signer to your embedded wallet ${wallet.address} with the identity provider ` +
        '(delegated signing): the platform signs launches, purchases and claims through it',
    );
  return wallet;
};

/** The caller's wallet for a user-signed transaction, read fresh from the provider (see `requireDelegated`). */
export const requireDelegatedWallet = async (userId: string): Promise<StoredWallet> =>
  requireDelegated(await loadWallet(userId, { fresh: true }));
