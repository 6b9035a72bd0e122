// The local identity provider's users and embedded wallets (docs/wallets.md): the provider, not the API, creates each
// user's Solana wallet and holds its key; the app may sign with it only while the wallet carries the app's
// signer (a key quorum) among its `additional_signers`. It serves the same server API as the production provider
// (Privy; docs/wallets.md), so the API has one code path, and enforces the same contract (server.ts checks the
// headers and the authorization signature):
//
//   POST /v1/users  {"linked_accounts": [<account>], "wallets": [{"chain_type": "solana"}]} → the user; a linked
//        account another user holds is refused (400 linked_account_in_use); rate-limited like the real one (429)
//   POST /api/v1/users/batch (the auth host's API, server.ts)  {"users": [<as POST /v1/users>, ... up to 20]}
//        → {"results": [{"action": "create",
//        "index", "success": true, "id"} | {..., "success": false, "code", "error", "conflicting_did"?}]}; each
//        user counts against the creation rate limit
//   POST /v1/users/email/address {"address"}, /v1/users/wallet/address {"address"},
//        /v1/users/twitter/username {"username"}, /v1/users/twitter/subject {"subject"} → the user (404: none)
//   GET  /v1/users/{id}     → {"id", "created_at", "linked_accounts": [..., <embedded wallet with its id>]}
//   GET  /v1/wallets/{id}   → {"id", "address", "chain_type", "additional_signers": [{"signer_id"}], ...}
//   POST /v1/wallets/{id}/rpc  {"method": "signTransaction", "params": {"transaction", "encoding": "base64"}}
//        → {"method": "signTransaction", "data": {"signed_transaction", "encoding": "base64"}}
//
// Every `did:local:<name>` is a user of this provider (any name can sign in locally): its record, with an
// embedded wallet carrying the local app's signer, is created when first used.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createKeyPairFromBytes,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  partiallySignTransaction,
  type Transaction,
} from '@solana/kit';
import bs58 from 'bs58';
import * as z from 'zod/mini';

export const LOCAL_APP_ID = 'arcadia-local-app';
export const LOCAL_APP_SECRET = 'arcadia-local-app-secret';
/** The local app's signer (key quorum) and its authorization key: for local data only, never a real app's. */
export const LOCAL_SIGNER_ID = 'arcadia-local-signer';
export const LOCAL_AUTHORIZATION_KEY =
  'wallet-auth:MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/1zHO6539mZGXQ3y+2cSlutGumJ6gco/WS+lVW7YcTShRANCAATsts5Xohb3Py429wGMPkFKojs5lRUKHhvLVvQATj+B8GhL3rJX3APsYsbet6HMbGNr6UOOgN9ZZ9I5ZGOlcjQp';
/** The public half of LOCAL_AUTHORIZATION_KEY (base64 SPKI), as a key quorum holds it. */
export const LOCAL_AUTHORIZATION_PUBLIC_KEY =
  'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE7LbOV6IW9z8uNvcBjD5BSqI7OZUVCh4by1b0AE4/gfBoS96yV9wD7GLG3rehzGxja+lDjoDfWWfSOWRjpXI0KQ==';

const USERS_FILE = 'idp-users.json';
const LOCAL_DID = /^did:local:[a-z0-9_-]{1,64}$/;

const LinkedAccount = z.union([
  z.object({ type: z.literal('wallet'), chain_type: z.enum(['solana', 'ethereum']), address: z.string() }),
  z.object({ type: z.literal('email'), address: z.string() }),
  z.object({
    type: z.literal('twitter_oauth'),
    subject: z.string().check(z.regex(/^[0-9]{1,20}$/, 'must be the numeric X user id')),
    username: z.string(),
    name: z.string(),
  }),
]);
type LinkedAccount = z.infer<typeof LinkedAccount>;

export const CreateUserRequest = z.object({
  linked_accounts: z.array(LinkedAccount).check(z.minLength(1), z.maxLength(5)),
  wallets: z.optional(
    z
      .array(
        z.object({
          chain_type: z.literal('solana'),
          additional_signers: z.optional(z.array(z.object({ signer_id: z.string() }))),
        }),
      )
      .check(z.maxLength(1)),
  ),
});

/**
 * POST /api/v1/users/batch: up to 20 users a request, each created as POST /v1/users would create it. The answer
 * is 200 with one result per user, by index; a user whose account another user holds is not created and its
 * result names that user (`conflicting_did`), as the provider does.
 */
export const BATCH_IMPORT_LIMIT = 20;
export const BatchCreateUsersRequest = z.object({
  users: z.array(CreateUserRequest).check(z.minLength(1), z.maxLength(BATCH_IMPORT_LIMIT)),
});
/** The provider's code for an account conflict in a batch result. */
export const ACCOUNT_CONFLICT_CODE = 101;

