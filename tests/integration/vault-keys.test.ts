// Custodial keys at rest (lib/adapters/vault-keys.ts) against the local stack: sealed under the key held in the
// Secrets Manager stand-in, bound to their address, checked when opened; the v1 keys of earlier releases re-sealed
// by scripts/migrate-vault-keys.ts.
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { openSecret, sealSecret } from '../../lib/adapters/secrets.js';
import {
  CustodialKeyError,
  openCustodialKey,
  openCustodialSecret,
  sealCustodialKey,
} from '../../lib/adapters/vault-keys.js';
import { newKeypair } from '../../lib/chain/spl.js';
import { CoinLaunchError, generateLaunchKeys, openLaunchKeys } from '../../lib/launcher/coin.js';
import { launcherKeys } from '../../lib/launcher/keys.js';
import { rewardsKeys, rewardsTable } from '../../lib/rewards/keys.js';
import { vaultSigner } from '../../lib/rewards/payout.js';
import { createPool } from '../../lib/rewards/pool-repository.js';
import { newVault } from '../../lib/rewards/vault.js';
import { migrateVaultKeys } from '../../scripts/migrate-vault-keys.js';

/** A game's rewards pool as its first purchase creates it (a fresh custodial vault). */
const newPool = async (vault?: { vaultAddress: string; vaultSealedKey: string }) => {
  const gameId = randomUUID();
  const pool = await createPool({
    gameId,
    ...(vault ?? (await newVault())),
    createdAt: new Date().toISOString(),
  });
  return pool;
};

const setPoolKey = (gameId: string, sealed: string) =>
  dynamo().send(
    new UpdateCommand({
      TableName: rewardsTable(),
      Key: rewardsKeys.pool(gameId),
      UpdateExpression: 'SET vaultSealedKey = :k',
      ExpressionAttributeValues: { ':k': sealed },
    }),
  );

describe('custodial keys sealed for their address', () => {
  it('opens a pool vault’s key for its own record, in the v2 format that the secrets key does not open', async () => {
    const pool = await newPool();
    expect(pool.vaultSealedKey).toMatch(/^v2\./);
    expect((await vaultSigner(pool.gameId)).address).toBe(pool.vaultAddress);
    // The key that seals HMAC secrets (and reaches more functions) opens no custodial key.
    expect(() => openSecret(pool.vaultSealedKey)).toThrow();
  });

  it('refuses a pool vault’s key copied onto another pool’s record', async () => {
    const [a, b] = [await newPool(), await newPool()];
    await setPoolKey(b.gameId, a.vaultSealedKey);
    // Unbound (v1), the copy opened as a's vault and the settlement of b would have paid out of a.
    await expect(vaultSigner(b.gameId)).rejects.toThrow(CustodialKeyError);
    await expect(vaultSigner(b.gameId)).rejects.toThrow(/sealed for another address or altered/);
    expect((await vaultSigner(a.gameId)).address).toBe(a.vaultAddress);
  });

  it('refuses a key that does not sign for the address it is sealed for', async () => {
    const { signer: other, secretKey } = await newKeypair();
    const pool = await newPool();
    // Sealed for the pool's address (so it opens), but the secret is another keypair's.
    await setPoolKey(pool.gameId, await sealCustodialKey('vault', pool.vaultAddress, secretKey));
    await expect(vaultSigner(pool.gameId)).rejects.toThrow(
      new RegExp(`sealed for ${pool.vaultAddress} signs for ${other.address}`),
    );
  });

  it('refuses launch keys swapped between jobs, or the mint’s and the vault’s swapped within one job', async () => {
    const [one, two] = [await generateLaunchKeys(), await generateLaunchKeys()];
    expect((await openLaunchKeys(one)).vault.address).toBe(one.vaultAddress);
    await expect(openLaunchKeys({ ...one, sealedVaultKey: two.sealedVaultKey })).rejects.toThrow(
      CoinLaunchError,
    );
    await expect(openLaunchKeys({ ...one, sealedMintKey: two.sealedMintKey })).rejects.toThrow(
      CoinLaunchError,
    );
    await expect(
      openLaunchKeys({ ...one, sealedMintKey: one.sealedVaultKey, sealedVaultKey: one.sealedMintKey }),
    ).rejects.toThrow(CoinLaunchError);
    // The same bytes under the other kind's label do not open either.
    await expect(openCustodialSecret('mint', one.vaultAddress, one.sealedVaultKey)).rejects.toThrow(
      CustodialKeyError,
    );
  });

  it('refuses a v1 key, naming the migration', async () => {
    const { signer, secretKey } = await newKeypair();
    await expect(
      openCustodialKey('vault', signer.address, sealSecret(Buffer.from(secretKey))),
    ).rejects.toThrow(/retired v1 format: run `npm run migrate-vault-keys`/);
  });
});

