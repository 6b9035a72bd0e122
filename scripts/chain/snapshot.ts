// Persistence of the local chain under its data folder. litesvm's own `saveToFile` fails past ~40k accounts
// (docs/local-chain.md, "Persistence"), so the chain writes its own snapshot: every indexed account in a compact
// binary file, plus a JSON file with the slot, genesis hash, faucet key and the most recent transactions. Both are
// written to a temporary file and renamed, so a crash mid-write leaves the previous snapshot intact.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { AccountState, Ledger, LedgerState, TxRecord } from './ledger.js';

const MAGIC = Buffer.from('ARCCHN01');
const TXS_PERSISTED = 5_000;

interface Meta {
  version: 1;
  slot: string;
  genesisHash: string;
  faucetSecretKey: string;
  transactionCount: number;
  txs: TxRecord[];
}

const files = (dir: string) => ({ accounts: join(dir, 'accounts.bin'), meta: join(dir, 'ledger.json') });

const writeAtomic = (path: string, data: Buffer | string) => {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
};

/** Encode accounts as: magic, count (u32), then per account address, owner, lamports, executable, length, data. */
export const encodeAccounts = (accounts: Iterable<AccountState>): Buffer => {
  const chunks: Buffer[] = [MAGIC, Buffer.alloc(4)];
  let count = 0;
  for (const account of accounts) {
    const head = Buffer.alloc(32 + 32 + 8 + 1 + 4);
    head.set(bs58.decode(account.address), 0);
    head.set(bs58.decode(account.owner), 32);
    head.writeBigUInt64LE(account.lamports, 64);
    head[72] = account.executable ? 1 : 0;
    head.writeUInt32LE(account.data.length, 73);
    chunks.push(head, Buffer.from(account.data));
    count++;
  }
  chunks[1]?.writeUInt32LE(count, 0);
  return Buffer.concat(chunks);
};

/** Decode what `encodeAccounts` wrote. */
export const decodeAccounts = (buf: Buffer): AccountState[] => {
  if (!buf.subarray(0, 8).equals(MAGIC)) throw new Error('Not a local chain accounts snapshot');
  const count = buf.readUInt32LE(8);
  const out: AccountState[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    const length = buf.readUInt32LE(at + 73);
    out.push({
      address: bs58.encode(buf.subarray(at, at + 32)),
      owner: bs58.encode(buf.subarray(at + 32, at + 64)),
      lamports: buf.readBigUInt64LE(at + 64),
      executable: buf[at + 72] === 1,
      data: new Uint8Array(buf.subarray(at + 77, at + 77 + length)),
    });
    at += 77 + length;
  }
  return out;
};

/** Write the ledger's accounts and recent history under `dir`. */
export const saveSnapshot = (dir: string, ledger: Ledger): void => {
  mkdirSync(dir, { recursive: true });
  const { accounts, meta } = files(dir);
  const states = (function* () {
    for (const address of ledger.index.addresses()) {
      const account = ledger.getAccount(address);
      if (account && !account.executable) yield account;
    }
  })();
  writeAtomic(accounts, encodeAccounts(states));
  const body: Meta = {
    version: 1,
    slot: ledger.slot.toString(),
    genesisHash: ledger.genesisHash,
    faucetSecretKey: bs58.encode(ledger.faucet.secretKey),
    transactionCount: ledger.transactionCount,
    txs: ledger.recentTxs(TXS_PERSISTED),
  };
  writeAtomic(meta, JSON.stringify(body));
};

/** Read a snapshot written by `saveSnapshot`, or undefined when `dir` has none. */
export const loadSnapshot = (dir: string): LedgerState | undefined => {
  const { accounts, meta } = files(dir);
  if (!existsSync(meta) || !existsSync(accounts)) return undefined;
  const body = JSON.parse(readFileSync(meta, 'utf8')) as Meta;
  return {
    slot: BigInt(body.slot),
    genesisHash: body.genesisHash,
    faucet: Keypair.fromSecretKey(bs58.decode(body.faucetSecretKey)),
    transactionCount: body.transactionCount,
    txs: body.txs,
    accounts: decodeAccounts(readFileSync(accounts)),
  };
};
