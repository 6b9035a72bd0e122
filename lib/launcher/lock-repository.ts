// What a launch holds while it runs: its game's launch lock and its coin symbol's reservation, taken atomically
// with the new job (createJob), read (getLockHolder) and released when the job fails (failJob).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, transactNamed } from '../adapters/dynamodb.js';
import type { GameRecord } from '../games/index.js';
import { gameUnchangedCheck } from '../games/index.js';
import { outboxItem } from '../outbox/index.js';
import { launcherKeys, OPEN_JOB, OPEN_JOB_ATTRIBUTE } from './keys.js';
import type { JobRecord } from './model.js';
import { FAILED, OPEN, openValues, type TransactItems, table } from './repository.js';

export const HELD = 'held';
export const RELEASED = 'released';

/** The job holding a game's launch lock, when a launch for the game is in progress. */
export const getLockHolder = async (gameId: string): Promise<string | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.lock(gameId), ConsistentRead: true }),
  );
  return Item?.state === HELD ? String(Item.jobId) : undefined;
};

/** Why a new job could not be created. */
export type CreateJobOutcome = 'created' | 'locked' | 'symbolTaken' | 'gameChanged' | 'conflict';

/**
 * Create a job atomically with the game's launch lock and the symbol reservation, on the condition that the
 * game is unchanged since its rules were checked (its version). Exactly one of concurrent calls for a game wins.
 */
export const createJob = async (
  job: JobRecord,
  game: Pick<GameRecord, 'id' | 'version'>,
): Promise<CreateJobOutcome> => {
  const TableName = table();
  const failed = await transactNamed({
    lock: {
      Put: {
        TableName,
        Item: { ...launcherKeys.lock(job.gameId), gameId: job.gameId, jobId: job.jobId, state: HELD },
        ConditionExpression: 'attribute_not_exists(pk) OR #state = :released',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':released': RELEASED },
      },
    },
    job: {
      Put: {
        TableName,
        // In the sweeper's index of open jobs until it completes or fails.
        Item: { ...launcherKeys.job(job.jobId), ...job, [OPEN_JOB_ATTRIBUTE]: OPEN_JOB },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    symbol: {
      Put: {
        TableName,
        Item: {
          ...launcherKeys.symbol(job.gameCoinSymbol),
          symbol: job.gameCoinSymbol,
          gameId: job.gameId,
          jobId: job.jobId,
          state: 'reserved',
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    game: gameUnchangedCheck(game),
  });
  if (!failed) return 'created';
  if (failed.lock === FAILED) return 'locked';
  if (failed.game === FAILED) return 'gameChanged';
  if (failed.symbol === FAILED) return 'symbolTaken';
  return 'conflict';
};

const getItem = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;

/** Writes that free what an open job holds — the game's lock and its symbol reservation — when it still does. */
const releaseWrites = async (job: JobRecord): Promise<TransactItems> => {
  const [lock, symbol] = await Promise.all([
    getItem(launcherKeys.lock(job.gameId)),
    getItem(launcherKeys.symbol(job.gameCoinSymbol)),
  ]);
  const writes: TransactItems = [];
  if (lock?.jobId === job.jobId && lock.state === HELD) {
    writes.push({
      Update: {
        TableName: table(),
        Key: launcherKeys.lock(job.gameId),
        UpdateExpression: 'SET #state = :released',
        ConditionExpression: 'jobId = :j',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':released': RELEASED, ':j': job.jobId },
      },
    });
  }
  if (symbol?.jobId === job.jobId && symbol.state === 'reserved') {
    writes.push({
      Delete: {
        TableName: table(),
        Key: launcherKeys.symbol(job.gameCoinSymbol),
        ConditionExpression: 'jobId = :j AND #state = :reserved',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':j': job.jobId, ':reserved': 'reserved' },
      },
    });
  }
  return writes;
};

/**
 * Mark an open job failed and free the game and the symbol, atomically. Returns false when the job was no longer
 * open (already completed or failed): nothing changes then.
 */
export const failJob = async (job: JobRecord, error: string, now: string): Promise<boolean> => {
  const release = await releaseWrites(job);
  const failed = await transactNamed({
    job: {
      Update: {
        TableName: table(),
        Key: launcherKeys.job(job.jobId),
        UpdateExpression:
          'SET #status = :failed, #error = :error, message = :message, updatedAt = :now REMOVE #open',
        ConditionExpression: OPEN,
        ExpressionAttributeNames: {
          '#status': 'status',
          '#error': 'error',
          '#open': OPEN_JOB_ATTRIBUTE,
        },
        ExpressionAttributeValues: {
          ...openValues,
          ':failed': 'failed',
          ':error': error,
          ':message': 'Launch failed',
          ':now': now,
        },
      },
    },
    release,
    event: outboxItem('launch.failed', job.gameId, { jobId: job.jobId, reason: error }),
  });
  if (!failed) return true;
  if (failed.job === FAILED) return false;
  throw new Error(`Failing launch job ${job.jobId} was cancelled: ${JSON.stringify(failed)}`);
};
