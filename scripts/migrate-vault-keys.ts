// `npm run migrate-vault-keys`: re-seals the custodial keys stored before the vault sealing key moved to Secrets
// Manager (docs/wallets.md, "Custodial keys"). A `v1` key (sealed with the secrets key, no associated data) on a
// rewards pool (vaultSealedKey) or a launch job (sealedMintKey, sealedVaultKey) is opened with that key (read from
// its secret, SECRETS_KEY_SECRET_ID), checked to sign for the address its record names, sealed again as `v2` for
// that address, and written back on condition that the record still holds the same v1 value. A key that signs for
// another address is reported and left as it is (it opens for nothing either way). Safe to re-run: a second run
// finds nothing to do.
//
//   npm run migrate-vault-keys                 against the environment: REWARDS_TABLE, LAUNCHER_TABLE,
//                                              SECRETS_KEY_SECRET_ID (the old key's secret), VAULT_KEY_SECRET_ID,
//                                              AWS credentials allowed to read both secrets and update the two tables
//   npm run migrate-vault-keys -- --dev        against `npm run dev` (.data/dev), as the settlement function
//   npm run migrate-vault-keys -- --dry-run    only report
//
// Run it once after deploying the release that introduced the secret, before the next settlement, launch task or
// claim needs a v1 key (each refuses v1 with a message naming this script).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../lib/adapters/dynamodb.js';
import { loadSecretsKey, openSecret } from '../lib/adapters/secrets.js';
import { type CustodialKeyKind, sealCustodialKey } from '../lib/adapters/vault-keys.js';
import { keypairFromSecret } from '../lib/chain/index.js';
import { requireSetting } from '../lib/core/config.js';

/** One stored key: where it is, which address it must sign for. */
interface StoredKey {
  table: string;
  key: { pk: string; sk: string };
  attribute: string;
  kind: CustodialKeyKind;
  address: string;
  sealed: string;
}

export type MigrationOutcome = Omit<StoredKey, 'sealed'> & {
  status: 'migrated' | 'would-migrate' | 'changed-meanwhile' | 'kept';
  reason?: string;
};

/** Where custodial keys are stored: the attribute, its kind, and the attribute naming its address. */
const PLACES = [
  {
    tableSetting: 'REWARDS_TABLE',
    sk: 'POOL',
    attribute: 'vaultSealedKey',
    kind: 'vault',
    address: 'vaultAddress',
  },
  {
    tableSetting: 'LAUNCHER_TABLE',
    sk: 'JOB',
    attribute: 'sealedMintKey',
    kind: 'mint',
    address: 'coinMint',
  },
  {
    tableSetting: 'LAUNCHER_TABLE',
    sk: 'JOB',
    attribute: 'sealedVaultKey',
    kind: 'vault',
    address: 'vaultAddress',
  },
] as const;

/** Every key still sealed in the v1 format (a full Scan of each table: a one-off over small tables). */
async function v1Keys(): Promise<StoredKey[]> {
  const found: StoredKey[] = [];
  for (const place of PLACES) {
    const table = requireSetting(place.tableSetting);
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new ScanCommand({
          TableName: table,
          FilterExpression: 'sk = :sk AND begins_with(#sealed, :v1)',
          ExpressionAttributeNames: { '#sealed': place.attribute },
          ExpressionAttributeValues: { ':sk': place.sk, ':v1': 'v1.' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? [])
        found.push({
          table,
          key: { pk: String(item.pk), sk: String(item.sk) },
          attribute: place.attribute,
          kind: place.kind,
          address: String(item[place.address] ?? ''),
          sealed: String(item[place.attribute]),
        });
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return found;
}

/** The v1 key re-sealed as v2 for its address, or why it cannot be. */
async function reseal(stored: StoredKey): Promise<{ sealed: string } | { reason: string }> {
  let secret: Buffer;
  try {
    secret = openSecret(stored.sealed);
  } catch {
    return { reason: 'does not open with the secrets key' };
  }
  try {
    const signer = await keypairFromSecret(new Uint8Array(secret)).catch(() => undefined);
    if (!signer) return { reason: 'is not a keypair' };
    if (signer.address !== stored.address) return { reason: `signs for ${signer.address}` };
    return { sealed: await sealCustodialKey(stored.kind, stored.address, secret) };
  } finally {
    secret.fill(0);
  }
}

/** Re-seals every v1 custodial key (see the file header); with `dryRun`, only says what it would do. */
export async function migrateVaultKeys({ dryRun = false } = {}): Promise<MigrationOutcome[]> {
  const outcomes: MigrationOutcome[] = [];
  await loadSecretsKey();
  for (const stored of await v1Keys()) {
    const { sealed: old, ...where } = stored;
    const result = await reseal(stored);
    if ('reason' in result) {
      outcomes.push({ ...where, status: 'kept', reason: `the v1 key ${result.reason}` });
      continue;
    }
    if (dryRun) {
      outcomes.push({ ...where, status: 'would-migrate' });
      continue;
    }
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: stored.table,
          Key: stored.key,
          UpdateExpression: 'SET #sealed = :v2',
          ConditionExpression: '#sealed = :v1 AND #address = :address',
          ExpressionAttributeNames: {
            '#sealed': stored.attribute,
            '#address': PLACES.find((p) => p.attribute === stored.attribute)?.address ?? '',
          },
          ExpressionAttributeValues: { ':v1': old, ':v2': result.sealed, ':address': stored.address },
        }),
      );
      outcomes.push({ ...where, status: 'migrated' });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      outcomes.push({ ...where, status: 'changed-meanwhile' });
    }
  }
  return outcomes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { dev: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false } },
  });
  if (values.dev) {
    const { loadServerlessConfig } = await import('./stack/config.js');
    const { applyDevFunctionEnvironment } = await import('./stack/dev-environment.js');
    const root = resolve(import.meta.dirname, '..');
    // The settlement function reads pools and holds the vault secret's id; the old key's id is the stack's.
    applyDevFunctionEnvironment(root, await loadServerlessConfig(root), 'settleGameDays');
  }
  const outcomes = await migrateVaultKeys({ dryRun: values['dry-run'] });
  console.log(JSON.stringify(outcomes, null, 2));
  if (outcomes.some((outcome) => outcome.status === 'kept')) process.exitCode = 1;
}
