import { LOCAL_APP_ID, LOCAL_APP_SECRET } from '../../scripts/idp/wallets.js';
import { fetchLocalToken } from '../../scripts/token.js';

export const idpUrl = (): string => {
  const url = process.env.IDP_URL;
  if (!url) throw new Error('IDP_URL is not set: the test stack did not start the local identity provider');
  return url;
};

/** A bearer token from the local identity provider the test stack runs (IDP_URL). */
export const idpToken = async (name: string): Promise<string> =>
  (await fetchLocalToken(name, idpUrl())).token;

/** A user as the local provider shows it: the embedded wallet it created and whether signing is delegated. */
export interface ProviderUser {
  subject: string;
  walletAddress: string | null;
  walletId: string | null;
  delegated: boolean;
}

/** What the local provider counted for a wallet: signing requests received (refused ones too) and signed. */
export interface ProviderWallet {
  address: string;
  subject: string;
  delegated: boolean;
  signRequests: number;
  signed: number;
}

const json = async <T>(response: Response): Promise<T> => {
  if (!response.ok)
    throw new Error(`local identity provider answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
};

/** The user `did` at the local provider (GET /local/users/{did}). */
export const providerUser = async (did: string): Promise<ProviderUser> =>
  json(await fetch(`${idpUrl()}/local/users/${encodeURIComponent(did)}`));

/** Grant or revoke the app's delegated signing, as the user would in the provider's wallet UI. */
export const setDelegation = async (did: string, delegated: boolean): Promise<ProviderWallet> =>
  json(
    await fetch(`${idpUrl()}/local/users/${encodeURIComponent(did)}/delegation`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ delegated }),
    }),
  );

/** A wallet's counters at the local provider (GET /local/wallets/{address}). */
export const providerWallet = async (address: string): Promise<ProviderWallet> =>
  json(await fetch(`${idpUrl()}/local/wallets/${encodeURIComponent(address)}`));

/** Every embedded wallet address the local provider holds (GET /local/wallets). */
export const providerWalletAddresses = async (): Promise<string[]> =>
  (await json<{ addresses: string[] }>(await fetch(`${idpUrl()}/local/wallets`))).addresses;

/** Set the local provider's user-creation rate limit (PUT /local/limits/user-creation). */
export const setUserCreationLimit = async (limit: { count: number; windowMs: number }): Promise<void> => {
  await json(
    await fetch(`${idpUrl()}/local/limits/user-creation`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(limit),
    }),
  );
};

/** The provider user holding an email, through the provider API itself (the local app's credentials). */
export const providerUserByEmail = async (email: string): Promise<string | null> => {
  const response = await fetch(`${idpUrl()}/v1/users/email/address`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}`,
      'privy-app-id': LOCAL_APP_ID,
    },
    body: JSON.stringify({ address: email }),
  });
  if (response.status === 404) return null;
  return (await json<{ id: string }>(response)).id;
};

/**
 * The local provider's fault switch: `down` refuses its API's connections, `hang` never answers, `limited`
 * answers 429 with a Retry-After of `retryAfter` seconds, null heals.
 */
export const setProviderFault = async (
  mode: 'down' | 'hang' | 'limited' | null,
  retryAfter?: number,
): Promise<void> => {
  await json(
    await fetch(`${idpUrl()}/local/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode, ...(retryAfter === undefined ? {} : { retryAfter }) }),
    }),
  );
};