const Address = z.object({ address: z.string().check(z.minLength(1), z.maxLength(320)) });
/** The lookups: path → the body it takes and the linked account it describes. */
export const LOOKUPS: Record<string, { schema: z.ZodMiniType; key: (body: never) => string }> = {
  '/v1/users/email/address': {
    schema: Address,
    key: (b: { address: string }) => `email:${b.address.toLowerCase()}`,
  },
  '/v1/users/wallet/address': { schema: Address, key: (b: { address: string }) => `wallet:${b.address}` },
  '/v1/users/twitter/username': {
    schema: z.object({ username: z.string().check(z.minLength(1), z.maxLength(64)) }),
    key: (b: { username: string }) => `x-name:${b.username.toLowerCase()}`,
  },
  '/v1/users/twitter/subject': {
    schema: z.object({ subject: z.string().check(z.minLength(1), z.maxLength(20)) }),
    key: (b: { subject: string }) => `x:${b.subject}`,
  },
};

export const RpcRequest = z.object({
  method: z.literal('signTransaction'),
  params: z.object({ transaction: z.string().check(z.minLength(1)), encoding: z.literal('base64') }),
});

const StoredWallet = z.object({
  /** The wallet API's key for it (the address is not accepted there). */
  id: z.string(),
  address: z.string(),
  /** 64-byte Solana secret key (seed ‖ public key), base64: held by the provider only. */
  secretKey: z.string(),
  /** Key quorum ids allowed to sign besides the user (`additional_signers`). */
  signers: z._default(z.array(z.string()), []),
  signRequests: z._default(z.int(), 0),
  signed: z._default(z.int(), 0),
});
type StoredWallet = z.infer<typeof StoredWallet>;

const StoredUser = z.object({
  id: z.string(),
  createdAt: z.string(),
  linkedAccounts: z.array(LinkedAccount),
  wallet: z.optional(StoredWallet),
  /** Set at the first local sign-in, when the app's client adds the app's signer (unless refused). */
  signedInAt: z.optional(z.string()),
});
type StoredUser = z.infer<typeof StoredUser>;

/** A wallet as the local endpoints show it: never its key. */
export interface WalletView {
  id: string;
  address: string;
  subject: string;
  /** Whether the wallet carries the app's signer. */
  delegated: boolean;
  /** Signing requests received for this wallet (refused ones included). */
  signRequests: number;
  /** Transactions signed. */
  signed: number;
}

/** Why the provider refused a request: an HTTP status, a code and the provider's message. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Wallet ids look like the provider's: 24 lowercase base-36 characters. */
const newWalletId = () =>
  [...randomBytes(24)].map((b) => '0123456789abcdefghijklmnopqrstuvwxyz'[b % 36]).join('');

const newWallet = (signers: string[]): StoredWallet => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
  return {
    id: newWalletId(),
    address: bs58.encode(pub),
    secretKey: Buffer.concat([seed, pub]).toString('base64'),
    signers,
    signRequests: 0,
    signed: 0,
  };
};

/** The keys a linked account is found by (an X account: by its subject and by its handle). */
const accountKeys = (account: LinkedAccount): string[] =>
  account.type === 'twitter_oauth'
    ? [`x:${account.subject}`, `x-name:${account.username.toLowerCase()}`]
    : account.type === 'email'
      ? [`email:${account.address.toLowerCase()}`]
      : [`wallet:${account.address}`];

/**
 * The subject a created user gets: derived from its first account, so the same wallet or email is the same
 * user across restarts (the API's identifier keys: `sol:<address>`, `email:<address>`, `x:<id>`).
 */
export const importedSubject = (identifierKey: string) =>
  `did:local:u-${createHash('sha256').update(identifierKey).digest('hex').slice(0, 32)}`;

const identifierKeyOf = (account: LinkedAccount) =>
  account.type === 'twitter_oauth'
    ? `x:${account.username.toLowerCase()}`
    : account.type === 'email'
      ? `email:${account.address.toLowerCase()}`
      : `${account.chain_type === 'solana' ? 'sol' : 'eth'}:${account.address}`;

/** The users and wallets of the local provider, kept in `<dataDir>/idp-users.json` when a directory is given. */
/**
 * `signerPolicyPrograms`: the programs a policy on the app's signer allows (docs/wallets.md, "Signer policy
 * template"); a transaction invoking any other is refused 403 `policy_violation`. Absent: no policy.
 */
