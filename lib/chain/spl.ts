// SPL Token-2022 helpers for game coins: transaction builders for each launch step and the token-metadata
// interface instructions. @solana/spl-token 0.4 does not re-export the metadata instruction builders (they live
// in @solana/spl-token-metadata, not a direct dependency), so the two used here are encoded by hand from the
// interface spec: 8-byte discriminator = sha256("spl_token_metadata_interface:<name>")[..8], then borsh fields.
import {
  AuthorityType,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMintInstruction,
  createMintToCheckedInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  ExtensionType,
  getAssociatedTokenAddressSync,
  getMintLen,
  LENGTH_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TYPE_SIZE,
} from '@solana/spl-token';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';

export { Keypair, PublicKey, type Transaction } from '@solana/web3.js';

export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
/** Seed of the per-vault receipt account whose creation makes the initial buy executable only once. */
export const INITIAL_BUY_RECEIPT_SEED = 'arcadia-initial-buy';

const INITIALIZE = Buffer.from([210, 225, 30, 162, 88, 184, 77, 141]); // spl_token_metadata_interface:initialize_account
const UPDATE_AUTHORITY = Buffer.from([215, 228, 166, 228, 84, 100, 86, 123]); // …:update_the_authority

export interface CoinMetadata {
  name: string;
  symbol: string;
  uri: string;
}

const borshString = (value: string) => {
  const bytes = Buffer.from(value, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(bytes.length);
  return Buffer.concat([len, bytes]);
};

/** Token-metadata `Initialize`: writes name/symbol/uri into the mint's own TLV (metadata account = mint). */
export const createInitializeTokenMetadataInstruction = (args: {
  mint: PublicKey;
  updateAuthority: PublicKey;
  mintAuthority: PublicKey;
  metadata: CoinMetadata;
}): TransactionInstruction =>
  new TransactionInstruction({
    programId: TOKEN_2022_PROGRAM_ID,
    keys: [
      { pubkey: args.mint, isSigner: false, isWritable: true },
      { pubkey: args.updateAuthority, isSigner: false, isWritable: false },
      { pubkey: args.mint, isSigner: false, isWritable: false },
      { pubkey: args.mintAuthority, isSigner: true, isWritable: false },
    ],
    data: Buffer.concat([
      INITIALIZE,
      borshString(args.metadata.name),
      borshString(args.metadata.symbol),
      borshString(args.metadata.uri),
    ]),
  });

/** Token-metadata `UpdateAuthority`; `null` makes the metadata immutable (all-zero key = None). */
export const createUpdateTokenMetadataAuthorityInstruction = (args: {
  mint: PublicKey;
  authority: PublicKey;
  newAuthority: PublicKey | null;
}): TransactionInstruction =>
  new TransactionInstruction({
    programId: TOKEN_2022_PROGRAM_ID,
    keys: [
      { pubkey: args.mint, isSigner: false, isWritable: true },
      { pubkey: args.authority, isSigner: true, isWritable: false },
    ],
    data: Buffer.concat([UPDATE_AUTHORITY, (args.newAuthority ?? PublicKey.default).toBuffer()]),
  });

/** A Memo program instruction (no signer keys). */
export const createMemoInstruction = (text: string): TransactionInstruction =>
  new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(text, 'utf8') });

/** Sizes of a Token-2022 mint with metadata pointer + metadata: `space` to allocate, `total` to fund rent for. */
export const coinMintSizes = (metadata: CoinMetadata): { space: number; total: number } => {
  const space = getMintLen([ExtensionType.MetadataPointer]);
  const metadataLen =
    32 +
    32 +
    4 * 3 +
    4 +
    ['name', 'symbol', 'uri'].reduce(
      (sum, field) => sum + Buffer.byteLength(metadata[field as keyof CoinMetadata], 'utf8'),
      0,
    );
  return { space, total: space + TYPE_SIZE + LENGTH_SIZE + metadataLen };
};

/** The vault's associated Token-2022 account for a coin. */
export const vaultTokenAccount = (mint: PublicKey, vault: PublicKey): PublicKey =>
  getAssociatedTokenAddressSync(mint, vault, false, TOKEN_2022_PROGRAM_ID);

/** The buyer's associated Token-2022 account for a coin. */
export const walletTokenAccount = (mint: PublicKey, owner: PublicKey): PublicKey =>
  getAssociatedTokenAddressSync(mint, owner, false, TOKEN_2022_PROGRAM_ID);

/** Address of a vault's initial-buy receipt (created with seed, owned by the System program). */
export const initialBuyReceipt = (vault: PublicKey): Promise<PublicKey> =>
  PublicKey.createWithSeed(vault, INITIAL_BUY_RECEIPT_SEED, SystemProgram.programId);

