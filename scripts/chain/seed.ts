// Many token accounts written straight into the local chain (Ledger.putAccount, no transaction): holder sets of
// any size for tests and benches of the snapshot's holder read. The accounts are what the token programs would
// have written: 165 bytes (mint, owner, amount, initialized), or a Token-2022 account with an extension
// (account-type byte 2 at offset 165, then an ImmutableOwner entry).
import bs58 from 'bs58';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './codec.js';
import type { Ledger } from './ledger.js';

const ACCOUNT_RENT = 2_039_280n;
const EXTENDED_RENT = 2_100_000n;
const MINT_RENT = 1_461_600n;

/** A token account's data: mint, owner, amount, state = initialized; `extended` adds Token-2022's TLV part. */
export const tokenAccountData = (mint: Uint8Array, owner: Uint8Array, amount: bigint, extended = false) => {
  const data = Buffer.alloc(extended ? 170 : 165);
  data.set(mint, 0);
  data.set(owner, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1;
  if (extended) {
    data[165] = 2; // AccountType::Account
    data.writeUInt16LE(7, 166); // ImmutableOwner, length 0
  }
  return data;
};

/** A mint account of either program (82 bytes classic; Token-2022 padded with account type 1). */
export const putMint = (
  ledger: Ledger,
  mint: string,
  options: { token2022?: boolean; decimals?: number; supply?: bigint; authority?: string } = {},
) => {
  const data = Buffer.alloc(options.token2022 ? 166 : 82);
  if (options.authority) {
    data.writeUInt32LE(1, 0);
    data.set(bs58.decode(options.authority), 4);
  }
  data.writeBigUInt64LE(options.supply ?? 0n, 36);
  data[44] = options.decimals ?? 6;
  data[45] = 1;
  if (options.token2022) data[165] = 1;
  ledger.putAccount({
    address: mint,
    owner: options.token2022 ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM,
    lamports: MINT_RENT,
    data,
    executable: false,
  });
};

/** One token account of `mint` for `owner` at address `account`. */
export const putTokenAccount = (
  ledger: Ledger,
  account: string,
  mint: string,
  owner: Uint8Array | string,
  amount: bigint,
  options: { token2022?: boolean; extended?: boolean } = {},
) => {
  const ownerKey = typeof owner === 'string' ? bs58.decode(owner) : owner;
  const extended = options.token2022 === true && options.extended === true;
  ledger.putAccount({
    address: account,
    owner: options.token2022 ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM,
    lamports: extended ? EXTENDED_RENT : ACCOUNT_RENT,
    data: tokenAccountData(bs58.decode(mint), ownerKey, amount, extended),
    executable: false,
  });
};
