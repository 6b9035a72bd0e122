// Coin records in the LauncherTable: a launched coin's record (getCoin) and the transaction that completes its
// launch (completeJob).
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import type { CoinSummary, GameRecord } from '../games/index.js';
import { recordCoinWrites } from '../games/index.js';
import { outboxItem } from '../outbox/index.js';
import { statIncrementWrite } from '../user/index.js';
import { launcherKeys, OPEN_JOB_ATTRIBUTE } from './keys.js';
import { HELD, RELEASED } from './lock-repository.js';
import { type CoinRecord, coinRecordSchema, type JobRecord } from './model.js';
import { failedAt, OPEN, openValues, type TransactItems, table } from './repository.js';

/** The coin record of a mint, once complete-launch created it. */
export const getCoin = async (coinMint: string): Promise<CoinRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.coin(coinMint), ConsistentRead: true }),
  );
  return Item ? coinRecordSchema.parse(Item) : undefined;
};

/** Why completing a launch was refused by its transaction. */
export type CompletionOutcome = 'completed' | 'alreadyCompleted' | 'gameChanged' | 'symbolTaken' | 'locked';

/**
 * Complete a launch in one transaction: job (still open) completed, coin record created, symbol turned from
 * reserved into taken, the game's launch lock (still held by the job) released (it may be re-taken only after this coin's emission), the game's coin
 * summary set and the coin linked to the game (optimistic on the game's version), and the launcher's counter.
 */
export const completeJob = async (args: {
  job: JobRecord;
  coin: CoinRecord;
  game: GameRecord;
  summary: CoinSummary;
  now: string;
}): Promise<CompletionOutcome> => {
  const { job, coin, game, summary, now } = args;
  const TableName = table();
  const items: TransactItems = [
    {
      Update: {
        TableName,
        Key: launcherKeys.job(job.jobId),
        UpdateExpression:
          'SET #status = :completed, progress = :p, stage = :stage, message = :message, #error = :null, ' +
          'bundleTx = :tx, completedAt = :now, updatedAt = :now REMOVE #open',
        // Only an open job: a failed one stays failed (its game and symbol were freed for other launches).
        ConditionExpression: OPEN,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#open': OPEN_JOB_ATTRIBUTE },
        ExpressionAttributeValues: {
          ...openValues,
          ':completed': 'completed',
          ':p': 100,
          ':stage': 'complete',
          ':message':
            `Launched ${coin.gameCoinSymbol}: ${coin.emissionDays} daily emissions to the players of each UTC ` +
            `day from ${coin.emissionStartAt.slice(0, 10)}, each paid when that day is settled`,
          ':null': null,
          ':tx': coin.bundleTx,
          ':now': now,
        },
      },
    },
    {
      Put: {
        TableName,
        Item: { ...launcherKeys.coin(coin.coinMint), ...coin },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName,
        Item: {
          ...launcherKeys.symbol(coin.gameCoinSymbol),
          symbol: coin.gameCoinSymbol,
          gameId: coin.gameId,
          jobId: job.jobId,
          coinMint: coin.coinMint,
          state: 'taken',
        },
        ConditionExpression: 'attribute_not_exists(pk) OR jobId = :j',
        ExpressionAttributeValues: { ':j': job.jobId },
      },
    },
    {
      Put: {
        TableName,
        Item: { ...launcherKeys.lock(job.gameId), gameId: job.gameId, jobId: job.jobId, state: RELEASED },
        // The job completes only as the game's open launch: the lock must be held by it.
        ConditionExpression: '#state = :held AND jobId = :j',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':held': HELD, ':j': job.jobId },
      },
    },
    ...recordCoinWrites(game, summary, now),
    statIncrementWrite(job.userId, 'gameCoinsLaunched'),
    // Last: the failure reasons above are read by position.
    outboxItem('launch.completed', job.gameId, {
      jobId: job.jobId,
      coinMint: coin.coinMint,
      symbol: coin.gameCoinSymbol,
    }),
  ];
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
    return 'completed';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (failedAt(error, 0) || failedAt(error, 1) || failedAt(error, 5)) return 'alreadyCompleted';
    if (failedAt(error, 2)) return 'symbolTaken';
    if (failedAt(error, 3)) return 'locked';
    if (failedAt(error, 4)) return 'gameChanged';
    // A transaction conflict with a concurrent writer: the caller re-reads and tries again.
    return 'gameChanged';
  }
};
