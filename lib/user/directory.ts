import { createHash } from 'node:crypto';
import type { ParsedIdentifier } from './identifiers.js';
import { embeddedWalletOf, providerRequest, providerUserSchema } from './provider.js';

/**
 * The identity provider's user directory: users that do not exist yet are created there (SPEC §2), and
 * `did:` identifiers are validated against it.
 */
export interface ProviderUserRef {
  subject: string;
  walletAddress?: string;
}

export interface IdentityDirectory {
  /**
   * The provider user holding this wallet, email or handle (created if none, with an embedded wallet): its
   * subject (`did:<idp>:<id>`) and, when the provider's answer shows it, its embedded wallet's address. A wallet
   * is held by the user it is linked to or embedded in: a user's own embedded wallet names that user.
   */
  findOrCreate(identifier: ParsedIdentifier): Promise<ProviderUserRef>;
  /** Whether a did names a user of the provider. */
  isKnownSubject(did: string): Promise<boolean>;
}

/**
 * For in-process tests only: the subjects the local IdP's import gives (scripts/idp/wallets.ts), without asking
 * it. The local IdP knows every `did:local:<name>`, so these users' embedded wallets are still its own.
 */
export const localDirectory: IdentityDirectory = {
  // Deterministic, so the same wallet always maps to the same local subject.
  findOrCreate: async (identifier) => ({
    subject: `did:local:u-${createHash('sha256').update(identifier.key).digest('hex').slice(0, 32)}`,
  }),
  isKnownSubject: async (did) => /^did:local:[a-z0-9_-]{1,64}$/.test(did),
};

const linkedAccount = (identifier: ParsedIdentifier) => {
  switch (identifier.kind) {
    case 'sol':
      return { type: 'wallet', chain_type: 'solana', address: identifier.value };
    case 'eth':
      return { type: 'wallet', chain_type: 'ethereum', address: identifier.value };
    case 'email':
      return { type: 'email', address: identifier.value };
    case 'x':
      return { type: 'twitter_oauth', username: identifier.value };
    default:
      throw new Error(`Identifier kind ${identifier.kind} cannot be imported`);
  }
};

/** A provider user record as the directory answers it: its subject and its embedded wallet's address. */
const userRef = async (response: Response, what: string): Promise<ProviderUserRef> => {
  const user = providerUserSchema.parse(await response.json());
  if (!/^did:[a-z0-9]+:.+$/.test(user.id))
    throw new Error(`Identity provider ${what} gave subject ${user.id}`);
  const wallet = embeddedWalletOf(user);
  return { subject: user.id, ...(wallet ? { walletAddress: wallet.address } : {}) };
};

/**
 * Production: the provider's user REST API.
 * - `POST {IDP_API_URL}/v1/users/wallet/address` with `{"address": "<address>"}` answers the user whose
 *   `linked_accounts` include that wallet, their embedded wallet included (404: nobody): asked first for a wallet
 *   identifier, so that a user's own embedded wallet names that user and never a second one.
 * - `POST {IDP_API_URL}/v1/users/import` with `{"linked_accounts": [<account>], "create_embedded_wallet": true}`
 *   answers the user record (`{"id": "did:<idp>:<id>", "linked_accounts": [...]}`) of the new or already existing
 *   user holding that account (upsert); its embedded wallet's address is kept (lib/user/wallet.ts).
 * - `GET {IDP_API_URL}/v1/users/{did}` answers 200 for a known user and 404 otherwise.
 * All use HTTP Basic auth with IDP_APP_ID:IDP_APP_SECRET and a 5 s timeout.
 */
export const remoteDirectory = (fetchImpl: typeof fetch = fetch): IdentityDirectory => {
  const request = (path: string, init: RequestInit = {}) => providerRequest(fetchImpl, path, init);
  /** The provider user holding a wallet (linked or embedded), if any. */
  const walletHolder = async (address: string): Promise<ProviderUserRef | undefined> => {
    const response = await request('/v1/users/wallet/address', {
      method: 'POST',
      body: JSON.stringify({ address }),
    });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`Identity provider wallet lookup failed with ${response.status}`);
    return userRef(response, 'wallet lookup');
  };
  return {
    findOrCreate: async (identifier) => {
      if (identifier.kind === 'sol' || identifier.kind === 'eth') {
        const holder = await walletHolder(identifier.value);
        if (holder) return holder;
      }
      const response = await request('/v1/users/import', {
        method: 'POST',
        body: JSON.stringify({ linked_accounts: [linkedAccount(identifier)], create_embedded_wallet: true }),
      });
      if (!response.ok) throw new Error(`Identity provider import failed with ${response.status}`);
      return userRef(response, 'import');
    },
    isKnownSubject: async (did) => {
      const response = await request(`/v1/users/${encodeURIComponent(did)}`);
      if (response.status === 404) return false;
      if (!response.ok) throw new Error(`Identity provider lookup failed with ${response.status}`);
      return true;
    },
  };
};

/** The provider's directory (locally the local IdP's, which serves the same API). */
export const configuredDirectory = (): IdentityDirectory => remoteDirectory();
