// Users' embedded wallets as transaction signers (docs/wallets.md). The identity provider (Privy) holds every user
// key and signs through its wallet API for the app's signer (a key quorum holding our authorization key), and
// only while the user's wallet carries that signer among its `additional_signers`; the local identity provider
// (scripts/idp) serves and enforces the same API, so this is the one code path (docs/wallets.md):
//
//   POST {IDP_WALLET_API_URL}/v1/wallets/{wallet_id}/rpc
//   Authorization: Basic base64(IDP_APP_ID:<app secret>)
//   privy-app-id: IDP_APP_ID
//   privy-request-expiry: <ms since epoch>
//   privy-authorization-signature: base64 DER P-256 ECDSA (the authorization key) over the canonical JSON of
//     {"version": 1, "method": "POST", "url", "body", "headers": {"privy-app-id", "privy-request-expiry"}}
//   {"method": "signTransaction", "params": {"transaction": "<base64 wire tx>", "encoding": "base64"}}
//   → 200 {"method": "signTransaction", "data": {"signed_transaction": "<base64 wire tx>", "encoding": "base64"}}
//
// The transaction is sent with the other signatures already in place (or zeroed); the answer must carry the
// same message with a valid signature of that address, or it is rejected.

import type { SolanaSignTransactionRpcInput } from '@privy-io/node/resources';
import {
  type Address,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  type SignatureBytes,
  type Transaction,
  address as toAddress,
  verifySignature,
} from '@solana/kit';
import * as z from 'zod/mini';
import { settings } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { type ProviderApiError, providerError, providerRequest } from './privy-api.js';

/** Signs transactions with a user's embedded wallet. */
export interface WalletSigner {
  /** The user's wallet address. */
  address(userId: string): Promise<Address>;
  /** Add the user's signature to `tx` (other signatures are kept) and return it. */
  signTransaction<T extends Transaction>(userId: string, tx: T): Promise<T>;
}

/** A user's embedded wallet as the identity provider reports it (the key stays with the provider). */
export interface StoredWallet {
  /** The provider's wallet id: its wallet API addresses a wallet by id, never by address. */
  id: string;
  address: string;
  /** Whether the wallet carries our signer among its `additional_signers` (the provider refuses to sign otherwise). */
  delegated: boolean;
}

export interface WalletLoadOptions {
  /** Ask the provider now instead of reusing a recent answer (before deciding to send a transaction). */
  fresh?: boolean;
}

/** Loads a user's wallet; null when the user has none. */
export type WalletLoader = (userId: string, options?: WalletLoadOptions) => Promise<StoredWallet | null>;

/** Why signing failed; `transient` (provider 429/5xx/timeout) sets the name `WalletSignerTransientError`. */
export class WalletSignerError extends Error {
  override readonly name: 'WalletSignerError' | 'WalletSignerTransientError';

  constructor(
    message: string,
    readonly transient = false,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = transient ? 'WalletSignerTransientError' : 'WalletSignerError';
  }
}

const requireWallet = async (load: WalletLoader, userId: string): Promise<StoredWallet> => {
  const wallet = await load(userId);
  if (!wallet) throw new WalletSignerError(`User ${userId} has no embedded wallet`);
  return wallet;
};

const sameBytes = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  a.length === b.length && Buffer.from(a as Uint8Array).equals(Buffer.from(b as Uint8Array));

/** The signer must keep the message and add a valid signature for `address`; returns that signature. */
const walletSignature = async (original: Transaction, signed: Transaction, address: Address) => {
  if (!sameBytes(signed.messageBytes, original.messageBytes))
    throw new WalletSignerError('Wallet provider changed the transaction message');
  const signature = signed.signatures[address];
  if (!signature) throw new WalletSignerError('Wallet provider returned no signature for the wallet');
  if (!(await verifySignature(await getPublicKeyFromAddress(address), signature, original.messageBytes)))
    throw new WalletSignerError('Wallet provider returned an invalid signature');
  return signature;
};

/** `tx` with one more signature (kit transactions are immutable). */
const withSignature = <T extends Transaction>(tx: T, address: Address, signature: SignatureBytes): T =>
  Object.freeze({ ...tx, signatures: Object.freeze({ ...tx.signatures, [address]: signature }) });

