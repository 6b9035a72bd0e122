import { createHash } from 'node:crypto';
import type {
  LinkedAccountInput,
  UserCreateParams,
  UserGetByEmailAddressParams,
  UserGetByTwitterUsernameParams,
  UserGetByWalletAddressParams,
} from '@privy-io/node/resources';
import * as z from 'zod/mini';
import { requireSetting } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import type { ParsedIdentifier } from './identifiers.js';
import {
  embeddedWalletOf,
  ProviderApiError,
  type ProviderTarget,
  providerError,
  providerRequest,
  providerUserSchema,
  userPath,
} from './provider.js';

/**
 * The identity provider's user directory: users that do not exist yet are created there (a player is addressable
 * before they ever sign in), and `did:` identifiers are validated against it.
 */
export interface ProviderUserRef {
  /** The provider user's did; absent for an X handle nobody has signed in with (left unimported). */
  subject?: string;
  walletAddress?: string;
  /** That wallet's id at the provider, beside its address. */
  walletId?: string;
}

export interface IdentityDirectory {
  /**
   * The provider user holding this wallet, email or handle: found through the provider's lookups, else created
   * with an embedded Solana wallet (an X handle is only looked up: see `remoteDirectory`). Its subject
   * (`did:<idp>:<id>`) and, when the provider's answer shows it, its embedded wallet's address. A wallet is held
   * by the user it is linked to or embedded in: a user's own embedded wallet names that user.
   */
  findOrCreate(identifier: ParsedIdentifier): Promise<ProviderUserRef>;
  /** Whether a did names a user of the provider. */
  isKnownSubject(did: string): Promise<boolean>;
  /**
   * Import users into the provider at once (its batch import where it has one): for each identifier, in order,
   * the provider user now holding it (created with an embedded Solana wallet, or the one that already held the
   * account), or why that one failed. A refusal of the whole request throws.
   */
  importUsers(identifiers: ParsedIdentifier[]): Promise<ImportResult[]>;
}

/** One user of a batch import: its provider user, or the provider's reason for failing it. */
export type ImportResult = { ok: true; user: ProviderUserRef } | { ok: false; error: string };

/** The provider's batch import takes at most this many users a request. */
export const IMPORT_BATCH_LIMIT = 20;

/** A result of `POST /v1/users/batch`: the created user's did, or why not (a conflict names the holder). */
const batchResultSchema = z.object({
  results: z.array(
    z.object({
      index: z.number(),
      success: z.boolean(),
      id: z.optional(z.string()),
      code: z.optional(z.union([z.number(), z.string()])),
      error: z.optional(z.string()),
      conflicting_did: z.optional(z.string()),
    }),
  ),
});

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
  importUsers: async (identifiers) =>
    Promise.all(
      identifiers.map(async (identifier) => ({
        ok: true as const,
        user: await localDirectory.findOrCreate(identifier),
      })),
    ),
};

/** The provider's lookup for an identifier: its path and body (the official client's request types). */
const lookupOf = (
  identifier: ParsedIdentifier,
):
  | { path: '/v1/users/email/address'; body: UserGetByEmailAddressParams }
  | { path: '/v1/users/wallet/address'; body: UserGetByWalletAddressParams }
  | { path: '/v1/users/twitter/username'; body: UserGetByTwitterUsernameParams } => {
  switch (identifier.kind) {
    case 'sol':
    case 'eth':
      return { path: '/v1/users/wallet/address', body: { address: identifier.value } };
    case 'email':
      return { path: '/v1/users/email/address', body: { address: identifier.value } };
    case 'x':
      return { path: '/v1/users/twitter/username', body: { username: identifier.value } };
    default:
      throw new Error(`Identifier kind ${identifier.kind} has no provider lookup`);
  }
};

/** The account a new user is created with; an X handle has none (the provider needs the numeric X subject). */
const linkedAccountOf = (identifier: ParsedIdentifier): LinkedAccountInput | undefined => {
  switch (identifier.kind) {
    case 'sol':
      return { type: 'wallet', chain_type: 'solana', address: identifier.value };
    case 'eth':
      return { type: 'wallet', chain_type: 'ethereum', address: identifier.value };
    case 'email':
      return { type: 'email', address: identifier.value };
    default:
      return undefined;
  }
};

/** A provider user record as the directory answers it: its subject and its embedded wallet's address. */
const userRef = async (response: Response, what: string): Promise<ProviderUserRef> => {
  const user = providerUserSchema.parse(await response.json());
  if (!/^did:[a-z0-9]+:.+$/.test(user.id))
    throw new Error(`Identity provider ${what} gave subject ${user.id}`);
  const wallet = embeddedWalletOf(user);
  return { subject: user.id, ...(wallet ? { walletAddress: wallet.address, walletId: wallet.id } : {}) };
};

