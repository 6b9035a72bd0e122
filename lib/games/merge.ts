// What merging two identities of one person needs from the games (scripts/merge-identities.ts, docs/wallets.md
// "One identity per person"): a rewards split that names the identity being merged names the person instead.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { bump } from './changes.js';
import * as repo from './repository.js';

/**
 * Every game whose requested split lists `from`: its share goes to `to` (added to `to`'s own share when the split
 * lists both, so the split still sums to 10,000). Each game is written conditional on the version read, and read
 * again after a concurrent change. Returns the ids of the games changed.
 */
export const moveSplitShares = async (from: string, to: string, now?: () => Date): Promise<string[]> => {
  const ids: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: repo.table(),
        FilterExpression: 'sk = :game AND attribute_exists(requestedOrgRewardsSplit.#from)',
        ProjectionExpression: 'id',
        ExpressionAttributeNames: { '#from': from },
        ExpressionAttributeValues: { ':game': 'GAME' },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) ids.push(String(item.id));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const changed: string[] = [];
  for (const id of ids) {
    for (let attempt = 0; ; attempt++) {
      const game = await repo.getGame(id);
      const share = game?.requestedOrgRewardsSplit[from];
      if (!game || share === undefined) break;
      const { [from]: _moved, ...rest } = game.requestedOrgRewardsSplit;
      const next = {
        ...game,
        requestedOrgRewardsSplit: { ...rest, [to]: (rest[to] ?? 0) + share },
        ...bump(game, now),
      };
      try {
        await repo.saveGame(next, game);
        changed.push(id);
        break;
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= 4) throw error;
      }
    }
  }
  return changed;
};
