// Keypairs the platform generated for users before their wallets moved to the identity provider:
// found on the profile (`walletAddress`, `walletSealedKey`) only until scripts/sweep-wallets.ts has moved their
// funds to the user's provider wallet and retired them (docs/wallets.md).
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { userKeys } from './keys.js';

export interface LegacyWallet {
  arcId: string;
  subject: string | null;
  address: string;
  /** The 64-byte secret key, sealed with the secrets key. */
  sealedSecretKey: string;
}

/** Every profile still holding a platform-generated keypair (a full Scan: a one-off migration). */
export const listLegacyWallets = async (): Promise<LegacyWallet[]> => {
  const out: LegacyWallet[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: settings().USERS_TABLE,
        FilterExpression: 'sk = :profile AND attribute_exists(walletSealedKey)',
        ProjectionExpression: 'arcId, subject, walletAddress, walletSealedKey',
        ExpressionAttributeValues: { ':profile': 'PROFILE' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      out.push({
        arcId: String(item.arcId),
        subject: typeof item.subject === 'string' ? item.subject : null,
        address: String(item.walletAddress),
        sealedSecretKey: String(item.walletSealedKey),
      });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
};

/**
 * Forget a legacy keypair once nothing is left under it: conditional on the same sealed key (a concurrent run
 * retires it once). The old address, where the funds went and the transfer signatures stay for the record.
 */
export const retireLegacyWallet = async (
  wallet: LegacyWallet,
  sweep: { sweptTo: string; signatures: string[]; at: string },
): Promise<void> => {
  await dynamo().send(
    new UpdateCommand({
      TableName: settings().USERS_TABLE,
      Key: userKeys.profile(wallet.arcId),
      UpdateExpression: 'REMOVE walletSealedKey, walletAddress SET legacyWallet = :legacy, updatedAt = :at',
      ConditionExpression: 'walletSealedKey = :sealed',
      ExpressionAttributeValues: {
        ':sealed': wallet.sealedSecretKey,
        ':legacy': { address: wallet.address, ...sweep },
        ':at': sweep.at,
      },
    }),
  );
};
