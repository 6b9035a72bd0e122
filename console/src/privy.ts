// Sign-in through the identity provider's official browser client (@privy-io/js-sdk-core): an email, a one-time
// code, and the provider's access token, which the API takes as a bearer token. Loaded on the sign-in page and when
// a token needs refreshing only: the client is ~200 KB gzipped, six times the rest of the console.
import type { ConsoleConfig } from './config.js';

type Provider = NonNullable<ConsoleConfig['identityProvider']>;

/**
 * The provider's session in the tab's storage, like the console's own token: closing the tab signs out.
 * (The client's own LocalStorage would keep it across tabs and restarts.)
 */
const tabStorage = {
  get: (key: string): unknown => {
    const value = sessionStorage.getItem(`privy.${key}`);
    return value === null ? undefined : JSON.parse(value);
  },
  put: (key: string, value: unknown) => sessionStorage.setItem(`privy.${key}`, JSON.stringify(value)),
  del: (key: string) => sessionStorage.removeItem(`privy.${key}`),
  getKeys: () =>
    Object.keys(sessionStorage)
      .filter((key) => key.startsWith('privy.'))
      .map((key) => key.slice('privy.'.length)),
};

let client: Promise<import('@privy-io/js-sdk-core').default> | undefined;

const privy = (provider: Provider) => {
  client ??= import('@privy-io/js-sdk-core').then(({ default: Privy }) => {
    // `baseUrl` is read by the client (default https://auth.privy.io) but not in its options' type: set only for
    // the local identity provider, which serves the same client API.
    const options = {
      appId: provider.appId,
      storage: tabStorage,
      ...(provider.apiUrl ? { baseUrl: provider.apiUrl } : {}),
    };
    return new Privy(options);
  });
  return client;
};

/** Sends a one-time code to the address. */
export const sendCode = async (provider: Provider, email: string) => {
  await (await privy(provider)).auth.email.sendCode(email);
};

/** Signs in with the code; the provider's access token. */
export const signInWithCode = async (provider: Provider, email: string, code: string): Promise<string> => {
  const session = await (await privy(provider)).auth.email.loginWithCode(email, code);
  if (!session.token) throw new Error('The identity provider answered without a token');
  return session.token;
};

/** A fresh access token (the client refreshes one about to expire), or null without a provider session. */
export const freshToken = async (provider: Provider): Promise<string | null> =>
  (await privy(provider)).getAccessToken();

/** Ends the provider's session too (best effort: the console's token is dropped either way). */
export const signOut = async (provider: Provider) => {
  await (await privy(provider)).auth.logout();
};
