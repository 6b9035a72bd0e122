// litesvm keeps no secondary indexes (its getProgramAccounts scans every account), so the local chain keeps
// its own: every account a transaction could have written is re-read after the transaction and filed here by
// owner program, and token accounts also by mint and by wallet owner.
import { readTokenAccount, TOKEN_PROGRAMS } from './codec.js';

export interface IndexedAccount {
  owner: string;
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
}

const add = (map: Map<string, Set<string>>, key: string, value: string) => {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(value);
};

const remove = (map: Map<string, Set<string>>, key: string, value: string) => {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
};

/** Addresses by owner program, and token accounts by mint and by wallet owner. */
export class AccountIndex {
  private readonly owners = new Map<string, string>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly tokens = new Map<string, { mint: string; owner: string; ownerByte: number }>();
  private readonly byMint = new Map<string, Set<string>>();
  private readonly byTokenOwner = new Map<string, Set<string>>();
  /** Token accounts by mint and the wallet owner's first byte: partitioned holder reads (memcmp at 32). */
  private readonly byMintOwnerByte = new Map<string, Set<string>>();

  /** Record the current state of an address; null (or zero lamports) means the account no longer exists. */
  update(address: string, account: IndexedAccount | null): void {
    const previousOwner = this.owners.get(address);
    const exists = account !== null && account.lamports > 0n;
    if (previousOwner !== undefined && (!exists || previousOwner !== account.owner)) {
      remove(this.byOwner, previousOwner, address);
      this.owners.delete(address);
    }
    const previousToken = this.tokens.get(address);
    if (previousToken) {
      remove(this.byMint, previousToken.mint, address);
      remove(this.byTokenOwner, previousToken.owner, address);
      remove(this.byMintOwnerByte, `${previousToken.mint}:${previousToken.ownerByte}`, address);
      this.tokens.delete(address);
    }
    if (!exists) return;
    this.owners.set(address, account.owner);
    add(this.byOwner, account.owner, address);
    if (TOKEN_PROGRAMS.has(account.owner)) {
      const token = readTokenAccount(account.data);
      if (token) {
        const ownerByte = account.data[32] as number;
        this.tokens.set(address, { mint: token.mint, owner: token.owner, ownerByte });
        add(this.byMint, token.mint, address);
        add(this.byTokenOwner, token.owner, address);
        add(this.byMintOwnerByte, `${token.mint}:${ownerByte}`, address);
      }
    }
  }

  /** Every indexed address. */
  addresses(): IterableIterator<string> {
    return this.owners.keys();
  }

  get size(): number {
    return this.owners.size;
  }

  /** Addresses owned by a program (empty when the index has never seen one). */
  ownedBy(program: string): ReadonlySet<string> {
    return this.byOwner.get(program) ?? new Set();
  }

  /** Token accounts (either program) of a mint. */
  tokenAccountsOfMint(mint: string): ReadonlySet<string> {
    return this.byMint.get(mint) ?? new Set();
  }

  /** Token accounts (either program) of a mint whose wallet owner's first byte is `ownerByte`. */
  tokenAccountsOfMintByOwnerByte(mint: string, ownerByte: number): ReadonlySet<string> {
    return this.byMintOwnerByte.get(`${mint}:${ownerByte}`) ?? new Set();
  }

  /** Token accounts (either program) whose wallet owner is `owner`. */
  tokenAccountsOfOwner(owner: string): ReadonlySet<string> {
    return this.byTokenOwner.get(owner) ?? new Set();
  }
}
