// Token-2022 pieces the official kit clients do not give us here. @solana-program/token covers the instructions
// both token programs share (and the associated-token program); @solana-program/token-2022 would cover the rest
// but needs @solana/kit 7 while the local chain's litesvm needs kit 8, and it pulls the zk-sdk WebAssembly peer.
// So the three Token-2022 extension instructions a coin launch sends, and the reading of the two extensions a
// coin has (metadata pointer, token metadata), are encoded here from the program's interface:
// - instruction 39 (MetadataPointerExtension), sub-instruction 0 (Initialize): authority, metadata address;
// - token-metadata interface: 8-byte discriminator = sha256("spl_token_metadata_interface:<name>")[..8], then
//   borsh fields;
// - a Token-2022 mint with extensions: 82-byte base mint, padding to 165, account type (1 = mint), then TLV
//   entries (u16 type, u16 length, value).
import {
  type AccountMeta,
  AccountRole,
  type AccountSignerMeta,
  type Address,
  address,
  getAddressDecoder,
  getAddressEncoder,
  type Instruction,
  type TransactionSigner,
} from '@solana/kit';

/** An instruction whose signer accounts carry their signers (signed by kit's message signing). */
type SignedInstruction = Instruction<string, readonly (AccountMeta | AccountSignerMeta)[]>;

import { getMintDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

export interface TokenMetadataInfo {
  name: string;
  symbol: string;
  uri: string;
  updateAuthority: string | null;
  additionalMetadata: Array<[string, string]>;
}

/** A mint as read from chain (either token program). */
export interface MintInfo {
  address: string;
  programId: string;
  isToken2022: boolean;
  decimals: number;
  supply: bigint;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  metadataPointer: { authority: string | null; metadataAddress: string | null } | null;
  metadata: TokenMetadataInfo | null;
}

export { TOKEN_PROGRAM_ADDRESS };
export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const MEMO_PROGRAM_ADDRESS = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

const MINT_BASE_SIZE = 82;
/** Token-2022 places the account type after a 165-byte region (the size of a token account). */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const EXTENSION_METADATA_POINTER = 18;
const EXTENSION_TOKEN_METADATA = 19;
/** TLV entry header: u16 type + u16 length. */
export const TLV_HEADER_SIZE = 4;
/** A Token-2022 mint with only the metadata-pointer extension (165 + 1 + 4 + 64). */
export const METADATA_POINTER_MINT_SIZE = ACCOUNT_TYPE_OFFSET + 1 + TLV_HEADER_SIZE + 64;

const INSTRUCTION_METADATA_POINTER = 39;
const INITIALIZE_METADATA = Uint8Array.from([210, 225, 30, 162, 88, 184, 77, 141]); // spl_token_metadata_interface:initialize_account
const UPDATE_METADATA_AUTHORITY = Uint8Array.from([215, 228, 166, 228, 84, 100, 86, 123]); // …:update_the_authority

const addressDecoder = getAddressDecoder();
const addressEncoder = getAddressEncoder();
const ZERO_KEY = new Uint8Array(32);

/** An OptionalNonZeroPubkey: all zeros means none. */
const optionalKey = (bytes: Uint8Array): string | null =>
  bytes.every((b) => b === 0) ? null : addressDecoder.decode(bytes);

const keyBytes = (value: Address | null): Uint8Array =>
  value ? (addressEncoder.encode(value) as Uint8Array) : ZERO_KEY;

const borshString = (value: string) => {
  const bytes = Buffer.from(value, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(bytes.length);
  return Buffer.concat([len, bytes]);
};

/** Reads borsh strings from a buffer. */
const reader = (data: Buffer, start: number) => {
  let offset = start;
  return {
    string(): string {
      const length = data.readUInt32LE(offset);
      const text = data.subarray(offset + 4, offset + 4 + length).toString('utf8');
      offset += 4 + length;
      return text;
    },
    u32(): number {
      const value = data.readUInt32LE(offset);
      offset += 4;
      return value;
    },
  };
};

const decodeTokenMetadata = (value: Buffer): TokenMetadataInfo => {
  const read = reader(value, 64);
  const name = read.string();
  const symbol = read.string();
  const uri = read.string();
  const count = read.u32();
  const additionalMetadata: Array<[string, string]> = [];
  for (let i = 0; i < count; i++) additionalMetadata.push([read.string(), read.string()]);
  return { name, symbol, uri, updateAuthority: optionalKey(value.subarray(0, 32)), additionalMetadata };
};

/** The metadata pointer and token metadata among a Token-2022 mint's extensions. */
const decodeExtensions = (data: Buffer) => {
  let metadataPointer: MintInfo['metadataPointer'] = null;
  let metadata: MintInfo['metadata'] = null;
  if (data.length <= ACCOUNT_TYPE_OFFSET) return { metadataPointer, metadata };
  let offset = ACCOUNT_TYPE_OFFSET + 1;
  while (offset + TLV_HEADER_SIZE <= data.length) {
    const type = data.readUInt16LE(offset);
    const length = data.readUInt16LE(offset + 2);
    const value = data.subarray(offset + TLV_HEADER_SIZE, offset + TLV_HEADER_SIZE + length);
    if (type === 0 || value.length < length) break;
    if (type === EXTENSION_METADATA_POINTER && length >= 64)
      metadataPointer = {
        authority: optionalKey(value.subarray(0, 32)),
        metadataAddress: optionalKey(value.subarray(32, 64)),
      };
    if (type === EXTENSION_TOKEN_METADATA) metadata = decodeTokenMetadata(value);
    offset += TLV_HEADER_SIZE + length;
  }
  return { metadataPointer, metadata };
};

/** A multisig account's size: Token-2022 pads a mint of this size so the two can be told apart. */
const MULTISIG_SIZE = 355;

/**
 * Whether an account of a token program holds a mint: exactly 82 bytes, or (Token-2022) an extended account
 * whose account-type byte says mint. Token accounts (165 bytes, or extended with type 2) are not mints.
 */
const isMintAccount = (data: Buffer, isToken2022: boolean) => {
  if (data.length === MINT_BASE_SIZE) return true;
  return (
    isToken2022 &&
    data.length > ACCOUNT_TYPE_OFFSET &&
    data.length !== MULTISIG_SIZE &&
    data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT
  );
};

/** A mint account's fields (both programs; extensions for Token-2022), or null when the data is not a mint. */
export const decodeMint = (
  data: Buffer,
  isToken2022: boolean,
): Omit<MintInfo, 'address' | 'programId' | 'isToken2022'> | null => {
  if (!isMintAccount(data, isToken2022)) return null;
  try {
    const mint = getMintDecoder().decode(data.subarray(0, MINT_BASE_SIZE));
    if (!mint.isInitialized) return null;
    const extensions = isToken2022 ? decodeExtensions(data) : { metadataPointer: null, metadata: null };
    return {
      decimals: mint.decimals,
      supply: mint.supply,
      mintAuthority: mint.mintAuthority.__option === 'Some' ? mint.mintAuthority.value : null,
      freezeAuthority: mint.freezeAuthority.__option === 'Some' ? mint.freezeAuthority.value : null,
      ...extensions,
    };
  } catch {
    return null;
  }
};

export interface CoinMetadata {
  name: string;
  symbol: string;
  uri: string;
}

/** Space and rent size of a coin mint: `space` to allocate (pointer only), `total` once metadata is written. */
export const coinMintSizes = (metadata: CoinMetadata): { space: number; total: number } => {
  const fields = [metadata.name, metadata.symbol, metadata.uri].reduce(
    (sum, field) => sum + 4 + Buffer.byteLength(field, 'utf8'),
    0,
  );
  // update authority + mint + three strings + an empty additional-metadata vector.
  const metadataLen = 32 + 32 + fields + 4;
  return {
    space: METADATA_POINTER_MINT_SIZE,
    total: METADATA_POINTER_MINT_SIZE + TLV_HEADER_SIZE + metadataLen,
  };
};

/** Token-2022 `InitializeMetadataPointer` (before InitializeMint): who may change it and where metadata lives. */
export const initializeMetadataPointerInstruction = (args: {
  mint: Address;
  authority: Address | null;
  metadataAddress: Address;
}): Instruction => ({
  programAddress: TOKEN_2022_PROGRAM_ADDRESS,
  accounts: [{ address: args.mint, role: AccountRole.WRITABLE }],
  data: Buffer.concat([
    Uint8Array.from([INSTRUCTION_METADATA_POINTER, 0]),
    keyBytes(args.authority),
    keyBytes(args.metadataAddress),
  ]),
});

/** Token-metadata `Initialize`: writes name/symbol/uri into the mint's own TLV (metadata account = mint). */
export const initializeTokenMetadataInstruction = (args: {
  mint: Address;
  updateAuthority: Address;
  mintAuthority: TransactionSigner;
  metadata: CoinMetadata;
}): SignedInstruction => ({
  programAddress: TOKEN_2022_PROGRAM_ADDRESS,
  accounts: [
    { address: args.mint, role: AccountRole.WRITABLE },
    { address: args.updateAuthority, role: AccountRole.READONLY },
    { address: args.mint, role: AccountRole.READONLY },
    { address: args.mintAuthority.address, role: AccountRole.READONLY_SIGNER, signer: args.mintAuthority },
  ],
  data: Buffer.concat([
    INITIALIZE_METADATA,
    borshString(args.metadata.name),
    borshString(args.metadata.symbol),
    borshString(args.metadata.uri),
  ]),
});

/** Token-metadata `UpdateAuthority`; `null` makes the metadata immutable (all-zero key = none). */
export const updateTokenMetadataAuthorityInstruction = (args: {
  mint: Address;
  authority: TransactionSigner;
  newAuthority: Address | null;
}): SignedInstruction => ({
  programAddress: TOKEN_2022_PROGRAM_ADDRESS,
  accounts: [
    { address: args.mint, role: AccountRole.WRITABLE },
    { address: args.authority.address, role: AccountRole.READONLY_SIGNER, signer: args.authority },
  ],
  data: Buffer.concat([UPDATE_METADATA_AUTHORITY, keyBytes(args.newAuthority)]),
});

/**
 * A Memo program instruction. With a `signer`, the Memo program checks that key signed the transaction (a memo
 * anyone can read as that key's word); without, it names no keys.
 */
export const memoInstruction = (text: string, signer?: TransactionSigner): SignedInstruction => ({
  programAddress: MEMO_PROGRAM_ADDRESS,
  accounts: signer ? [{ address: signer.address, role: AccountRole.READONLY_SIGNER, signer }] : [],
  data: Buffer.from(text, 'utf8'),
});