export const createWalletStore = (
  dataDir?: string,
  appSignerId: string = LOCAL_SIGNER_ID,
  signerPolicyPrograms?: readonly string[],
) => {
  const file = dataDir ? join(dataDir, USERS_FILE) : undefined;
  const users = new Map<string, StoredUser>();
  if (file) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Users kept by an older version of this file (no wallet ids, no X subjects) are dropped, not guessed.
    if (text !== undefined)
      for (const item of JSON.parse(text) as unknown[]) {
        const user = StoredUser.safeParse(item);
        if (user.success) users.set(user.data.id, user.data);
      }
  }
  const save = () => {
    if (!file || !dataDir) return;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify([...users.values()], null, 2)}\n`, { mode: 0o600 });
  };
  const byAddress = () =>
    new Map([...users.values()].flatMap((u) => (u.wallet ? [[u.wallet.address, u]] : [])));
  const byWalletId = (id: string) => [...users.values()].find((u) => u.wallet?.id === id);
  /** The user holding a lookup key: linked to that account, or, for a wallet, whose embedded wallet it is. */
  const holderOf = (key: string): StoredUser | undefined =>
    [...users.values()].find(
      (u) =>
        u.linkedAccounts.some((a) => accountKeys(a).includes(key)) ||
        (key.startsWith('wallet:') && u.wallet?.address === key.slice('wallet:'.length)),
    );

  const create = (id: string, accounts: LinkedAccount[], wallet: StoredWallet | undefined): StoredUser => {
    const user: StoredUser = {
      id,
      createdAt: new Date().toISOString(),
      linkedAccounts: accounts,
      ...(wallet ? { wallet } : {}),
    };
    users.set(id, user);
    save();
    return user;
  };

  /** A user by did; a `did:local:<name>` is created (with a wallet unless `withWallet` is false) on first use. */
  const find = (did: string, withWallet = true): StoredUser | undefined =>
    users.get(did) ??
    (LOCAL_DID.test(did) ? create(did, [], withWallet ? newWallet([appSignerId]) : undefined) : undefined);

  const walletAccount = (wallet: StoredWallet) => ({
    id: wallet.id,
    type: 'wallet',
    chain_type: 'solana',
    chain_id: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    address: wallet.address,
    public_key: wallet.address,
    wallet_client: 'privy',
    wallet_client_type: 'privy',
    connector_type: 'embedded',
    recovery_method: 'privy-v2',
    wallet_index: 0,
    // The legacy flag the provider still shows: the platform reads `additional_signers` (GET /v1/wallets/{id}).
    delegated: false,
    imported: false,
    verified_at: 0,
    first_verified_at: null,
    latest_verified_at: null,
  });

  /** A user as GET /v1/users/{id} answers it (the official client's `User`). */
  const view = (user: StoredUser) => ({
    id: user.id,
    created_at: Math.floor(Date.parse(user.createdAt) / 1000),
    has_accepted_terms: false,
    is_guest: false,
    mfa_methods: [],
    linked_accounts: [...user.linkedAccounts, ...(user.wallet ? [walletAccount(user.wallet)] : [])],
  });

  const walletView = (user: StoredUser, wallet: StoredWallet): WalletView => ({
    id: wallet.id,
    address: wallet.address,
    subject: user.id,
    delegated: wallet.signers.includes(appSignerId),
    signRequests: wallet.signRequests,
    signed: wallet.signed,
  });

  const setSigner = (wallet: StoredWallet, granted: boolean) => {
    wallet.signers = wallet.signers.filter((s) => s !== appSignerId);
    if (granted) wallet.signers.push(appSignerId);
  };

  /**
   * Create a user (POST /v1/users). A linked account another user already holds is refused, as the provider
   * does, so two concurrent creations of the same account yield one user (the loser looks it up).
   */
  const createUser = (request: z.infer<typeof CreateUserRequest>) => {
    const [first] = request.linked_accounts;
    if (!first) throw new ProviderError(400, 'invalid_data', 'linked_accounts is empty');
    for (const account of request.linked_accounts)
      for (const key of accountKeys(account))
        if (holderOf(key))
          throw new ProviderError(
            400,
            'linked_account_in_use',
            'Linked account already belongs to another user',
          );
    const wallets = request.wallets ?? [];
    const wallet = wallets[0]
      ? newWallet((wallets[0].additional_signers ?? []).map((s) => s.signer_id))
      : undefined;
    return view(create(importedSubject(identifierKeyOf(first)), request.linked_accounts, wallet));
  };

  return {
    find,
    view,
    createUser,
    /**
     * Create a batch of users (POST /api/v1/users/batch): each independently, a conflict answered with the holder's
     * did instead of the user.
     */
    createUsers(requests: z.infer<typeof CreateUserRequest>[]) {
      return requests.map((request, index) => {
        const holder = request.linked_accounts
          .flatMap(accountKeys)
          .map(holderOf)
          .find((u) => u !== undefined);
        if (holder)
          return {
            action: 'create',
            index,
            success: false,
            code: ACCOUNT_CONFLICT_CODE,
            error: 'Account conflict: a linked account already belongs to another user',
            conflicting_did: holder.id,
          };
        return { action: 'create', index, success: true, id: createUser(request).id };
      });
    },
    /** The user a lookup finds (POST /v1/users/<kind>/<field>); 404 when none. */
    lookup(key: string) {
      const user = holderOf(key);
      if (!user) throw new ProviderError(404, 'not_found', 'User not found');
      return view(user);
    },
    /** A wallet record (GET /v1/wallets/{id}, the official client's `Wallet`); 404 when none. */
    walletRecord(id: string) {
      const wallet = byWalletId(id)?.wallet;
      if (!wallet) throw new ProviderError(404, 'not_found', 'Wallet not found');
      return {
        id: wallet.id,
        address: wallet.address,
        chain_type: 'solana',
        additional_signers: wallet.signers.map((signer_id) => ({ signer_id, override_policy_ids: [] })),
        owner_id: null,
        policy_ids: [],
        created_at: 0,
        exported_at: null,
        imported_at: null,
      };
    },
    /**
     * The user signs in (the local /token): exists from now on. At the first sign-in the app's client adds the
     * app's signer to the wallet (the user delegates signing to the app) unless `delegation` is false; `delegation`
     * grants or revokes it at any sign-in.
     */
    signIn(did: string, options: { delegation?: boolean | undefined; embeddedWallet?: boolean | undefined }) {
      const user = find(did, options.embeddedWallet ?? true);
      if (!user) throw new ProviderError(404, 'not_found', `No user ${did}`);
      const grant = options.delegation ?? (user.signedInAt === undefined ? true : undefined);
      if (grant !== undefined && user.wallet) setSigner(user.wallet, grant);
      user.signedInAt ??= new Date().toISOString();
      save();
      return {
        walletAddress: user.wallet?.address ?? null,
        walletId: user.wallet?.id ?? null,
        delegated: user.wallet?.signers.includes(appSignerId) ?? false,
      };
    },
    /** Add (true) or remove the app's signer on a user's embedded wallet, as the user would in the app. */
    setDelegation(did: string, delegated: boolean) {
      const user = find(did);
      if (!user?.wallet) throw new ProviderError(404, 'not_found', `${did} has no embedded wallet`);
      setSigner(user.wallet, delegated);
      save();
      return walletView(user, user.wallet);
    },
    /** Every embedded wallet address. */
    addresses: () => [...byAddress().keys()],
    /** A wallet's signer flag and request counters (never its key). */
    wallet(address: string): WalletView | undefined {
      const user = byAddress().get(address);
      return user?.wallet ? walletView(user, user.wallet) : undefined;
    },
    /**
     * Sign a wire transaction (POST /v1/wallets/{id}/rpc) for a request whose authorization signature server.ts
     * verified as made by `signerIds`' keys: refused unless one of them is among the wallet's additional signers.
     */
    async signTransaction(walletId: string, base64Transaction: string, signerIds: string[]): Promise<string> {
      const wallet = byWalletId(walletId)?.wallet;
      if (!wallet) throw new ProviderError(404, 'not_found', 'Wallet not found');
      wallet.signRequests++;
      save();
      if (!signerIds.some((id) => wallet.signers.includes(id)))
        // The provider counts only the signatures of the wallet's owners and signers: none is correct here.
        throw new ProviderError(
          401,
          'zero_correct_authorization_signatures',
          'No valid authorization signatures were provided: the signing key quorum is not a signer of this wallet',
        );
      let tx: Transaction;
      try {
        tx = getTransactionDecoder().decode(Buffer.from(base64Transaction, 'base64'));
      } catch {
        throw new ProviderError(400, 'invalid_data', 'transaction is not a base64 wire transaction');
      }
      if (!(wallet.address in tx.signatures))
        throw new ProviderError(
          400,
          'invalid_data',
          `The transaction does not need ${wallet.address}'s signature`,
        );
      if (signerPolicyPrograms) {
        const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
        // Programs are always static accounts (never loaded from a lookup table).
        const indices =
          'instructions' in message
            ? message.instructions.map((ix) => ix.programAddressIndex)
            : message.instructionHeaders.map((ix) => ix.programAccountIndex);
        const denied = indices
          .map((index) => String(message.staticAccounts[index]))
          .find((program) => !signerPolicyPrograms.includes(program));
        if (denied)
          throw new ProviderError(403, 'policy_violation', `The signer's policy denies program ${denied}`);
      }
      const keyPair = await createKeyPairFromBytes(Buffer.from(wallet.secretKey, 'base64'));
      const signed = await partiallySignTransaction([keyPair], tx);
      wallet.signed++;
      save();
      return getBase64EncodedWireTransaction(signed);
    },
  };
};

export type WalletStore = ReturnType<typeof createWalletStore>;
