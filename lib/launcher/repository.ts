// Launch jobs in the LauncherTable (keys in ./keys.ts), and what its other writers share: the table, the open-job
// condition, the condition-failure code. Locks and symbols: ./lock-repository.ts; coin records: ./coin-repository.ts.
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { launcherKeys, OPEN_JOB, OPEN_JOB_ATTRIBUTE, OPEN_JOBS_INDEX } from './keys.js';
import { type JobRecord, jobRecordSchema } from './model.js';

/** The launcher table's name. */
export const table = () => settings().LAUNCHER_TABLE;

export type TransactItems = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>;

/** The reason a write of a cancelled launch transaction gives when its condition failed (`transactNamed`). */
export const FAILED = 'ConditionalCheckFailed';

/** A launch job (strongly consistent). */
export const getJob = async (jobId: string): Promise<JobRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.job(jobId), ConsistentRead: true }),
  );
  return Item ? jobRecordSchema.parse(Item) : undefined;
};

/** The job that launched a mint, if any. */
export const getMintJobId = async (coinMint: string): Promise<string | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: launcherKeys.mintJob(coinMint), ConsistentRead: true }),
  );
  return Item ? String(Item.jobId) : undefined;
};

/**
 * Ids of open jobs whose deadline is at or before `at`, oldest deadline first, at most `limit` (one page of the
 * sparse openJobs index; the index is eventually consistent, so callers re-read each job).
 */
export const overdueJobIds = async (at: string, limit: number): Promise<string[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      IndexName: OPEN_JOBS_INDEX,
      KeyConditionExpression: '#open = :open AND deadlineAt <= :at',
      ExpressionAttributeNames: { '#open': OPEN_JOB_ATTRIBUTE },
      ExpressionAttributeValues: { ':open': OPEN_JOB, ':at': at },
      Limit: limit,
    }),
  );
  return Items.map((item) => String(item.pk).slice('JOB#'.length));
};

/** The condition of an open job (waiting or active), with its values. */
export const OPEN = 'attribute_exists(pk) AND #status IN (:waiting, :active)';
export const openValues = { ':waiting': 'waiting', ':active': 'active' };

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
  keys: { coinMint: string; vaultAddress: string; sealedMintKey: string; sealedVaultKey: string },
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
                'SET coinMint = :m, vaultAddress = :v, sealedMintKey = :mk, sealedVaultKey = :vk, updatedAt = :now',
              ConditionExpression: `${OPEN} AND (attribute_not_exists(coinMint) OR coinMint = :null)`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ...openValues,
                ':m': keys.coinMint,
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
              Item: { ...launcherKeys.mintJob(keys.coinMint), jobId: job.jobId, gameId: job.gameId },
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
export { loadWallet, requireDelegated } from '../user/index.js';
