// The local identity provider's users and embedded wallets (DESIGN §5): the provider, not the API, creates each
// user's Solana wallet and holds its key; the app may sign with it only while the user has delegation enabled.
// It serves the same REST API as the production provider (docs/wallets.md), so the API has one code path:
//
//   POST /v1/users/import   {"linked_accounts": [<account>], "create_embedded_wallet": true} → the user (upsert)
//   POST /v1/users/wallet/address  {"address"} → the user holding that wallet, linked or embedded (404: none)
//   GET  /v1/users/{did}    → the user: {"id", "created_at", "linked_accounts": [..., <embedded wallet>]}
//   POST /v1/wallets/{address}/rpc  {"method": "signTransaction", "params": {"transaction", "encoding"}}
//        → {"data": {"signed_transaction": "<base64>", "encoding": "base64"}}; 403 when delegation is off
//
// All of them need HTTP Basic auth with the app's id and secret. Every `did:local:<name>` is a user of this
// provider (any name can sign in locally): its record, with an embedded wallet, is created when first used.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createKeyPairFromBytes,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Transaction,
} from '@solana/kit';
import bs58 from 'bs58';
import * as z from 'zod/mini';

export const LOCAL_APP_ID = 'arcadia-local-app';
export const LOCAL_APP_SECRET = 'arcadia-local-app-secret';

const USERS_FILE = 'idp-users.json';
const LOCAL_DID = /^did:local:[a-z0-9_-]{1,64}$/;

const LinkedAccount = z.union([
  z.object({ type: z.literal('wallet'), chain_type: z.enum(['solana', 'ethereum']), address: z.string() }),
  z.object({ type: z.literal('email'), address: z.string() }),
  z.object({ type: z.literal('twitter_oauth'), username: z.string() }),
]);
type LinkedAccount = z.infer<typeof LinkedAccount>;

export const ImportRequest = z.object({
  linked_accounts: z.array(LinkedAccount).check(z.minLength(1), z.maxLength(1)),
  create_embedded_wallet: z._default(z.boolean(), false),
});

export const WalletAddressRequest = z.object({ address: z.string().check(z.minLength(1), z.maxLength(64)) });

export const RpcRequest = z.object({
  method: z.literal('signTransaction'),
  params: z.object({ transaction: z.string().check(z.minLength(1)), encoding: z.literal('base64') }),
});

const StoredWallet = z.object({
  address: z.string(),
  /** 64-byte Solana secret key (seed ‖ public key), base64: held by the provider only. */
  secretKey: z.string(),
  delegated: z.boolean(),
  signRequests: z._default(z.int(), 0),
  signed: z._default(z.int(), 0),
});
type StoredWallet = z.infer<typeof StoredWallet>;

const StoredUser = z.object({
  id: z.string(),
  createdAt: z.string(),
  linkedAccounts: z.array(LinkedAccount),
  wallet: z.optional(StoredWallet),
});
type StoredUser = z.infer<typeof StoredUser>;

/** A wallet as the local endpoints show it: never its key. */
export interface WalletView {
  address: string;
  subject: string;
  delegated: boolean;
  /** Signing requests received for this wallet (refused ones included). */
  signRequests: number;
  /** Transactions signed. */
  signed: number;
}

/** Why the provider refused a request: an HTTP status and a code. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const newWallet = (delegated: boolean): StoredWallet => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
  return {
    address: bs58.encode(pub),
    secretKey: Buffer.concat([seed, pub]).toString('base64'),
    delegated,
    signRequests: 0,
    signed: 0,
  };
};

const accountKey = (account: LinkedAccount) =>
  account.type === 'twitter_oauth'
    ? `x:${account.username.toLowerCase()}`
    : account.type === 'email'
      ? `email:${account.address.toLowerCase()}`
      : `${account.chain_type}:${account.address}`;

/**
 * The subject an imported account gets: derived from the account, so the same wallet, email or handle is the
 * same user across restarts (the API's identifier keys: `sol:<address>`, `email:<address>`, `x:<handle>`).
 */
export const importedSubject = (identifierKey: string) =>
  `did:local:u-${createHash('sha256').update(identifierKey).digest('hex').slice(0, 32)}`;

const identifierKeyOf = (account: LinkedAccount) => {
  const key = accountKey(account);
  return key.startsWith('solana:') ? `sol:${key.slice('solana:'.length)}` : key.replace(/^ethereum:/, 'eth:');
};

