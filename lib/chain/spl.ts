// SPL Token-2022 game coins: keypairs, token-account addresses and the transaction plan of each launch step,
// built with @solana/kit and the official program clients (@solana-program/system, @solana-program/token with
// the Token-2022 program address for the instructions both programs share) plus ./token.ts for the
// Token-2022-only ones.
import { randomBytes } from 'node:crypto';
import {
  type Address,
  address,
  createAddressWithSeed,
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  getAddressEncoder,
  type KeyPairSigner,
  type TransactionSigner,
} from '@solana/kit';
import {
  getAllocateInstruction,
  getAllocateWithSeedInstruction,
  getAssignInstruction,
  getTransferSolInstruction,
  SYSTEM_PROGRAM_ADDRESS,
} from '@solana-program/system';
import {
  AuthorityType,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMintInstruction,
  getMintToCheckedInstruction,
  getSetAuthorityInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import bs58 from 'bs58';
import type { TransactionPlan } from './chain.js';
import type { AccountInfo } from './reader.js';
import {
  type CoinMetadata,
  coinMintSizes,
  initializeMetadataPointerInstruction,
  initializeTokenMetadataInstruction,
  memoInstruction,
  TOKEN_2022_PROGRAM_ADDRESS,
  updateTokenMetadataAuthorityInstruction,
} from './token.js';

export { type Address, address, type KeyPairSigner } from '@solana/kit';
export { type CoinMetadata, coinMintSizes, memoInstruction, TOKEN_2022_PROGRAM_ADDRESS } from './token.js';

/** Seed of the per-vault receipt account whose creation makes the initial buy executable only once. */
export const INITIAL_BUY_RECEIPT_SEED = 'arcadia-initial-buy';

const TOKEN_2022 = { programAddress: TOKEN_2022_PROGRAM_ADDRESS };

/** A fresh random keypair: its signer, and its 64-byte secret key (seed ‖ public key) for sealed storage. */
export const newKeypair = async (): Promise<{ signer: KeyPairSigner; secretKey: Uint8Array }> => {
  const seed = randomBytes(32);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secretKey = Buffer.concat([seed, getAddressEncoder().encode(signer.address) as Uint8Array]);
  seed.fill(0);
  return { signer, secretKey };
};

/** A signer from a 64-byte secret key (raw bytes or base58); throws when its halves do not match. */
export const keypairFromSecret = (secret: Uint8Array | string): Promise<KeyPairSigner> =>
  createKeyPairSignerFromBytes(typeof secret === 'string' ? bs58.decode(secret) : secret);

/** A signer for an account whose signature another party adds (an embedded wallet, through `cosign`). */
export const externalSigner = (owner: string): TransactionSigner => createNoopSigner(address(owner));

/** An owner's associated Token-2022 account for a coin. */
export const walletTokenAccount = async (mint: string, owner: string): Promise<Address> =>
  (
    await findAssociatedTokenPda({
      mint: address(mint),
      owner: address(owner),
      tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
    })
  )[0];

/** The vault's associated Token-2022 account for a coin. */
export const vaultTokenAccount = walletTokenAccount;

/** Bytes of data a used receipt holds: only an AllocateWithSeed signed by the receipt's base can write them. */
export const RECEIPT_SPACE = 1;

/**
 * The instructions that use a seeded receipt once: the payer funds its rent, then AllocateWithSeed (signed by the
 * base) gives it one byte of data. Allocation fails on an account that already holds data, so of all transactions
 * carrying them only one can land. Anybody can send lamports to the address (leaving a funded 0-byte System
 * account): that neither blocks these instructions, which work on a funded account where CreateAccountWithSeed
 * fails, nor passes for a used receipt (`receiptUsed`).
 */
export const useReceiptInstructions = (args: {
  payer: TransactionSigner;
  base: TransactionSigner;
  seed: string;
  receipt: Address;
  /** Rent-exempt minimum of RECEIPT_SPACE bytes. */
  rentLamports: bigint;
}) => [
  getTransferSolInstruction({ source: args.payer, destination: args.receipt, amount: args.rentLamports }),
  getAllocateWithSeedInstruction({
    newAccount: args.receipt,
    baseAccount: args.base,
    base: args.base.address,
    seed: args.seed,
    space: RECEIPT_SPACE,
    programAddress: SYSTEM_PROGRAM_ADDRESS,
  }),
];

/** Whether a seeded receipt was used: it holds data, which a stranger's transfer can never put there. */
export const receiptUsed = (account: AccountInfo | null): boolean =>
  account !== null && account.data.length > 0;

/** Address of a vault's initial-buy receipt (created with seed, owned by the System program). */
export const initialBuyReceipt = (vault: string): Promise<Address> =>
  createAddressWithSeed({
    baseAddress: address(vault),
    seed: INITIAL_BUY_RECEIPT_SEED,
    programAddress: SYSTEM_PROGRAM_ADDRESS,
  });

/**
 * Whether an account at a fresh keypair's address is still free to become a program account: absent, or a System
 * account without data that someone funded (anybody can send lamports to any address).
 */
export const isUnclaimedSystemAccount = (account: AccountInfo | null): boolean =>
  account === null || (account.owner === SYSTEM_PROGRAM_ADDRESS && account.data.length === 0);

/**
 * Step (a): create the Token-2022 mint with the metadata-pointer extension pointing at itself, initialise it
 * (authority = vault, no freeze authority) and write its token metadata. Signers: payer, mint, vault.
 *
 * The account is made with transfer + Allocate + Assign (what CreateAccount does) rather than CreateAccount, which
 * fails on an address that already holds lamports: a stranger's transfer to the mint address must not be able to
 * fail the launch. Allocate and Assign need the mint key's signature, so nobody else can take the address; the
 * payer transfers only the rent the address lacks (its balance can only grow until the mint key signs).
 */
export const buildCreateCoinMintTx = (args: {
  payer: TransactionSigner;
  mint: KeyPairSigner;
  vault: KeyPairSigner;
  decimals: number;
  metadata: CoinMetadata;
  /** Rent-exempt minimum for `coinMintSizes(metadata).total`. */
  lamports: bigint;
  /** Lamports the mint address already holds (0 for a new address). */
  existingLamports?: bigint;
}): TransactionPlan => {
  const mint = args.mint.address;
  const missing = args.lamports - (args.existingLamports ?? 0n);
  const rent =
    missing > 0n
      ? [getTransferSolInstruction({ source: args.payer, destination: mint, amount: missing })]
      : [];
  return {
    feePayer: args.payer.address,
    instructions: [
      ...rent,
      getAllocateInstruction({ newAccount: args.mint, space: coinMintSizes(args.metadata).space }),
      getAssignInstruction({ account: args.mint, programAddress: TOKEN_2022_PROGRAM_ADDRESS }),
      initializeMetadataPointerInstruction({ mint, authority: null, metadataAddress: mint }),
      getInitializeMintInstruction(
        { mint, decimals: args.decimals, mintAuthority: args.vault.address, freezeAuthority: null },
        TOKEN_2022,
      ),
      initializeTokenMetadataInstruction({
        mint,
        updateAuthority: args.vault.address,
        mintAuthority: args.vault,
        metadata: args.metadata,
      }),
    ],
  };
};

/**
 * Step (b): mint the whole supply into the vault's token account, then revoke the mint authority and the
 * metadata update authority in the same transaction, so minting can happen exactly once. Optionally funds the
 * vault's own rent-exempt minimum so any later lamport transfer into it succeeds. Signers: payer, vault.
 */
export const buildMintSupplyTx = async (args: {
  payer: TransactionSigner;
  mint: Address;
  vault: KeyPairSigner;
  supply: bigint;
  decimals: number;
  vaultTopUp: bigint;
}): Promise<TransactionPlan> => {
  const { mint, vault } = args;
  const vaultAta = await vaultTokenAccount(mint, vault.address);
  const topUp =
    args.vaultTopUp > 0n
      ? [
          getTransferSolInstruction({
            source: args.payer,
            destination: vault.address,
            amount: args.vaultTopUp,
          }),
        ]
      : [];
  return {
    feePayer: args.payer.address,
    instructions: [
      ...topUp,
      getCreateAssociatedTokenIdempotentInstruction({
        payer: args.payer,
        ata: vaultAta,
        owner: vault.address,
        mint,
        tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
      }),
      getMintToCheckedInstruction(
        { mint, token: vaultAta, mintAuthority: vault, amount: args.supply, decimals: args.decimals },
        TOKEN_2022,
      ),
      getSetAuthorityInstruction(
        { owned: mint, owner: vault, authorityType: AuthorityType.MintTokens, newAuthority: null },
        TOKEN_2022,
      ),
      updateTokenMetadataAuthorityInstruction({ mint, authority: vault, newAuthority: null }),
    ],
  };
};

/**
 * Step (c), the initial buy, atomically: `lamports` from buyer to vault, `tokens` from the vault's token
 * account to the buyer's (created idempotently), a memo marker, and the vault's receipt account — creating it
 * fails once it exists, so this transaction can succeed only once per vault. Signers: buyer, vault.
 */
export const buildInitialBuyTx = async (args: {
  buyer: TransactionSigner;
  mint: Address;
  vault: KeyPairSigner;
  lamports: bigint;
  tokens: bigint;
  decimals: number;
  receipt: Address;
  receiptLamports: bigint;
  memo: string;
}): Promise<TransactionPlan> => {
  const { buyer, mint, vault } = args;
  const [buyerAta, vaultAta] = await Promise.all([
    walletTokenAccount(mint, buyer.address),
    vaultTokenAccount(mint, vault.address),
  ]);
  return {
    feePayer: buyer.address,
    instructions: [
      getTransferSolInstruction({ source: buyer, destination: vault.address, amount: args.lamports }),
      ...useReceiptInstructions({
        payer: buyer,
        base: vault,
        seed: INITIAL_BUY_RECEIPT_SEED,
        receipt: args.receipt,
        rentLamports: args.receiptLamports,
      }),
      getCreateAssociatedTokenIdempotentInstruction({
        payer: buyer,
        ata: buyerAta,
        owner: buyer.address,
        mint,
        tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
      }),
      getTransferCheckedInstruction(
        {
          source: vaultAta,
          mint,
          destination: buyerAta,
          authority: vault,
          amount: args.tokens,
          decimals: args.decimals,
        },
        TOKEN_2022,
      ),
      memoInstruction(args.memo),
    ],
  };
};
