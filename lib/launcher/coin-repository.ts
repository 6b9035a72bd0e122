// Coin records in the LauncherTable: a launched coin's record (getCoin), the transaction that completes its
// launch (completeJob) and its end (endCoinRecord).
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, transactNamed } from '../adapters/dynamodb.js';
import type { CoinSummary, GameRecord } from '../games/index.js';
import { recordCoinWrites } from '../games/index.js';
import { outboxItem } from '../outbox/index.js';
import { statIncrementWrite } from '../user/index.js';
import { launcherKeys, OPEN_JOB_ATTRIBUTE } from './keys.js';
import { HELD, RELEASED } from './lock-repository.js';
import { type CoinRecord, coinRecordSchema, type JobRecord } from './model.js';
import { FAILED, OPEN, openValues, table } from './repository.js';

/** The coin record of a mint, once complete-launch created it. */
export const getCoin = async (coinMint: string): Promise<CoinRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.coin(coinMint), ConsistentRead: true }),
  );
  return Item ? coinRecordSchema.parse(Item) : undefined;
};

/** Mark a coin record ended, once: false when it was already ended (or there is none). */
export const endCoinRecord = async (coinMint: string, at: string): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: launcherKeys.coin(coinMint),
        UpdateExpression: 'SET #status = :ended, emissionEndAt = :at, endedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :ended',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':ended': 'ended', ':at': at },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
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
  const recorded = recordCoinWrites(game, summary, now);
  const failed = await transactNamed({
    job: {
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
    coin: {
      Put: {
        TableName,
        Item: { ...launcherKeys.coin(coin.coinMint), ...coin },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    symbol: {
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
    lock: {
      Put: {
        TableName,
        Item: { ...launcherKeys.lock(job.gameId), gameId: job.gameId, jobId: job.jobId, state: RELEASED },
        // The job completes only as the game's open launch: the lock must be held by it.
        ConditionExpression: '#state = :held AND jobId = :j',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':held': HELD, ':j': job.jobId },
      },
    },
    game: recorded.game,
    link: recorded.link,
    stat: statIncrementWrite(job.userId, 'gameCoinsLaunched'),
    event: outboxItem('launch.completed', job.gameId, {
      jobId: job.jobId,
      coinMint: coin.coinMint,
      symbol: coin.gameCoinSymbol,
    }),
  });
  if (!failed) return 'completed';
  if (failed.job === FAILED || failed.coin === FAILED || failed.link === FAILED) return 'alreadyCompleted';
  if (failed.symbol === FAILED) return 'symbolTaken';
  if (failed.lock === FAILED) return 'locked';
  if (failed.game === FAILED) return 'gameChanged';
  // A transaction conflict with a concurrent writer: the caller re-reads and tries again.
  return 'gameChanged';
};