export interface IdpWalletSignerOptions {
  apiUrl: string;
  appId: string;
  /** Default: the credentials secret's (privy-api.ts `idpCredentials`). */
  appSecret?: string;
  /** The app's authorization key (base64 PKCS8 P-256), which signs every wallet request; default as above. */
  authorizationKey?: string;
  /** Default 10 000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const signResponseSchema = z.object({
  data: z.object({ signed_transaction: z.string().check(z.minLength(1)) }),
});

/**
 * Why the provider refused to sign, told apart for the operator by its documented code (privy-api.ts
 * PROVIDER_ERROR_CODES): no authorization signature it accepts for this wallet (the user removed our signer, or
 * the authorization key is not the signer's), a policy on the signer denying this transaction, our app
 * credentials; a 429 or 5xx is transient.
 */
const refusal = (error: ProviderApiError): WalletSignerError => {
  switch (error.kind) {
    case 'signature':
      return new WalletSignerError(
        `The provider accepted no authorization signature for this wallet (the platform's signer was removed from it, or the authorization key is not the signer's): ${error.message}`,
      );
    case 'policy':
      return new WalletSignerError(`Wallet provider policy denied the transaction: ${error.message}`);
    case 'credentials':
      return new WalletSignerError(`Wallet provider refused our credentials: ${error.message}`);
    default:
      return new WalletSignerError(error.message, error.status === 429 || error.status >= 500);
  }
};

/** Ask the identity provider's wallet API to sign (request shape in the file header). */
export const makeIdpWalletSigner = (load: WalletLoader, options: IdpWalletSignerOptions): WalletSigner => {
  const fetchImpl = options.fetch ?? fetch;
  const target = {
    base: options.apiUrl,
    appId: options.appId,
    ...(options.appSecret === undefined ? {} : { appSecret: options.appSecret }),
    ...(options.authorizationKey === undefined ? {} : { authorizationKey: options.authorizationKey }),
    timeoutMs: options.timeoutMs ?? 10_000,
  };
  return {
    address: async (userId) => toAddress((await requireWallet(load, userId)).address),
    signTransaction: async (userId, tx) => {
      const wallet = await requireWallet(load, userId);
      const address = toAddress(wallet.address);
      const body: SolanaSignTransactionRpcInput = {
        method: 'signTransaction',
        params: { transaction: getBase64EncodedWireTransaction(tx), encoding: 'base64' },
      };
      let response: Response;
      try {
        // One attempt: a 429 is transient, and the caller's workflow retries the whole step.
        response = await providerRequest(
          fetchImpl,
          `/v1/wallets/${encodeURIComponent(wallet.id)}/rpc`,
          { body, authorize: true, attempts: 1 },
          target,
        );
      } catch (error) {
        if (error instanceof AppError)
          throw new WalletSignerError('Wallet provider answered 429', true, { cause: error });
        throw new WalletSignerError(`Wallet provider unreachable: ${(error as Error).message}`, true, {
          cause: error,
        });
      }
      if (!response.ok) throw refusal(await providerError(response, 'signing'));
      const parsed = signResponseSchema.safeParse(await response.json().catch(() => null));
      if (!parsed.success) throw new WalletSignerError('Wallet provider answered an unexpected body');
      let signed: Transaction;
      try {
        signed = getTransactionDecoder().decode(Buffer.from(parsed.data.data.signed_transaction, 'base64'));
      } catch (error) {
        throw new WalletSignerError('Wallet provider returned an undecodable transaction', false, {
          cause: error,
        });
      }
      // Keep the caller's other signatures; take only the wallet's signature from the answer.
      return withSignature(tx, address, await walletSignature(tx, signed, address));
    },
  };
};

/**
 * The signer of the configured identity provider (IDP_WALLET_API_URL, IDP_APP_ID; the app secret and the
 * authorization key from the credentials secret).
 */
export const walletSignerFromConfig = (load: WalletLoader): WalletSigner => {
  const config = settings();
  return makeIdpWalletSigner(load, { apiUrl: config.IDP_WALLET_API_URL, appId: config.IDP_APP_ID });
};
