// Decoding of wire transactions for the ledger: account keys (static and from address lookup tables), their
// writability, the shape litesvm's public sendTransaction takes, and the per-transaction extras a validator
// reports (memos, inner instructions, preflight errors).
import { AddressLookupTableAccount, type PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { LiteSVM, TransactionMetadata } from 'litesvm';
import {
  describeTxError,
  MEMO_PROGRAM,
  RpcError,
  type RpcTxError,
  readCompactU16,
  SYSTEM_PROGRAM,
} from './codec.js';

type KitTransaction = Parameters<LiteSVM['sendTransaction']>[0];

const MEMO_PROGRAM_V1 = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

/** A decoded wire transaction. */
export interface Decoded {
  tx: VersionedTransaction;
  signature: string;
  /** `{messageBytes, signatures}` as litesvm's (kit-typed) sendTransaction takes it. */
  kit: KitTransaction;
  /** All account keys: static, then loaded writable, then loaded read-only. */
  keys: PublicKey[];
  writable: boolean[];
  loaded: { writable: string[]; readonly: string[] };
  /** First instruction is AdvanceNonceAccount: the blockhash is a durable nonce. */
  isNonce: boolean;
}

export interface InnerInstructions {
  index: number;
  instructions: Array<{ programIdIndex: number; accounts: number[]; data: string; stackHeight: number }>;
}

/** Decode a wire transaction; `accountData` reads address lookup tables. Throws RpcError when malformed. */
export const decodeTransaction = (
  raw: Uint8Array,
  accountData: (address: string) => Uint8Array | null,
): Decoded => {
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(raw);
  } catch (error) {
    throw new RpcError(-32602, `failed to deserialize transaction: ${(error as Error).message}`);
  }
  const message = tx.message;
  const lookups = message.addressTableLookups.map((lookup) => {
    const data = accountData(lookup.accountKey.toBase58());
    if (!data)
      throw new RpcError(-32002, 'Transaction simulation failed: address lookup table not found', {
        err: 'AddressLookupTableNotFound',
        logs: [],
      });
    return new AddressLookupTableAccount({
      key: lookup.accountKey,
      state: AddressLookupTableAccount.deserialize(data),
    });
  });
  const accountKeys = message.getAccountKeys({ addressLookupTableAccounts: lookups });
  const keys = accountKeys.keySegments().flat();
  const [sigCount, sigBytes] = readCompactU16(raw);
  const messageBytes = raw.subarray(sigBytes + sigCount * 64);
  const signatures: Record<string, Uint8Array> = {};
  message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).forEach((key, i) => {
    signatures[key.toBase58()] = tx.signatures[i] ?? new Uint8Array(64);
  });
  const first = message.compiledInstructions[0];
  const firstProgram = first ? message.staticAccountKeys[first.programIdIndex]?.toBase58() : undefined;
  const loadedWritable = accountKeys.accountKeysFromLookups?.writable ?? [];
  const loadedReadonly = accountKeys.accountKeysFromLookups?.readonly ?? [];
  return {
    tx,
    signature: bs58.encode(tx.signatures[0] ?? new Uint8Array(64)),
    kit: { messageBytes, signatures } as unknown as KitTransaction,
    keys,
    writable: keys.map((_, i) => message.isAccountWritable(i)),
    loaded: {
      writable: loadedWritable.map((k) => k.toBase58()),
      readonly: loadedReadonly.map((k) => k.toBase58()),
    },
    isNonce:
      firstProgram === SYSTEM_PROGRAM && first !== undefined && Buffer.from(first.data).readUInt32LE(0) === 4,
  };
};

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;

/**
 * The compute budget a transaction asks for, read as the runtime reads it: SetComputeUnitLimit (2, u32) and
 * SetComputeUnitPrice (3, u64 micro-lamports); without a limit, 200 000 units per other instruction, at most
 * 1 400 000.
 */
export const computeBudgetOf = (decoded: Decoded): { units: number; microLamports: bigint } => {
  let units: number | undefined;
  let microLamports = 0n;
  let others = 0;
  for (const ix of decoded.tx.message.compiledInstructions) {
    if (decoded.keys[ix.programIdIndex]?.toBase58() !== COMPUTE_BUDGET_PROGRAM) {
      others++;
      continue;
    }
    const data = Buffer.from(ix.data);
    if (data[0] === 2 && data.length >= 5) units = Math.min(MAX_COMPUTE_UNIT_LIMIT, data.readUInt32LE(1));
    if (data[0] === 3 && data.length >= 9) microLamports = data.readBigUInt64LE(1);
  }
  return {
    units: units ?? Math.min(MAX_COMPUTE_UNIT_LIMIT, others * DEFAULT_UNITS_PER_INSTRUCTION),
    microLamports,
  };
};

/** The validator's `-32002` preflight failure. */
export const preflightError = (err: RpcTxError, logs: string[], unitsConsumed = 0): RpcError =>
  new RpcError(-32002, `Transaction simulation failed: ${describeTxError(err)}`, {
    accounts: null,
    err,
    innerInstructions: null,
    logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed,
  });

/** Memo instructions as `getSignaturesForAddress` reports them: `"[len] text"`, joined by "; ". */
export const memoOf = (decoded: Decoded): string | null => {
  const memos = decoded.tx.message.compiledInstructions
    .filter((ix) => {
      const program = decoded.keys[ix.programIdIndex]?.toBase58();
      return program === MEMO_PROGRAM || program === MEMO_PROGRAM_V1;
    })
    .map((ix) => {
      const text = Buffer.from(ix.data).toString('utf8');
      return `[${Buffer.byteLength(text)}] ${text}`;
    });
  return memos.length > 0 ? memos.join('; ') : null;
};

/** Inner (CPI) instructions per outer instruction, in the RPC's shape; outer instructions without any omitted. */
export const innerInstructionsOf = (meta: TransactionMetadata): InnerInstructions[] =>
  meta
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: [...ix.accounts()],
          data: bs58.encode(ix.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    }))
    .filter((entry) => entry.instructions.length > 0);
