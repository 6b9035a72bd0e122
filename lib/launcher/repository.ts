import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import type { CoinSummary, GameRecord } from '../games/index.js';
import { gameUnchangedCheck, recordCoinWrites } from '../games/index.js';
import { statIncrementWrite } from '../user/index.js';
import { launcherKeys } from './keys.js';
import { type CoinRecord, coinRecordSchema, type JobRecord, jobRecordSchema } from './model.js';

const table = () => settings().LAUNCHER_TABLE;

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/** Why a launch transaction was cancelled: one code per item, in item order ('None' when that item was fine). */
export const cancellationCodes = (error: unknown): string[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map(
    (reason) => reason.Code ?? 'None',
  );

const failedAt = (error: unknown, index: number) =>
  cancellationCodes(error)[index] === 'ConditionalCheckFailed';

const HELD = 'held';
const RELEASED = 'released';

/** A launch job (strongly consistent). */
export const getJob = async (jobId: string): Promise<JobRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.job(jobId), ConsistentRead: true }),
  );
  return Item ? jobRecordSchema.parse(Item) : undefined;
};

/** The job holding a game's launch lock, when a launch for the game is in progress. */
export const getLockHolder = async (gameId: string): Promise<string | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.lock(gameId), ConsistentRead: true }),
  );
  return Item?.state === HELD ? String(Item.jobId) : undefined;
};

/** The job that launched a mint, if any. */
export const getMintJobId = async (mint: string): Promise<string | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.mintJob(mint), ConsistentRead: true }),
  );
  return Item ? String(Item.jobId) : undefined;
};

/** The coin record of a mint, once complete-launch created it. */
export const getCoin = async (mint: string): Promise<CoinRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.coin(mint), ConsistentRead: true }),
  );
  return Item ? coinRecordSchema.parse(Item) : undefined;
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
  const items: TransactItems = [
    {
      Put: {
        TableName,
        Item: { ...launcherKeys.lock(job.gameId), gameId: job.gameId, jobId: job.jobId, state: HELD },
        ConditionExpression: 'attribute_not_exists(pk) OR #state = :released',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':released': RELEASED },
      },
    },
    {
      Put: {
        TableName,
        Item: { ...launcherKeys.job(job.jobId), ...job },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
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
    gameUnchangedCheck(game),
  ];
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
    return 'created';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (failedAt(error, 0)) return 'locked';
    if (failedAt(error, 3)) return 'gameChanged';
    if (failedAt(error, 2)) return 'symbolTaken';
    return 'conflict';
  }
};

const OPEN = 'attribute_exists(pk) AND #status IN (:waiting, :active)';
const openValues = { ':waiting': 'waiting', ':active': 'active' };

/**
 * Set fields of an open job (waiting or active). Returns the updated job, or undefined when the job is no longer
 * open (completed or failed meanwhile): a late task then leaves it alone.
 */
export const updateOpenJob = async (
  jobId: string,
  fields: Partial<Omit<JobRecord, 'jobId' | 'gameId' | 'userId'>>,
): Promise<JobRecord | undefined> => {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ...openValues };
  const sets = entries.map(([key, value], i) => {
    names[`#f${i}`] = key;
    values[`:f${i}`] = value;
    return `#f${i} = :f${i}`;
  });
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: launcherKeys.job(jobId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: OPEN,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return jobRecordSchema.parse(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/**
 * Persist a launch's keys on its job (once: a concurrent or repeated reserve keeps the first keys) together with
 * the mint → job index that complete-launch looks up. Returns the job as stored afterwards.
 */
export const reserveKeys = async (
  job: JobRecord,
  keys: { mintAddress: string; vaultAddress: string; sealedMintKey: string; sealedVaultKey: string },
  now: string,
): Promise<JobRecord | undefined> => {
  const TableName = table();
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName,
              Key: launcherKeys.job(job.jobId),
              UpdateExpression:
                'SET mintAddress = :m, vaultAddress = :v, sealedMintKey = :mk, sealedVaultKey = :vk, updatedAt = :now',
              ConditionExpression: `${OPEN} AND (attribute_not_exists(mintAddress) OR mintAddress = :null)`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ...openValues,
                ':m': keys.mintAddress,
                ':v': keys.vaultAddress,
                ':mk': keys.sealedMintKey,
                ':vk': keys.sealedVaultKey,
                ':now': now,
                ':null': null,
              },
            },
          },
          {
            Put: {
              TableName,
              Item: { ...launcherKeys.mintJob(keys.mintAddress), jobId: job.jobId, gameId: job.gameId },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return getJob(job.jobId);
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
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table(),
              Key: launcherKeys.job(job.jobId),
              UpdateExpression:
                'SET #status = :failed, #error = :error, message = :message, updatedAt = :now',
              ConditionExpression: OPEN,
              ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
              ExpressionAttributeValues: {
                ...openValues,
                ':failed': 'failed',
                ':error': error,
                ':message': 'Launch failed',
                ':now': now,
              },
            },
          },
          ...release,
        ],
      }),
    );
    return true;
  } catch (failure) {
    if (isConditionFailure(failure) && failedAt(failure, 0)) return false;
    throw failure;
  }
};

/** Why completing a launch was refused by its transaction. */
export type CompletionOutcome = 'completed' | 'alreadyCompleted' | 'gameChanged' | 'symbolTaken' | 'locked';

/**
 * Complete a launch in one transaction: job completed, coin record created, symbol turned from reserved into
 * taken, the game's launch lock released (it may be re-taken only after this coin's emission), the game's coin
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
          'bundleTx = :tx, gtokenAddress = :mint, completedAt = :now, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :completed',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':completed': 'completed',
          ':p': 100,
          ':stage': 'complete',
          ':message': `Launched ${coin.gameCoinSymbol}: emission runs until ${coin.emissionEndAt}`,
          ':null': null,
          ':tx': coin.bundleTx,
          ':mint': coin.gtokenAddress,
          ':now': now,
        },
      },
    },
    {
      Put: {
        TableName,
        Item: { ...launcherKeys.coin(coin.gtokenAddress), ...coin },
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
          mint: coin.gtokenAddress,
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
        ConditionExpression: 'attribute_not_exists(pk) OR #state = :released OR jobId = :j',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':released': RELEASED, ':j': job.jobId },
      },
    },
    ...recordCoinWrites(game, summary, now),
    statIncrementWrite(job.userId, 'gameCoinsLaunched'),
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

/** Record the execution's ARN on the job (informational; the job works without it). */
export const setExecutionArn = async (jobId: string, executionArn: string): Promise<void> => {
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: launcherKeys.job(jobId),
      UpdateExpression: 'SET executionArn = :arn',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':arn': executionArn },
    }),
  );
};

/** The wallet signer's loader: a user's embedded wallet, from the users area. */
export { loadWallet } from '../user/index.js';
