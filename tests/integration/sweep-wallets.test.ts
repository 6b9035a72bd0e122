// The one-off migration of issue 21 (scripts/sweep-wallets.ts) against the local stack: a profile that still holds
// a platform-generated keypair with funds has them moved to the user's provider wallet, and the key is forgotten;
// the table scan finds the planted key before and not after (so the scan of wallets.test.ts can fail).
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { sealSecret } from '../../lib/adapters/secrets.js';
import { makeChain } from '../../lib/chain/index.js';
import { newKeypair } from '../../lib/chain/spl.js';
import { userKeys } from '../../lib/user/keys.js';
import { getUser } from '../../lib/user/repository.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { rpcTokenBalances, type SweepDeps, sweepLegacyWallets } from '../../scripts/sweep-wallets.js';
import { fetchLocalToken } from '../../scripts/token.js';
import { scanTablesForKeys } from '../helpers/secret-scan.js';
import { createDeveloper } from '../helpers/users.js';

const SOL = 1_000_000_000n;
const rpcUrl = process.env.SOLANA_RPC_URL ?? '';
const chain = makeChain({ rpcUrl, pollMs: 50 });
const deps: SweepDeps = {
  chain,
  tokenBalances: rpcTokenBalances(rpcUrl),
  providerWallet: async (arcId) => (await loadWallet(arcId, { fresh: true }))?.address ?? null,
};

/** A user as created before issue 21: a keypair generated and sealed by the platform on the profile, funded. */
const legacyUser = async (options: { embeddedWallet?: boolean } = {}) => {
  const name = `legacy-${randomUUID().slice(0, 8)}`;
  await fetchLocalToken(name, process.env.IDP_URL ?? '', undefined, options);
  const { arcId } = await createDeveloper(name);
  const { signer, secretKey } = await newKeypair();
  await dynamo().send(
    new UpdateCommand({
      TableName: process.env.USERS_TABLE,
      Key: userKeys.profile(arcId),
      UpdateExpression: 'SET walletAddress = :a, walletSealedKey = :k',
      ExpressionAttributeValues: { ':a': signer.address, ':k': sealSecret(Buffer.from(secretKey)) },
    }),
  );
  await chain.airdrop(signer.address, SOL);
  return { arcId, legacy: signer.address };
};

const outcomeOf = (outcomes: Awaited<ReturnType<typeof sweepLegacyWallets>>, arcId: string) =>
  outcomes.find((o) => o.arcId === arcId);

describe('scripts/sweep-wallets.ts', () => {
  it('moves a legacy keypair’s SOL to the provider wallet, then forgets the key; a re-run does nothing', async () => {
    const { arcId, legacy } = await legacyUser();
    const provider = (await loadWallet(arcId))?.address ?? '';
    expect(provider).not.toBe(legacy);
    const planted = await scanTablesForKeys([legacy, provider]);
    expect(planted).toContainEqual(
      expect.objectContaining({ attribute: 'walletSealedKey', address: legacy }),
    );

    const dry = outcomeOf(await sweepLegacyWallets({ execute: false }, deps), arcId);
    expect(dry, JSON.stringify(dry)).toMatchObject({ status: 'would-sweep', from: legacy, to: provider });
    expect(await chain.getBalance(legacy)).toBe(SOL);

    const before = await chain.getBalance(provider);
    const swept = outcomeOf(await sweepLegacyWallets({ execute: true }, deps), arcId);
    expect(swept).toMatchObject({ status: 'swept', to: provider, lamports: `${SOL - 5_000n}` });
    expect(await chain.getBalance(legacy)).toBe(0n);
    expect(await chain.getBalance(provider)).toBe(before + SOL - 5_000n);

    const profile = (
      await dynamo().send(
        new UpdateCommand({
          TableName: process.env.USERS_TABLE,
          Key: userKeys.profile(arcId),
          UpdateExpression: 'SET updatedAt = updatedAt',
          ReturnValues: 'ALL_NEW',
        }),
      )
    ).Attributes;
    expect(profile).not.toHaveProperty('walletSealedKey');
    expect(profile?.legacyWallet).toMatchObject({ address: legacy, sweptTo: provider });
    expect(await getUser(arcId)).toBeDefined();
    const after = await scanTablesForKeys([legacy, provider]);
    expect(after.filter((k) => k.address === legacy)).toEqual([]);

    expect(outcomeOf(await sweepLegacyWallets({ execute: true }, deps), arcId)).toBeUndefined();
  }, 120_000);

  it('keeps the key (and the funds where they are) when the provider has no wallet for the user', async () => {
    const { arcId, legacy } = await legacyUser({ embeddedWallet: false });
    const outcome = outcomeOf(await sweepLegacyWallets({ execute: true }, deps), arcId);
    expect(outcome).toMatchObject({ status: 'kept', reason: expect.stringMatching(/no embedded wallet/) });
    expect(await chain.getBalance(legacy)).toBe(SOL);
  }, 120_000);
});
