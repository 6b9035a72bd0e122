// The tables and bucket every claim use case reads (the snapshot, its objects, the wallet's claim records), wired
// once for the claim functions. The vault's key is not among them: only the functions that build a claim load it,
// so the status function's bundle never holds the code that opens it.
import { now } from '../../core/time.js';
import { getSummary, listClaimRecords, settleClaim } from '../repository.js';
import type { ReadDeps } from '../service.js';
import { getSnapshotObject } from '../storage.js';
import type { LedgerDeps } from './ledger.js';

export const claimStores: ReadDeps & Omit<LedgerDeps, 'chain'> = {
  getSummary,
  getObject: getSnapshotObject,
  listClaimRecords,
  settleClaim,
  now,
};
