// `npm run migrate-claims` rebuilds the claims of the release that read amounts from memos as the platform's claim
// records, from the transactions each coin's vault signed (lib/snapshots/claims/migration.ts), against the stack the
// environment points at (`npm run dev` locally). Run it once after deploying the claim records, before claims are
// opened again; a second run changes nothing. Prints what it migrated and deleted.
import { resolve } from 'node:path';
import { loadServerlessConfig } from './stack/config.js';
import { applyDevFunctionEnvironment } from './stack/dev-environment.js';

// The claim status function's environment: it reads the launcher's vault addresses and writes claim records.
const root = resolve(import.meta.dirname, '..');
applyDevFunctionEnvironment(root, await loadServerlessConfig(root), 'getClaimStatus');

// Imported once the environment is set: settings are parsed when the modules load.
const { chainReaderFromConfig } = await import('../lib/chain/index.js');
const { now } = await import('../lib/core/time.js');
const snapshots = await import('../lib/snapshots/index.js');
const report = await snapshots.migrateLegacyClaims({
  chain: chainReaderFromConfig(),
  listClaimCoins: snapshots.listClaimCoins,
  listLegacyClaims: snapshots.listLegacyClaims,
  findVaultAddress: snapshots.findVaultAddress,
  putMigratedClaim: snapshots.putMigratedClaim,
  deleteLegacyClaim: snapshots.deleteLegacyClaim,
  now,
});
console.log(JSON.stringify(report, null, 2));