/** How the directory reaches the provider; each part defaults to its setting. */
export interface RemoteDirectoryOptions {
  /** Where and as whom every other request goes (default: the settings and the credentials secret). */
  target?: ProviderTarget;
  /** The batch import's base URL (IDP_IMPORT_API_URL: the provider serves it on its auth host only). */
  importBase?: string;
  /**
   * Attempts in all of a creation the provider answers 429 (default IDP_RETRY_ATTEMPTS). The import worker asks
   * for few: it waits out the provider's Retry-After on its queue, not in the function.
   */
  creationAttempts?: number;
}

/** Statuses that say the batch import is not served at that URL: its single creations are used instead. */
const BATCH_UNAVAILABLE = new Set([404, 405, 501]);

/**
 * Production: the provider's server API (lib/user/provider.ts: app-id header, Basic auth, back-off on 429).
 * - A lookup first: `POST /v1/users/wallet/address` `{"address"}` (the user a wallet is linked to or embedded
 *   in, so a user's own embedded wallet names that user), `/v1/users/email/address` `{"address"}`, or
 *   `/v1/users/twitter/username` `{"username"}`; 404: nobody.
 * - Nobody: `POST /v1/users` `{"linked_accounts": [<account>], "wallets": [{"chain_type": "solana"}]}` creates
 *   the user with an embedded Solana wallet (our signer is not added: the user adds it, docs/wallets.md). Two
 *   saves creating the same new account at once: the provider refuses the second (the account is linked to the
 *   first), which is looked up again, so both name one user.
 * - The import: `POST {IDP_IMPORT_API_URL}/v1/users/batch`, up to 20 users, on the provider's auth host (where
 *   it documents it; the official client has no batch method). Answered 404, 405 or 501 there, the batch import
 *   is taken for unavailable for this container's life and each user is created alone (`POST /v1/users`),
 *   within the creations the caller reserved for the batch.
 * - An X handle nobody has signed in with is not created: the provider links an X account by its numeric
 *   subject, which a handle does not give. Its Arc user has no provider user (and no wallet) until then.
 * - `GET /v1/users/{did}` (the did as the official client encodes it) answers 200 for a known user, else 404.
 */