/**
 * Step (a): create the Token-2022 mint with the metadata-pointer extension pointing at itself, initialise it
 * (authority = vault, no freeze authority) and write its token metadata. Signers: payer, mint, vault.
 */
export const buildCreateCoinMintTx = (args: {
  payer: PublicKey;
  mint: PublicKey;
  vault: PublicKey;
  decimals: number;
  metadata: CoinMetadata;
  /** Rent-exempt minimum for `coinMintSizes(metadata).total`. */
  lamports: bigint;
}): Transaction => {
  const { space } = coinMintSizes(args.metadata);
  return new Transaction({ feePayer: args.payer }).add(
    SystemProgram.createAccount({
      fromPubkey: args.payer,
      newAccountPubkey: args.mint,
      space,
      lamports: Number(args.lamports),
      programId: TOKEN_2022_PROGRAM_ID,
    }),
    createInitializeMetadataPointerInstruction(args.mint, null, args.mint, TOKEN_2022_PROGRAM_ID),
    createInitializeMintInstruction(args.mint, args.decimals, args.vault, null, TOKEN_2022_PROGRAM_ID),
    createInitializeTokenMetadataInstruction({
      mint: args.mint,
      updateAuthority: args.vault,
      mintAuthority: args.vault,
      metadata: args.metadata,
    }),
  );
};

/**
 * Step (b): mint the whole supply into the vault's token account, then revoke the mint authority and the
 * metadata update authority in the same transaction, so minting can happen exactly once. Optionally funds the
 * vault's own rent-exempt minimum so any later lamport transfer into it succeeds. Signers: payer, vault.
 */
export const buildMintSupplyTx = (args: {
  payer: PublicKey;
  mint: PublicKey;
  vault: PublicKey;
  supply: bigint;
  decimals: number;
  vaultTopUp: bigint;
}): Transaction => {
  const vaultAta = vaultTokenAccount(args.mint, args.vault);
  const tx = new Transaction({ feePayer: args.payer });
  if (args.vaultTopUp > 0n)
    tx.add(
      SystemProgram.transfer({ fromPubkey: args.payer, toPubkey: args.vault, lamports: args.vaultTopUp }),
    );
  return tx.add(
    createAssociatedTokenAccountIdempotentInstruction(
      args.payer,
      vaultAta,
      args.vault,
      args.mint,
      TOKEN_2022_PROGRAM_ID,
    ),
    createMintToCheckedInstruction(
      args.mint,
      vaultAta,
      args.vault,
      args.supply,
      args.decimals,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
    createSetAuthorityInstruction(
      args.mint,
      args.vault,
      AuthorityType.MintTokens,
      null,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
    createUpdateTokenMetadataAuthorityInstruction({
      mint: args.mint,
      authority: args.vault,
      newAuthority: null,
    }),
  );
};

/**
 * Step (c), the initial buy, atomically: `lamports` from buyer to vault, `tokens` from the vault's token
 * account to the buyer's (created idempotently), a memo marker, and the vault's receipt account — creating it
 * fails once it exists, so this transaction can succeed only once per vault. Signers: buyer, vault.
 */
export const buildInitialBuyTx = (args: {
  buyer: PublicKey;
  mint: PublicKey;
  vault: PublicKey;
  lamports: bigint;
  tokens: bigint;
  decimals: number;
  receipt: PublicKey;
  receiptLamports: bigint;
  memo: string;
}): Transaction => {
  const buyerAta = walletTokenAccount(args.mint, args.buyer);
  return new Transaction({ feePayer: args.buyer }).add(
    SystemProgram.transfer({ fromPubkey: args.buyer, toPubkey: args.vault, lamports: args.lamports }),
    SystemProgram.createAccountWithSeed({
      fromPubkey: args.buyer,
      newAccountPubkey: args.receipt,
      basePubkey: args.vault,
      seed: INITIAL_BUY_RECEIPT_SEED,
      lamports: Number(args.receiptLamports),
      space: 0,
      programId: SystemProgram.programId,
    }),
    createAssociatedTokenAccountIdempotentInstruction(
      args.buyer,
      buyerAta,
      args.buyer,
      args.mint,
      TOKEN_2022_PROGRAM_ID,
    ),
    createTransferCheckedInstruction(
      vaultTokenAccount(args.mint, args.vault),
      args.mint,
      buyerAta,
      args.vault,
      args.tokens,
      args.decimals,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
    createMemoInstruction(args.memo),
  );
};

/** A keypair from a 64-byte secret key (raw bytes or base58). */
export const keypairFromSecret = (secret: Uint8Array | string): Keypair =>
  Keypair.fromSecretKey(typeof secret === 'string' ? bs58.decode(secret) : secret);

/** A fresh random keypair. */
export const newKeypair = (): Keypair => Keypair.generate();
