// A wallet's coin allocations across games (for GET /rewards/me and the settlement's caller): per coin it has an
// emission allocation of, what is allocated (airdrop by the current snapshot + emission), claimed and claimable.
import { chainReaderFromConfig } from '../../chain/index.js';
import { now } from '../../core/time.js';
import { findVaultAddress } from '../coins.js';
import { listWalletEmissions } from '../emission/repository.js';
import { getSummary, listClaimRecords, settleClaim } from '../repository.js';
import type { ReadDeps } from '../service.js';
import { getSnapshotObject } from '../storage.js';
import { claimableAmount, type LedgerDeps, readLedger, walletAllocation } from './ledger.js';

export type AllocationDeps = ReadDeps &
  LedgerDeps & {
    findVaultAddress(coinMint: string): Promise<string | undefined>;
  };

/** Production dependencies of claimableCoinAllocations, built once in the function that calls it. */
export const coinAllocationDeps = (): AllocationDeps => ({
  chain: chainReaderFromConfig(),
  getSummary,
  getObject: getSnapshotObject,
  listClaimRecords,
  settleClaim,
  findVaultAddress,
  now,
});

export interface CoinAllocation {
  gameId: string;
  gtokenAddress: string;
  allocated: string;
  claimed: string;
  claimable: string;
}

/**
 * The coins a wallet has an emission allocation of, each with its cumulative allocation (airdrop + emission),
 * what its landed claims took and what a claim would pay now. Sorted by game then coin.
 */
export const claimableCoinAllocations = async (
  wallet: string,
  deps: AllocationDeps,
): Promise<CoinAllocation[]> => {
  const emissions = await listWalletEmissions(wallet);
  const rows = await Promise.all(
    emissions.map(async ({ coinMint, gameId }) => {
      const [allocation, vault] = await Promise.all([
        walletAllocation(coinMint, wallet, deps),
        deps.findVaultAddress(coinMint),
      ]);
      const ledger = await readLedger(coinMint, wallet, deps);
      // A pending claim pays what is claimable now: nothing more is until it lands or expires.
      const owed = claimableAmount(allocation.total, ledger.claimed);
      return {
        gameId,
        gtokenAddress: coinMint,
        allocated: allocation.total.toString(),
        claimed: ledger.claimed.toString(),
        claimable: (vault && !ledger.pending ? owed : 0n).toString(),
      };
    }),
  );
  return rows.sort((a, b) =>
    a.gameId === b.gameId ? a.gtokenAddress.localeCompare(b.gtokenAddress) : a.gameId.localeCompare(b.gameId),
  );
};
