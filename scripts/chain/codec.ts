// Wire encodings shared by the local chain's ledger and RPC layer: litesvm results → RPC JSON shapes, account
// data encodings, and a raw reader for SPL Token / Token-2022 account and mint layouts (both programs share the
// first 165 bytes; Token-2022 appends an account-type byte and TLV extensions).
import bs58 from 'bs58';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM, TOKEN_2022_PROGRAM]);

/** Order of litesvm's (and Agave's) `TransactionError` fieldless variants: the enum value indexes this list. */
const TX_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

/** Order of the fieldless `InstructionError` variants. */
const IX_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

/** A transaction error as the RPC serialises it: a variant name, or `{Variant: fields}`. */
export type RpcTxError = string | Record<string, unknown>;

const ixErrorJson = (e: unknown): unknown => {
  if (typeof e === 'number') return IX_ERRORS[e] ?? `InstructionError${e}`;
  const o = e as { code?: number; msg?: string };
  if (typeof o.code === 'number') return { Custom: o.code };
  return 'BorshIoError';
};

/** Convert a litesvm `FailedTransactionMetadata.err()` value into the RPC JSON form of `TransactionError`. */
export const txErrorJson = (e: unknown): RpcTxError => {
  if (typeof e === 'number') return TX_ERRORS[e] ?? `TransactionError${e}`;
  const o = e as {
    index?: number;
    accountIndex?: number;
    err?: () => unknown;
    constructor: { name: string };
  };
  if (typeof o.err === 'function') return { InstructionError: [o.index ?? 0, ixErrorJson(o.err())] };
  if (o.constructor.name.includes('InsufficientFundsForRent'))
    return { InsufficientFundsForRent: { account_index: o.accountIndex } };
  if (o.constructor.name.includes('ProgramExecutionTemporarilyRestricted'))
    return { ProgramExecutionTemporarilyRestricted: { account_index: o.accountIndex } };
  return { DuplicateInstruction: o.index ?? 0 };
};

const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** Human text for a transaction error, close to the validator's `Display` output. */
export const describeTxError = (err: RpcTxError): string => {
  if (typeof err === 'string') {
    if (err === 'BlockhashNotFound') return 'Blockhash not found';
    if (err === 'AlreadyProcessed') return 'This transaction has already been processed';
    return words(err);
  }
  const ix = err.InstructionError as [number, unknown] | undefined;
  if (ix) {
    const [index, inner] = ix;
    const text =
      typeof inner === 'string'
        ? words(inner)
        : `custom program error: 0x${Number((inner as { Custom: number }).Custom).toString(16)}`;
    return `Error processing Instruction ${index}: ${text}`;
  }
  return words(Object.keys(err)[0] ?? 'unknown error');
};

/** Errors after which the transaction was executed and charged (it lands on a real chain with `err` set). */
export const landsOnChain = (err: RpcTxError): boolean =>
  typeof err !== 'string' &&
  ('InstructionError' in err || 'InsufficientFundsForRent' in err || 'DuplicateInstruction' in err);

/** Read the compact-u16 signature count at the start of a wire transaction: [count, bytes used]. */
export const readCompactU16 = (bytes: Uint8Array, at = 0): [number, number] => {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i] ?? 0;
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw new Error('Invalid compact-u16');
};

export type AccountEncoding = 'base58' | 'base64' | 'jsonParsed';

/** Parse an RPC `encoding` option; `binary` is the legacy name of base58. */
export const parseEncoding = (value: unknown, fallback: AccountEncoding): AccountEncoding => {
  if (value === undefined || value === null) return fallback;
  if (value === 'base64' || value === 'jsonParsed' || value === 'base58') return value;
  if (value === 'binary') return 'base58';
  throw new RpcError(-32602, `Invalid params: unsupported encoding ${String(value)}`);
};

/** A JSON-RPC error to return as `{code, message, data}`. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface TokenAccountFields {
  mint: string;
  owner: string;
  amount: bigint;
  state: number;
  isNative: boolean;
}

/** Whether data owned by a token program is a token account (not a mint or multisig). */
export const isTokenAccountData = (data: Uint8Array): boolean =>
  data.length === 165 || (data.length > 165 && data[165] === 2);

/** The base fields of a token account (either program), or null when the data is not a token account. */
export const readTokenAccount = (data: Uint8Array): TokenAccountFields | null => {
  if (!isTokenAccountData(data)) return null;
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: bs58.encode(data.subarray(0, 32)),
    owner: bs58.encode(data.subarray(32, 64)),
    amount: view.readBigUInt64LE(64),
    state: data[108] ?? 0,
    isNative: view.readUInt32LE(109) === 1,
  };
};

export interface MintFields {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

/** The base fields of a mint (either program), or null when the data is not a mint. */
export const readMint = (data: Uint8Array): MintFields | null => {
  if (data.length < 82 || (data.length > 82 && (data.length <= 165 || data[165] !== 1))) return null;
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const option = (at: number) =>
    view.readUInt32LE(at) === 1 ? bs58.encode(data.subarray(at + 4, at + 36)) : null;
  return {
    mintAuthority: option(0),
    supply: view.readBigUInt64LE(36),
    decimals: data[44] ?? 0,
    isInitialized: data[45] === 1,
    freezeAuthority: option(46),
  };
};

/** `{amount, decimals, uiAmount, uiAmountString}` as the RPC reports token amounts. */
export const uiTokenAmount = (amount: bigint, decimals: number) => {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
};

const readString = (data: Buffer, at: number): [string, number] => {
  const len = data.readUInt32LE(at);
  return [data.subarray(at + 4, at + 4 + len).toString('utf8'), at + 4 + len];
};

/** Token-2022 TLV extensions of a mint or account: type → value bytes. */
export const readExtensions = (data: Uint8Array): Map<number, Buffer> => {
  const out = new Map<number, Buffer>();
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 166;
  while (at + 4 <= buf.length) {
    const type = buf.readUInt16LE(at);
    const len = buf.readUInt16LE(at + 2);
    if (type === 0) break;
    out.set(type, buf.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
};

const METADATA_POINTER = 18;
const TOKEN_METADATA = 19;

const optionalKey = (bytes: Buffer) => (bytes.every((b) => b === 0) ? null : bs58.encode(bytes));

/** The jsonParsed `extensions` list for the two extensions game coins use (others are listed by type only). */
export const parsedExtensions = (data: Uint8Array): Array<Record<string, unknown>> => {
  if (data.length <= 165) return [];
  return [...readExtensions(data)].map(([type, value]) => {
    if (type === METADATA_POINTER)
      return {
        extension: 'metadataPointer',
        state: {
          authority: optionalKey(value.subarray(0, 32)),
          metadataAddress: optionalKey(value.subarray(32, 64)),
        },
      };
    if (type === TOKEN_METADATA) {
      const [name, a] = readString(value, 64);
      const [symbol, b] = readString(value, a);
      const [uri, c] = readString(value, b);
      const count = value.readUInt32LE(c);
      const additionalMetadata: Array<[string, string]> = [];
      let at = c + 4;
      for (let i = 0; i < count; i++) {
        const [k, next] = readString(value, at);
        const [v, after] = readString(value, next);
        additionalMetadata.push([k, v]);
        at = after;
      }
      return {
        extension: 'tokenMetadata',
        state: {
          updateAuthority: optionalKey(value.subarray(0, 32)),
          mint: bs58.encode(value.subarray(32, 64)),
          name,
          symbol,
          uri,
          additionalMetadata,
        },
      };
    }
    return { extension: `unknown:${type}` };
  });
};