export const remoteDirectory = (
  fetchImpl: typeof fetch = fetch,
  options: RemoteDirectoryOptions = {},
): IdentityDirectory => {
  let batchUnavailable = false;
  const creation = options.creationAttempts === undefined ? {} : { attempts: options.creationAttempts };
  const target = options.target ?? {};
  /**
   * A creation (one user or a batch). Still refused 429 after the adapter's attempts, it is the adapter's
   * RATE_LIMITED with the provider's own last Retry-After (the adapter's says a minute): the import waits what
   * the provider said, not longer.
   */
  const createRequest = async (path: string, body: unknown, requestTarget: ProviderTarget) => {
    const seen: { retryAfter?: string } = {};
    const watching: typeof fetch = async (input, init) => {
      const response = await fetchImpl(input, init);
      const told = response.status === 429 ? response.headers.get('retry-after') : null;
      if (told && Number(told) > 0) seen.retryAfter = told;
      return response;
    };
    try {
      return await providerRequest(watching, path, { body, ...creation }, requestTarget);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'RATE_LIMITED' || !seen.retryAfter) throw error;
      throw new AppError('RATE_LIMITED', error.message, error.details, {
        ...error.headers,
        'Retry-After': seen.retryAfter,
      });
    }
  };
  const lookup = async (identifier: ParsedIdentifier): Promise<ProviderUserRef | undefined> => {
    const { path, body } = lookupOf(identifier);
    const response = await providerRequest(fetchImpl, path, { body }, target);
    if (response.status === 404) return undefined;
    if (!response.ok) throw await providerError(response, 'lookup');
    return userRef(response, 'lookup');
  };
  /** The provider user record of a did: its subject and embedded wallet. */
  const userOf = async (did: string): Promise<ProviderUserRef> => {
    const response = await providerRequest(fetchImpl, userPath(did), {}, target);
    if (!response.ok) throw await providerError(response, 'user read');
    return userRef(response, 'user read');
  };
  /** Create one user holding this account; an account already held names its holder (found by the lookup). */
  const create = async (identifier: ParsedIdentifier, account: LinkedAccountInput) => {
    const request: UserCreateParams = { linked_accounts: [account], wallets: [{ chain_type: 'solana' }] };
    const response = await createRequest('/v1/users', request, target);
    if (response.ok) return userRef(response, 'user creation');
    const refused = await providerError(response, 'user creation');
    // Created concurrently by another save: the account is now linked to that user.
    if (response.status >= 400 && response.status < 500) {
      const winner = await lookup(identifier);
      if (winner) return winner;
    }
    throw refused;
  };
  /** What one result of the batch import names: the created user, else the user holding the account. */
  const holderIn = async (
    identifier: ParsedIdentifier,
    result: z.infer<typeof batchResultSchema>['results'][number] | undefined,
  ): Promise<ImportResult> => {
    const did = result?.success ? result.id : result?.conflicting_did;
    if (did) return { ok: true, user: await userOf(did) };
    // A conflict the provider did not name the holder of: the account is held, so the lookup finds it.
    const found = result?.code === 101 ? await lookup(identifier) : undefined;
    if (found) return { ok: true, user: found };
    return { ok: false, error: result?.error ?? 'no result for this user' };
  };
  type Creatable = { identifier: ParsedIdentifier; account: LinkedAccountInput };
  /** The batch import's results by identifier key; undefined when the provider does not serve it there. */
  const batchImport = async (creatable: Creatable[]): Promise<Map<string, ImportResult> | undefined> => {
    const request = {
      users: creatable.map(({ account }) => ({
        linked_accounts: [account],
        wallets: [{ chain_type: 'solana' as const }],
      })),
    };
    const response = await createRequest('/v1/users/batch', request, {
      ...target,
      base: options.importBase ?? requireSetting('IDP_IMPORT_API_URL'),
    });
    if (BATCH_UNAVAILABLE.has(response.status)) {
      await response.body?.cancel();
      logger.warn('the identity provider does not serve the batch import: users are created one by one', {
        status: response.status,
      });
      return undefined;
    }
    if (!response.ok) throw await providerError(response, 'batch import');
    const { results } = batchResultSchema.parse(await response.json());
    const byKey = new Map<string, ImportResult>();
    await Promise.all(
      creatable.map(async ({ identifier }, index) =>
        byKey.set(
          identifier.key,
          await holderIn(
            identifier,
            results.find((r) => r.index === index),
          ),
        ),
      ),
    );
    return byKey;
  };
  /** Each user created alone, one after the other (a rate-limited refusal stops the batch: it is retried). */
  const singleImport = async (creatable: Creatable[]): Promise<Map<string, ImportResult>> => {
    const byKey = new Map<string, ImportResult>();
    for (const { identifier, account } of creatable) {
      try {
        byKey.set(identifier.key, { ok: true, user: await create(identifier, account) });
      } catch (error) {
        if (!(error instanceof ProviderApiError) || error.kind === 'rate_limited' || error.status >= 500)
          throw error;
        byKey.set(identifier.key, { ok: false, error: error.message });
      }
    }
    return byKey;
  };
  /**
   * Up to 20 users in one batch import (each with an embedded Solana wallet), or one by one where it is not
   * served; X handles are only looked up (see above). The records of the users it names are then read for
   * their embedded wallets.
   */
  const importBatch = async (identifiers: ParsedIdentifier[]): Promise<ImportResult[]> => {
    const creatable = identifiers.flatMap((identifier) => {
      const account = linkedAccountOf(identifier);
      return account ? [{ identifier, account }] : [];
    });
    let byKey = new Map<string, ImportResult>();
    if (creatable.length > 0) {
      const batched = batchUnavailable ? undefined : await batchImport(creatable);
      if (!batched) batchUnavailable = true;
      byKey = batched ?? (await singleImport(creatable));
    }
    return Promise.all(
      identifiers.map(
        async (identifier): Promise<ImportResult> =>
          byKey.get(identifier.key) ?? { ok: true, user: (await lookup(identifier)) ?? {} },
      ),
    );
  };
  return {
    findOrCreate: async (identifier) => {
      const found = await lookup(identifier);
      if (found) return found;
      const account = linkedAccountOf(identifier);
      if (!account) return {};
      return create(identifier, account);
    },
    importUsers: async (identifiers) => {
      const results: ImportResult[] = [];
      for (let i = 0; i < identifiers.length; i += IMPORT_BATCH_LIMIT)
        results.push(...(await importBatch(identifiers.slice(i, i + IMPORT_BATCH_LIMIT))));
      return results;
    },
    isKnownSubject: async (did) => {
      const response = await providerRequest(fetchImpl, userPath(did), {}, target);
      if (response.status === 404) return false;
      if (!response.ok) throw await providerError(response, 'user read');
      return true;
    },
  };
};

/** The provider's directory (locally the local IdP's, which serves the same API). */
export const configuredDirectory = (options: RemoteDirectoryOptions = {}): IdentityDirectory =>
  remoteDirectory(fetch, options);