/** The users and wallets of the local provider, kept in `<dataDir>/idp-users.json` when a directory is given. */
export const createWalletStore = (dataDir?: string) => {
  const file = dataDir ? join(dataDir, USERS_FILE) : undefined;
  const users = new Map<string, StoredUser>();
  if (file) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined)
      for (const user of z.array(StoredUser).parse(JSON.parse(text))) users.set(user.id, user);
  }
  const save = () => {
    if (!file || !dataDir) return;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify([...users.values()], null, 2)}\n`, { mode: 0o600 });
  };
  const byAddress = () =>
    new Map([...users.values()].flatMap((u) => (u.wallet ? [[u.wallet.address, u]] : [])));
  /**
   * The user holding an account: linked to it, or, for a wallet, whose embedded wallet it is (as the production
   * provider's lookup by address answers: a user's own embedded wallet names that user).
   */
  const holderOf = (account: LinkedAccount): StoredUser | undefined => {
    const key = accountKey(account);
    return [...users.values()].find(
      (u) =>
        u.linkedAccounts.some((a) => accountKey(a) === key) ||
        (account.type === 'wallet' && u.wallet?.address === account.address),
    );
  };

  const create = (id: string, accounts: LinkedAccount[], withWallet: boolean): StoredUser => {
    const user: StoredUser = {
      id,
      createdAt: new Date().toISOString(),
      linkedAccounts: accounts,
      ...(withWallet ? { wallet: newWallet(true) } : {}),
    };
    users.set(id, user);
    save();
    return user;
  };

  /** A user by did; a `did:local:<name>` is created (with a wallet unless `withWallet` is false) on first use. */
  const find = (did: string, withWallet = true): StoredUser | undefined =>
    users.get(did) ?? (LOCAL_DID.test(did) ? create(did, [], withWallet) : undefined);

  const view = (user: StoredUser) => ({
    id: user.id,
    created_at: Math.floor(Date.parse(user.createdAt) / 1000),
    linked_accounts: [
      ...user.linkedAccounts,
      ...(user.wallet
        ? [
            {
              type: 'wallet',
              chain_type: 'solana',
              address: user.wallet.address,
              wallet_client_type: 'privy',
              connector_type: 'embedded',
              delegated: user.wallet.delegated,
              imported: false,
            },
          ]
        : []),
    ],
  });

  const walletView = (user: StoredUser, wallet: StoredWallet): WalletView => ({
    address: wallet.address,
    subject: user.id,
    delegated: wallet.delegated,
    signRequests: wallet.signRequests,
    signed: wallet.signed,
  });

  return {
    find,
    view,
    /** Upsert the user holding an account (POST /v1/users/import). */
    importUser(request: z.infer<typeof ImportRequest>) {
      const [account] = request.linked_accounts;
      if (!account) throw new ProviderError(400, 'VALIDATION_ERROR', 'linked_accounts is empty');
      const key = accountKey(account);
      const existing = holderOf(account);
      const user =
        existing ??
        users.get(importedSubject(identifierKeyOf(account))) ??
        create(importedSubject(identifierKeyOf(account)), [account], request.create_embedded_wallet);
      const embedded = account.type === 'wallet' && user.wallet?.address === account.address;
      if (!embedded && !user.linkedAccounts.some((a) => accountKey(a) === key))
        user.linkedAccounts.push(account);
      if (request.create_embedded_wallet && !user.wallet) user.wallet = newWallet(true);
      save();
      return view(user);
    },
    /** The user holding a wallet address, linked or embedded (POST /v1/users/wallet/address); 404 when none. */
    walletHolder(address: string) {
      const user =
        holderOf({ type: 'wallet', chain_type: 'solana', address }) ??
        holderOf({ type: 'wallet', chain_type: 'ethereum', address });
      if (!user) throw new ProviderError(404, 'NOT_FOUND', `No user holds wallet ${address}`);
      return view(user);
    },
    /** The user signs in (the local /token): exists from now on; `delegation` grants or revokes it. */
    signIn(did: string, options: { delegation?: boolean | undefined; embeddedWallet?: boolean | undefined }) {
      const user = find(did, options.embeddedWallet ?? true);
      if (!user) throw new ProviderError(404, 'NOT_FOUND', `No user ${did}`);
      if (options.delegation !== undefined && user.wallet) {
        user.wallet.delegated = options.delegation;
        save();
      }
      return { walletAddress: user.wallet?.address ?? null, delegated: user.wallet?.delegated ?? false };
    },
    /** Grant or revoke the app's delegated signing for a user's embedded wallet. */
    setDelegation(did: string, delegated: boolean) {
      const user = find(did);
      if (!user?.wallet) throw new ProviderError(404, 'NOT_FOUND', `${did} has no embedded wallet`);
      user.wallet.delegated = delegated;
      save();
      return walletView(user, user.wallet);
    },
    /** Every embedded wallet address. */
    addresses: () => [...byAddress().keys()],
    /** A wallet's delegation flag and request counters (never its key). */
    wallet(address: string): WalletView | undefined {
      const user = byAddress().get(address);
      return user?.wallet ? walletView(user, user.wallet) : undefined;
    },
    /** Sign a wire transaction with a delegated wallet (POST /v1/wallets/{address}/rpc). */
    async signTransaction(address: string, base64Transaction: string): Promise<string> {
      const user = byAddress().get(address);
      const wallet = user?.wallet;
      if (!wallet) throw new ProviderError(404, 'NOT_FOUND', `No embedded wallet ${address}`);
      wallet.signRequests++;
      save();
      if (!wallet.delegated)
        throw new ProviderError(403, 'WALLET_NOT_DELEGATED', `The user has not delegated ${address}`);
      let tx: Transaction;
      try {
        tx = getTransactionDecoder().decode(Buffer.from(base64Transaction, 'base64'));
      } catch {
        throw new ProviderError(400, 'VALIDATION_ERROR', 'transaction is not a base64 wire transaction');
      }
      if (!(address in tx.signatures))
        throw new ProviderError(
          400,
          'VALIDATION_ERROR',
          `The transaction does not need ${address}'s signature`,
        );
      const keyPair = await createKeyPairFromBytes(Buffer.from(wallet.secretKey, 'base64'));
      const signed = await partiallySignTransaction([keyPair], tx);
      wallet.signed++;
      save();
      return getBase64EncodedWireTransaction(signed);
    },
  };
};

export type WalletStore = ReturnType<typeof createWalletStore>;