describe('scripts/migrate-vault-keys.ts', () => {
  it('re-seals the v1 keys of pools and launch jobs for their addresses, keeps a mismatched one, and a re-run does nothing', async () => {
    // A pool and a launch job as an earlier release stored them: sealed with the secrets key, no binding.
    const vault = await newKeypair();
    const pool = await newPool({
      vaultAddress: vault.signer.address,
      vaultSealedKey: sealSecret(Buffer.from(vault.secretKey)),
    });
    const [mint, jobVault, stranger] = [await newKeypair(), await newKeypair(), await newKeypair()];
    const jobId = randomUUID();
    await dynamo().send(
      new PutCommand({
        TableName: process.env.LAUNCHER_TABLE,
        Item: {
          ...launcherKeys.job(jobId),
          jobId,
          coinMint: mint.signer.address,
          vaultAddress: jobVault.signer.address,
          sealedMintKey: sealSecret(Buffer.from(mint.secretKey)),
          sealedVaultKey: sealSecret(Buffer.from(jobVault.secretKey)),
        },
      }),
    );
    // A pool whose v1 key is another keypair's: nothing can sign for its address, so it stays as it is.
    const mismatched = await newPool({
      vaultAddress: (await newKeypair()).signer.address,
      vaultSealedKey: sealSecret(Buffer.from(stranger.secretKey)),
    });
    await expect(vaultSigner(pool.gameId)).rejects.toThrow(/migrate-vault-keys/);

    const dry = await migrateVaultKeys({ dryRun: true });
    expect(dry).toContainEqual(
      expect.objectContaining({ address: pool.vaultAddress, status: 'would-migrate' }),
    );
    await expect(vaultSigner(pool.gameId)).rejects.toThrow(/migrate-vault-keys/);

    const outcomes = await migrateVaultKeys();
    const of = (address: string) => outcomes.filter((o) => o.address === address).map((o) => o.status);
    expect(of(pool.vaultAddress)).toEqual(['migrated']);
    expect(of(mint.signer.address)).toEqual(['migrated']);
    expect(of(jobVault.signer.address)).toEqual(['migrated']);
    expect(outcomes).toContainEqual(
      expect.objectContaining({
        address: mismatched.vaultAddress,
        status: 'kept',
        reason: `the v1 key signs for ${stranger.signer.address}`,
      }),
    );

    expect((await vaultSigner(pool.gameId)).address).toBe(vault.signer.address);
    const job = (
      await dynamo().send(
        new GetCommand({
          TableName: process.env.LAUNCHER_TABLE,
          Key: launcherKeys.job(jobId),
          ConsistentRead: true,
        }),
      )
    ).Item as { coinMint: string; vaultAddress: string; sealedMintKey: string; sealedVaultKey: string };
    expect(job.sealedMintKey).toMatch(/^v2\./);
    const keys = await openLaunchKeys(job);
    expect([keys.mint.address, keys.vault.address]).toEqual([mint.signer.address, jobVault.signer.address]);

    const again = await migrateVaultKeys();
    expect(again.filter((o) => o.status !== 'kept')).toEqual([]);
  });
});
