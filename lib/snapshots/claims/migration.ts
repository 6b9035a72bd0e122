// Claims of the release that read each claim's amount from a memo are not the platform's records: a memo on a
// receipt is whatever its sender wrote, and a claim nobody looked up was never recorded at all. The migration
// rebuilds them from what only the platform could sign: every successful transaction the coin's vault signed that
// moved tokens out of the vault's token account with a claim memo (a memo inside a vault-signed transaction was
// written by the platform) is a landed claim — its number from that memo, its amount from the recipient's token
// balance change. Those become landed claim records; a legacy item that none of them backs (its receipt was
// funded by somebody else) is deleted. Idempotent: records already written are left as they are.
import { type ChainReader, vaultTokenAccount } from '../../chain/index.js';
import type { ClaimRecord, LegacyClaim } from '../repository.js';
import { CLAIM_MEMO } from './ledger.js';

export interface MigrationDeps {
  chain: Pick<ChainReader, 'findSignatures' | 'getLandedTransaction'>;
  /** Every coin with an airdrop snapshot or emission (the coins claims can exist for). */
  listClaimCoins(): Promise<string[]>;
  listLegacyClaims(): Promise<LegacyClaim[]>;
  findVaultAddress(coinMint: string): Promise<string | undefined>;
  /** Write a migrated claim unless a record (not a legacy item) is already there. */
  putMigratedClaim(claim: ClaimRecord): Promise<boolean>;
  /** Delete a legacy item, only while it is still one. */
  deleteLegacyClaim(claim: LegacyClaim): Promise<void>;
  now(): Date;
}

export interface MigrationReport {
  /** Claims found on chain and written as landed records. */
  migrated: Array<{
    coinMint: string;
    wallet: string;
    claimNumber: number;
    amount: string;
    signature: string;
  }>;
  /** Legacy items that no vault-signed claim backs, deleted. */
  deleted: LegacyClaim[];
  /** Coins whose vault is not held here: their legacy items are left in place. */
  skippedCoins: string[];
}

const PAGE = 1000;

/** The claims a coin's vault signed, oldest first: (wallet, number, amount, signature, time). */
const vaultClaims = async (coinMint: string, vault: string, deps: MigrationDeps) => {
  const source = await vaultTokenAccount(coinMint, vault);
  const claims: Array<{
    wallet: string;
    claimNumber: number;
    amount: bigint;
    signature: string;
    at: number | null;
  }> = [];
  let before: string | undefined;
  for (;;) {
    const page = await deps.chain.findSignatures(source, PAGE, before);
    for (const entry of page) {
      if (entry.err !== null || !entry.memo?.includes(CLAIM_MEMO)) continue;
      const tx = await deps.chain.getLandedTransaction(entry.signature);
      if (!tx?.signers.includes(vault)) continue;
      const paid = tx.tokenChanges.find((c) => c.mint === coinMint && c.owner !== vault && c.delta > 0n);
      if (!paid) continue;
      claims.push({
        wallet: paid.owner,
        claimNumber: Number(/\bclaim=(\d+)/.exec(entry.memo)?.[1] ?? 0),
        amount: paid.delta,
        signature: entry.signature,
        at: tx.blockTime ?? entry.blockTime,
      });
    }
    if (page.length < PAGE) break;
    before = page.at(-1)?.signature;
  }
  return claims.reverse();
};

/** Rebuild every legacy claim from the vaults' own transactions. */
export const migrateLegacyClaims = async (deps: MigrationDeps): Promise<MigrationReport> => {
  const report: MigrationReport = { migrated: [], deleted: [], skippedCoins: [] };
  const legacy = await deps.listLegacyClaims();
  const coins = [...new Set([...(await deps.listClaimCoins()), ...legacy.map((c) => c.coinMint)])].sort();
  for (const coinMint of coins) {
    const vault = await deps.findVaultAddress(coinMint);
    if (!vault) {
      report.skippedCoins.push(coinMint);
      continue;
    }
    const claimed = new Map<string, bigint>();
    const backed = new Set<string>();
    for (const found of await vaultClaims(coinMint, vault, deps)) {
      const before = claimed.get(found.wallet) ?? 0n;
      claimed.set(found.wallet, before + found.amount);
      backed.add(`${found.wallet}#${found.claimNumber}`);
      const at = new Date(found.at ? found.at * 1000 : deps.now().getTime()).toISOString();
      const record: ClaimRecord = {
        coinMint,
        wallet: found.wallet,
        claimNumber: found.claimNumber,
        attempt: 1,
        status: 'landed',
        origin: 'build',
        amount: found.amount.toString(),
        allocated: (before + found.amount).toString(),
        airdropAllocation: '0',
        emissionAllocation: '0',
        claimedBefore: before.toString(),
        index: null,
        merkleRoot: null,
        snapshotVersion: null,
        receiptAddress: '',
        // Landed before the records existed: its transaction was never stored, and a landed claim is never sent.
        transaction: '',
        blockhash: '',
        lastValidBlockHeight: 0,
        signature: found.signature,
        createdAt: at,
        claimedAt: at,
      };
      if (await deps.putMigratedClaim(record))
        report.migrated.push({
          coinMint,
          wallet: found.wallet,
          claimNumber: found.claimNumber,
          amount: record.amount,
          signature: found.signature,
        });
    }
    for (const item of legacy.filter((c) => c.coinMint === coinMint)) {
      if (backed.has(`${item.wallet}#${item.claimNumber}`)) continue;
      await deps.deleteLegacyClaim(item);
      report.deleted.push(item);
    }
  }
  return report;
};
